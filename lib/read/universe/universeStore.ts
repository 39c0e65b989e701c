import { parseUniverse, serializeUniverse, UNIVERSE_MAX_AGE_MS, type UniverseEntry } from '../../market/universe.js'
import type { Sleep } from '../../platform/clock.js'
import { errorName, type Logger } from '../../platform/log.js'
import type { Store, WriteEntry } from '../../store/types.js'
import { REFRESH_LOCK_MS, refreshLockKey } from '../cache/sharedRefresh.js'

/** How long the stored universe outlives its last write. */
const UNIVERSE_TTL_MS = 2 * UNIVERSE_MAX_AGE_MS
/** How often a change of the universe looks whether the refresh's lock is free. */
const LOCK_POLL_MS = 50

/** The universe as a write of {@link Store.writeMany} (written with the body of the refresh that learned it). */
export function universeWrite(key: string, universe: readonly UniverseEntry[]): WriteEntry {
  return { key, value: serializeUniverse(universe), ttlMs: UNIVERSE_TTL_MS }
}

/** Parameters of {@link changeUniverse}. */
export type ChangeUniverseParameters = {
  store: Store
  /** The universe's key. */
  key: string
  /** The key of the cached body whose refresh writes the universe (the control room's). */
  refreshedWith: string
  logger: Logger
  now: () => number
  sleep: Sleep
}

/**
 * Reads, changes and writes the universe under the lock of the refresh that also writes it (the control room's
 * refresh reads the universe and writes it back with its body while it holds that lock): neither can write over what
 * the other learned. Waits for a refresh under way (at most its lease, on the given clock). `change` answers the new
 * universe, or null to leave it; a store outage leaves it too (logged). Answers whether it was written.
 */
export async function changeUniverse(
  parameters: ChangeUniverseParameters,
  change: (universe: UniverseEntry[]) => UniverseEntry[] | null,
): Promise<boolean> {
  const { store, key, refreshedWith, logger, now, sleep } = parameters
  const lockKey = refreshLockKey(refreshedWith)
  try {
    const deadline = now() + REFRESH_LOCK_MS
    let token = await store.acquireLock(lockKey, REFRESH_LOCK_MS)
    while (token === null && now() < deadline) {
      await sleep(LOCK_POLL_MS)
      token = await store.acquireLock(lockKey, REFRESH_LOCK_MS)
    }
    if (token === null) {
      logger.warn('universe_busy', { effect: 'universe not changed' })
      return false
    }
    let released = false
    try {
      const next = change(parseUniverse(await store.get(key)))
      if (!next) return false
      await store.writeMany({ entries: [universeWrite(key, next)], releaseLock: { key: lockKey, token } })
      released = true
      return true
    } finally {
      if (!released) await store.releaseLock(lockKey, token)
    }
  } catch (error) {
    logger.warn('store_unavailable', { operation: 'universe_change', error: errorName(error), effect: 'universe not changed' })
    return false
  }
}
