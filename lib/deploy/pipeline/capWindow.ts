import { defineScript, type Store } from '../../store/types.js'

/**
 * The rolling deploy caps: a strict rolling window per cap (a sorted set of deploy -> time), exact across instances
 * because one script trims, counts and adds.
 */

/**
 * KEYS[1] the window; ARGV: now ms, window ms, limit, member. Returns {1, used} when the member was added, {0, used,
 * oldest} when full.
 */
const reserveSlotScript = defineScript<(number | string)[]>({
  name: 'window',
  lua: `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local used = redis.call('ZCARD', KEYS[1])
if used >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, used, oldest[2] or tostring(now)}
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], window)
return {1, used + 1}
`,
  inProcess: (data, [key], [nowText, windowText, limit, member]) => {
    const now = Number(nowText)
    const window = Number(windowText)
    data.zremRangeByScore(key!, Number.NEGATIVE_INFINITY, now - window)
    const used = data.zcard(key!)
    if (used >= Number(limit)) return [0, used, String(data.zrange(key!, 0, 0)[0]?.score ?? now)]
    data.zadd(key!, now, member!)
    data.pexpire(key!, window)
    return [1, used + 1]
  },
})

/** KEYS[1] the window; ARGV[1] the member: gives its slot back. */
const releaseSlotScript = defineScript<number>({
  name: 'window',
  lua: `return redis.call('ZREM', KEYS[1], ARGV[1])`,
  inProcess: (data, [key], [member]) => {
    data.zrem(key!, member!)
    return 1
  },
})

/** KEYS[1] the window; ARGV[1] the window's start (exclusive): how many slots are taken after it. */
const countSlotsScript = defineScript<number>({
  name: 'window',
  lua: `return redis.call('ZCOUNT', KEYS[1], '(' .. ARGV[1], '+inf')`,
  inProcess: (data, [key], [start]) =>
    data.zrangeByScore(key!, Number(start), Number.POSITIVE_INFINITY).filter((e) => e.score > Number(start)).length,
})

/** Parameters of {@link reserveCapSlot}. */
export type ReserveCapSlotParameters = { key: string; member: string; limit: number; windowMs: number; now: number }

/** Result of {@link reserveCapSlot}: the slot, or when one frees up (epoch ms). */
export type ReserveCapSlotReturnType = { ok: true; used: number } | { ok: false; used: number; freesAt: number }

/**
 * Takes a slot in a strict rolling window, atomically: drops entries at or before `now - windowMs`, and adds `member`
 * at `now` only while fewer than `limit` remain. When full, answers when the oldest entry leaves.
 */
export async function reserveCapSlot(store: Store, parameters: ReserveCapSlotParameters): Promise<ReserveCapSlotReturnType> {
  const { key, member, limit, windowMs, now } = parameters
  const reply = await store.run(reserveSlotScript, [key], [Math.round(now), Math.round(windowMs), limit, member])
  const [added, used, oldest] = reply.map(Number) as [number, number, number | undefined]
  return added === 1 ? { ok: true, used } : { ok: false, used, freesAt: (oldest ?? now) + windowMs }
}

/** Gives a reserved slot back (the deploy it was for did not go out). */
export async function releaseCapSlot(store: Store, key: string, member: string): Promise<void> {
  await store.run(releaseSlotScript, [key], [member])
}

/** How many slots of a rolling window are taken at `now` (entries after `now - windowMs`). */
export async function countCapSlots(store: Store, { key, windowMs, now }: { key: string; windowMs: number; now: number }): Promise<number> {
  return Number(await store.run(countSlotsScript, [key], [Math.round(now - windowMs)]))
}
