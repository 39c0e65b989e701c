import type { Store } from '../store/types.js'
import { tickKeys } from './keys.js'

/** What the last tick did, as health shows it. */
export type LastTick = {
  /** When it began (ISO 8601). */
  at: string
  durationMs: number
  caller: string
  /** The parts that failed (empty: all went well). */
  failed: string[]
  /** Each part's summary. */
  parts: Record<string, unknown>
}

/** How long the last tick's summary is kept. */
const LAST_TICK_TTL_MS = 7 * 86_400_000

/** Keeps the last tick's summary for health. */
export async function saveLastTick(store: Store, keyPrefix: string, tick: LastTick): Promise<void> {
  await store.set(tickKeys(keyPrefix).last, JSON.stringify(tick), LAST_TICK_TTL_MS)
}

/** Parses a stored tick summary; null when absent or not one. */
export function parseLastTick(value: string | null): LastTick | null {
  if (value === null) return null
  try {
    const tick = JSON.parse(value) as LastTick
    return typeof tick.at === 'string' && Number.isFinite(Date.parse(tick.at)) && Array.isArray(tick.failed) ? tick : null
  } catch {
    return null
  }
}
