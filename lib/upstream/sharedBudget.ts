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
  /** A budget this one is a share of: asked after this one admits (a search takes a slot of its share and of the whole). */
  within?: () => Promise<boolean>
}

/**
 * An `admit` for the JSON getter: every attempt to a provider takes one slot of a rolling minute shared by all
 * instances through the store, and then one of the budget it is a share of (`within`). With the store unreachable
 * the same limit holds per instance (and a line says so once a minute): reads keep answering without Redis, and
 * one instance alone stays under the provider's limit.
 */
export function createSharedRequestBudget({
  store,
  key,
  perMinute,
  logger,
  now = Date.now,
  within,
}: CreateSharedRequestBudgetParameters): () => Promise<boolean> {
  let lastWarning = 0
  const local = createLocalWindow(perMinute)
  const admitHere = async (): Promise<boolean> => {
    try {
      return (await store.reserveWindowSlots({ key, count: 1, limit: perMinute, windowMs: 60_000, now: now() })) === 1
    } catch (error) {
      if (Date.now() - lastWarning > 60_000) {
        lastWarning = Date.now()
        logger.warn('store_unavailable', {
          operation: 'upstream_budget',
          error: errorName(error),
          effect: 'upstream calls counted per instance',
        })
      }
      return local(now())
    }
  }
  return async () => (await admitHere()) && (within ? within() : true)
}

/** A rolling minute of `limit` slots kept in this process: the fallback of a shared budget when the store is down. */
export function createLocalWindow(limit: number): (now: number) => boolean {
  const taken: number[] = []
  return (now) => {
    while (taken.length > 0 && taken[0]! <= now - 60_000) taken.shift()
    if (taken.length >= limit) return false
    taken.push(now)
    return true
  }
}
