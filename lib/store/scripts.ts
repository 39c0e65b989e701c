/** Deletes KEYS[1] only while it still holds the caller's token ARGV[1] (compare-and-delete). */
export const RELEASE_LOCK_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`

/**
 * Strict rolling window (sorted set of member -> timestamp). KEYS[1] the window; ARGV: now ms, window ms, limit,
 * member. Trims, counts and adds in one step, so concurrent callers can never overshoot the limit.
 * Returns {1, used} when the member was added, {0, used, oldest} when full.
 */
export const RESERVE_WINDOW_SLOT_SCRIPT = `
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
`

/**
 * Takes up to ARGV[4] slots of a strict rolling window at once. KEYS[1] the window; ARGV: now ms, window ms, limit,
 * count, a unique member prefix. Returns the number of slots taken.
 */
export const RESERVE_WINDOW_SLOTS_SCRIPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local free = tonumber(ARGV[3]) - redis.call('ZCARD', KEYS[1])
local take = math.min(math.max(free, 0), tonumber(ARGV[4]))
for i = 1, take do redis.call('ZADD', KEYS[1], now, ARGV[5] .. ':' .. i) end
if take > 0 then redis.call('PEXPIRE', KEYS[1], window) end
return take
`

/**
 * Writes a record and files it in indexes atomically. KEYS[1] the record, KEYS[2..] the indexes (sorted sets);
 * ARGV: value, ttl ms, member, score (epoch ms), most entries per index.
 */
export const PUT_INDEXED_SCRIPT = `
local ttl = tonumber(ARGV[2])
local score = tonumber(ARGV[4])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
for i = 2, #KEYS do
  redis.call('ZADD', KEYS[i], score, ARGV[3])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', score - ttl)
  redis.call('ZREMRANGEBYRANK', KEYS[i], 0, -(tonumber(ARGV[5]) + 1))
  redis.call('PEXPIRE', KEYS[i], ttl)
end
return 1
`
