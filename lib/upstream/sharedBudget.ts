import { randomUUID } from 'node:crypto'
import { errorName, type Logger } from '../platform/log.js'
import { defineScript, type Store } from '../store/types.js'

/** DexScreener requests the whole service may send in any rolling minute (its limit is 300). */
export const DEXSCREENER_REQUESTS_PER_MINUTE = 250

/**
 * Takes up to ARGV[4] slots of a strict rolling window at once (a sorted set of slot -> time). KEYS[1] the window;
 * ARGV: now ms, window ms, limit, count, a unique member prefix. Trims, counts and adds in one step, so instances
 * together never pass the limit. Returns the number of slots taken.
 */
const reserveSlotsScript = defineScript<number>({
  name: 'window',
  lua: `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local free = tonumber(ARGV[3]) - redis.call('ZCARD', KEYS[1])
local take = math.min(math.max(free, 0), tonumber(ARGV[4]))
for i = 1, take do redis.call('ZADD', KEYS[1], now, ARGV[5] .. ':' .. i) end
if take > 0 then redis.call('PEXPIRE', KEYS[1], window) end
return take
`,
  inProcess: (data, [key], [now, window, limit, count, prefix]) => {
    data.zremRangeByScore(key!, Number.NEGATIVE_INFINITY, Number(now) - Number(window))
    const take = Math.min(Math.max(Number(limit) - data.zcard(key!), 0), Number(count))
    for (let i = 1; i <= take; i++) data.zadd(key!, Number(now), `${prefix}:${i}`)
    if (take > 0) data.pexpire(key!, Number(window))
    return take
  },
})

/** Parameters of {@link reserveSlots}. */
export type ReserveSlotsParameters = { key: string; count: number; limit: number; windowMs: number; now: number }

/** Takes up to `count` slots of a rolling window shared by every instance, while fewer than `limit` are taken; answers how many. */
export async function reserveSlots(store: Store, { key, count, limit, windowMs, now }: ReserveSlotsParameters): Promise<number> {
  const args = [Math.round(now), Math.round(windowMs), limit, count, randomUUID()]
  return Number(await store.run(reserveSlotsScript, [key], args))
}

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
      return (await reserveSlots(store, { key, count: 1, limit: perMinute, windowMs: 60_000, now: now() })) === 1
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
