import { errorName, type Logger } from '../platform/log.js'
import type { Store } from '../store/types.js'

/** DexScreener requests the whole service may send in any rolling minute (its limit is 300). */
export const DEXSCREENER_REQUESTS_PER_MINUTE = 250

/** Parameters of {@link createSharedRequestBudget}. */
export type CreateSharedRequestBudgetParameters = {
  store: Store
  /** Store key of the budget's rolling window. */
  key: string
  perMinute: number
  logger: Logger
  now?: () => number
}

/**
 * An `admit` for the JSON getter: every attempt to a provider takes one slot of a rolling minute shared by all
 * instances through the store. With the store unreachable it admits (and says so once a minute): reads must keep
 * answering without Redis, and one instance alone stays far under the provider's limit.
 */
export function createSharedRequestBudget({
  store,
  key,
  perMinute,
  logger,
  now = Date.now,
}: CreateSharedRequestBudgetParameters): () => Promise<boolean> {
  let lastWarning = 0
  return async () => {
    try {
      return (await store.reserveWindowSlots({ key, count: 1, limit: perMinute, windowMs: 60_000, now: now() })) === 1
    } catch (error) {
      if (Date.now() - lastWarning > 60_000) {
        lastWarning = Date.now()
        logger.warn('store_unavailable', {
          operation: 'upstream_budget',
          error: errorName(error),
          effect: 'upstream calls not counted across instances',
        })
      }
      return true
    }
  }
}
