import { randomUUID } from 'node:crypto'
import { errorName, type Logger } from '../platform/log.js'
import { createSlidingLogStore, type SlidingWindow, takeSlots } from '../store/slidingLog.js'
import type { Store } from '../store/types.js'

/** DexScreener requests the whole service may send in any rolling minute (its limit is 300). */
export const DEXSCREENER_REQUESTS_PER_MINUTE = 250

/** A budget's window: one rolling minute. */
const MINUTE_MS = 60_000

/** Parameters of {@link reserveSlots}. */
export type ReserveSlotsParameters = { key: string; count: number; limit: number; windowMs: number; now: number }

/** Takes up to `count` slots of a rolling window shared by every instance, while fewer than `limit` are taken; answers how many. */
export async function reserveSlots(store: Store, { key, count, limit, windowMs, now }: ReserveSlotsParameters): Promise<number> {
  return (await takeSlots(store, { windows: [{ key, limit, windowMs }], count, member: randomUUID(), now })).taken
}

/** The budget a share belongs to: its window's key and its requests a minute. */
export type WholeBudget = { key: string; perMinute: number }

/** Parameters of {@link createSharedRequestBudget}. */
export type CreateSharedRequestBudgetParameters = {
  store: Store
  /** Store key of the budget's rolling window. */
  key: string
  perMinute: number
  logger: Logger
  now: () => number
  /** The budget this one is a share of: a request takes a slot of the share and of the whole in one step, or of neither. */
  within?: WholeBudget
  /**
   * Where the windows are kept in this process while the store is down (default: this budget's own). A share and its
   * whole give the same one, so the whole counts the share's requests there too.
   */
  local?: Store
}

/**
 * An `admit` for the JSON getter: every attempt to a provider takes one slot of a rolling minute shared by all
 * instances through the store (and of the budget it is a share of, in the same step). With the store unreachable the
 * same windows hold per instance (and a line says so once a minute): reads keep answering without Redis, and one
 * instance alone stays under the provider's limit.
 */
export function createSharedRequestBudget(parameters: CreateSharedRequestBudgetParameters): () => Promise<boolean> {
  const { store, key, perMinute, logger, now, within } = parameters
  const local = parameters.local ?? createSlidingLogStore(now)
  const windows: SlidingWindow[] = [{ key, limit: perMinute, windowMs: MINUTE_MS }]
  if (within) windows.push({ key: within.key, limit: within.perMinute, windowMs: MINUTE_MS })
  let lastWarning = Number.NEGATIVE_INFINITY
  const admitOn = async (on: Store) => (await takeSlots(on, { windows, member: randomUUID(), now: now() })).taken === 1
  return async () => {
    try {
      return await admitOn(store)
    } catch (error) {
      if (now() - lastWarning > MINUTE_MS) {
        lastWarning = now()
        logger.warn('store_unavailable', {
          operation: 'upstream_budget',
          error: errorName(error),
          effect: 'upstream calls counted per instance',
        })
      }
      return admitOn(local)
    }
  }
}
