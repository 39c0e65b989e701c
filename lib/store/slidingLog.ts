import { createMemoryStore } from './memory.js'
import { defineScript, type Store } from './types.js'

/**
 * The one sliding log of the service: each window is a sorted set of entry -> the time it was taken, and a window
 * admits an entry while fewer than its limit were taken in the last `windowMs` (an entry at exactly `now - windowMs`
 * has left). One script trims, counts and adds, so every instance together stays exact. It serves the deploy caps,
 * the upstream budgets (a share taken with the whole it belongs to, in one step), and, over a store of its own in
 * this process, the budgets' fallback while the shared store is down and the per-client throttle of the in-process
 * store.
 */

/**
 * KEYS: the windows; ARGV: now ms, count, member, then for each window its length ms and its limit. Takes the same
 * number of entries in every window, as many as each still admits and at most count: of every window or of none.
 * The first entry is `member`, the n-th after it `member:n`. Returns the number taken, then for each window how many
 * entries it holds and when its oldest was taken (now when it is empty).
 */
const takeScript = defineScript<number[]>({
  name: 'sliding-log take',
  lua: `
local now = tonumber(ARGV[1])
local take = tonumber(ARGV[2])
for i = 1, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - tonumber(ARGV[2 + 2 * i]))
  take = math.min(take, tonumber(ARGV[3 + 2 * i]) - redis.call('ZCARD', KEYS[i]))
end
take = math.max(take, 0)
local reply = {take}
for i = 1, #KEYS do
  for n = 1, take do redis.call('ZADD', KEYS[i], now, n == 1 and ARGV[3] or (ARGV[3] .. ':' .. n)) end
  if take > 0 then redis.call('PEXPIRE', KEYS[i], ARGV[2 + 2 * i]) end
  local oldest = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  reply[#reply + 1] = redis.call('ZCARD', KEYS[i])
  reply[#reply + 1] = tonumber(oldest[2] or now)
end
return reply
`,
  inProcess: (data, keys, [nowText, countText, member, ...windows]) => {
    const now = Number(nowText)
    let take = Number(countText)
    keys.forEach((key, i) => {
      data.zremRangeByScore(key, Number.NEGATIVE_INFINITY, now - Number(windows[2 * i]))
      take = Math.min(take, Number(windows[2 * i + 1]) - data.zcard(key))
    })
    take = Math.max(take, 0)
    const reply = [take]
    keys.forEach((key, i) => {
      for (let n = 1; n <= take; n++) data.zadd(key, now, n === 1 ? member! : `${member}:${n}`)
      if (take > 0) data.pexpire(key, Number(windows[2 * i]))
      reply.push(data.zcard(key), data.zrange(key, 0, 0)[0]?.score ?? now)
    })
    return reply
  },
})

/** KEYS: the windows; ARGV[1] the member: gives its entry back in every window. */
const releaseScript = defineScript<number>({
  name: 'sliding-log release',
  lua: `for i = 1, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end return 1`,
  inProcess: (data, keys, [member]) => {
    for (const key of keys) data.zrem(key, member!)
    return 1
  },
})

/** KEYS[1] the window; ARGV[1] the window's start (exclusive): how many entries were taken after it. */
const countScript = defineScript<number>({
  name: 'sliding-log count',
  lua: `return redis.call('ZCOUNT', KEYS[1], '(' .. ARGV[1], '+inf')`,
  inProcess: (data, [key], [start]) =>
    data.zrangeByScore(key!, Number(start), Number.POSITIVE_INFINITY).filter((e) => e.score > Number(start)).length,
})

/** One window of a sliding log: where it is kept, how many entries it admits, over how long. */
export type SlidingWindow = { key: string; limit: number; windowMs: number }

/** Parameters of {@link takeSlots}. */
export type TakeSlotsParameters = {
  windows: readonly SlidingWindow[]
  /** Entries wanted (default 1). */
  count?: number
  /** The first entry's name (unique: a deploy's id, a request's); the n-th after it is `member:n`. */
  member: string
  /** Epoch ms, on the caller's clock. */
  now: number
}

/** One window after {@link takeSlots}: the entries it holds, and when its oldest was taken (`now` when empty). */
export type SlidingWindowState = { used: number; oldestAt: number }

/** Result of {@link takeSlots}: how many entries were taken (of every window alike), and each window after it. */
export type TakeSlotsReturnType = { taken: number; windows: SlidingWindowState[] }

/**
 * Takes up to `count` entries of every window at once, as many as all of them still admit: a share and the whole it
 * belongs to, a service cap and an agent's, are taken together or not at all. One store call.
 */
export async function takeSlots(store: Store, parameters: TakeSlotsParameters): Promise<TakeSlotsReturnType> {
  const { windows, count = 1, member, now } = parameters
  const args = [Math.round(now), count, member, ...windows.flatMap((w) => [Math.round(w.windowMs), w.limit])]
  const [taken, ...states] = (
    await store.run(
      takeScript,
      windows.map((w) => w.key),
      args,
    )
  ).map(Number) as [number, ...number[]]
  return { taken, windows: windows.map((_, i) => ({ used: states[2 * i]!, oldestAt: states[2 * i + 1]! })) }
}

/** Gives the entry `member` back in every window of `keys` (an entry not there is no error). One store call. */
export async function releaseSlot(store: Store, keys: readonly string[], member: string): Promise<void> {
  if (keys.length > 0) await store.run(releaseScript, keys, [member])
}

/** How many entries of a window were taken after `now - windowMs`. */
export async function countSlots(store: Store, { key, windowMs, now }: Omit<SlidingWindow, 'limit'> & { now: number }): Promise<number> {
  return Number(await store.run(countScript, [key], [Math.round(now - windowMs)]))
}

/**
 * An in-process store of its own for sliding logs that are not shared (a budget's fallback, the in-process
 * throttle): the same script, run by its in-process steps, on the caller's clock. `maxEntries` bounds how many
 * windows it keeps (the least recently written goes first).
 */
export function createSlidingLogStore(now: () => number, maxEntries?: number): Store {
  return createMemoryStore({ now, maxEntries })
}
