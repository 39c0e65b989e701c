import { parseUniverse, serializeUniverse, UNIVERSE_MAX_AGE_MS, type UniverseEntry } from '../market/universe.js'
import { errorName, type Logger } from '../platform/log.js'
import type { Store, WriteEntry } from '../store/types.js'

/** How long the stored universe outlives its last write. */
const UNIVERSE_TTL_MS = 2 * UNIVERSE_MAX_AGE_MS

/** Loads the universe from the shared store; a store outage reads as an empty universe (and is logged). */
export async function loadUniverse(store: Store, key: string, logger: Logger): Promise<UniverseEntry[]> {
  try {
    return parseUniverse(await store.get(key))
  } catch (error) {
    logger.warn('store_unavailable', { operation: 'universe_get', error: errorName(error), effect: 'refreshing without the universe' })
    return []
  }
}

/** The universe as a write of {@link Store.writeMany} (written with the body of the refresh that learned it). */
export function universeWrite(key: string, universe: readonly UniverseEntry[]): WriteEntry {
  return { key, value: serializeUniverse(universe), ttlMs: UNIVERSE_TTL_MS }
}

/** Saves the universe to the shared store; a store outage only costs the next refresh its head start. */
export async function saveUniverse(store: Store, key: string, universe: readonly UniverseEntry[], logger: Logger): Promise<void> {
  try {
    await store.set(key, serializeUniverse(universe), UNIVERSE_TTL_MS)
  } catch (error) {
    logger.warn('store_unavailable', { operation: 'universe_set', error: errorName(error), effect: 'universe not saved' })
  }
}
