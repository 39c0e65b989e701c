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

/**
 * Takes the signer's next nonce under the nonce lock, in one step. KEYS[1] the next-nonce counter, KEYS[2] the lock,
 * KEYS[3] the highest floor seen; ARGV: the lock token, the floor (the node's pending count, read before the lock: a
 * waiter's may be older than another's, so the highest seen counts), the fence key prefix, fence ttl ms, counter ttl
 * ms. Every nonce from the floor up to the counter was claimed in the last minutes and holds a fence
 * while it is being sent or after; one without a fence was given back (refused by the node, or never sent), and is
 * taken again first, so no gap can hold every later transaction. Otherwise the nonce is the larger of the counter and
 * the floor (at most 256 fences are looked at). Returns {-1} when the lock is not the caller's, {0, n} when n's fence
 * is held (someone else is signing n), {1, n} when n is claimed: its fence holds the token, the counter is past it.
 */
export const CLAIM_NEXT_NONCE_SCRIPT = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return {-1} end
local counter = tonumber(redis.call('GET', KEYS[1]) or '0')
local floor = math.max(tonumber(ARGV[2]), tonumber(redis.call('GET', KEYS[3]) or '0'))
redis.call('SET', KEYS[3], floor, 'PX', ARGV[5])
local n = math.max(counter, floor)
for i = floor, math.min(counter, floor + 256) - 1 do
  if redis.call('EXISTS', ARGV[3] .. i) == 0 then n = i break end
end
if not redis.call('SET', ARGV[3] .. n, ARGV[1], 'NX', 'PX', ARGV[4]) then return {0, n} end
redis.call('SET', KEYS[1], math.max(counter, n + 1), 'PX', ARGV[5])
return {1, n}
`

/**
 * Gives back a nonce that was claimed but never sent. KEYS[1] the counter, KEYS[2] the nonce's fence; ARGV[1] the
 * nonce. The counter returns to it only if nothing was claimed after it; the fence is removed.
 */
export const RELEASE_NONCE_SCRIPT = `
if tonumber(redis.call('GET', KEYS[1]) or '-1') == tonumber(ARGV[1]) + 1 then redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL') end
redis.call('DEL', KEYS[2])
return 1
`

/**
 * Writes several keys in one step, each with its TTL, some only when absent, then releases a lock the caller still
 * owns. KEYS: the n keys, then the lock key (or none); ARGV: n, then per key its value, ttl ms and "nx" or "-", then
 * the lock token.
 */
export const WRITE_MANY_SCRIPT = `
local n = tonumber(ARGV[1])
for i = 1, n do
  local value, ttl, mode = ARGV[3 * i - 1], ARGV[3 * i], ARGV[3 * i + 1]
  if mode == 'nx' then redis.call('SET', KEYS[i], value, 'PX', ttl, 'NX') else redis.call('SET', KEYS[i], value, 'PX', ttl) end
end
if #KEYS > n and redis.call('GET', KEYS[n + 1]) == ARGV[3 * n + 2] then redis.call('DEL', KEYS[n + 1]) end
return n
`

/**
 * Claims the due members of a sorted set. KEYS[1] the index; ARGV: now ms, the lease's end ms, most members. Takes the
 * earliest members scored at or before now and rescores them to the lease's end, in one step. Returns them.
 */
export const CLAIM_DUE_SCRIPT = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], member) end
return due
`
