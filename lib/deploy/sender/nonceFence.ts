import { defineScript, type Store } from '../../store/types.js'

/**
 * The nonce fence: a signer's nonces handed out one by one to the holder of its nonce lock. Each claimed nonce holds
 * a fence while it is signed and sent (an entry of the signer's fence set, scored by when it lapses); one without a
 * fence was given back (refused by the node, or never sent) and is taken again first, so no gap can hold every later
 * transaction. The fences are one sorted set, not a key per nonce, so that each script names every key it touches.
 */

/**
 * KEYS[1] the next-nonce counter, KEYS[2] the lock, KEYS[3] the highest floor seen, KEYS[4] the fences (nonce -> when
 * its fence lapses, epoch ms); ARGV: the lock token, the floor (the node's pending count, read before the lock: a
 * waiter's may be older than another's, so the highest seen counts), now ms, fence ttl ms, counter ttl ms. Lapsed
 * fences are dropped; the nonce is the lowest from the floor up to the counter without a fence (at most 256 are
 * looked at), else the larger of the counter and the floor. Returns {-1} when the lock is not the caller's, {0, n}
 * when n's fence is held (someone else is signing n), {1, n} when n is claimed: fenced, the counter past it.
 */
const claimNextNonceScript = defineScript<number[]>({
  name: 'nonce claim',
  lua: `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return {-1} end
local now = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
local counter = tonumber(redis.call('GET', KEYS[1]) or '0')
local floor = math.max(tonumber(ARGV[2]), tonumber(redis.call('GET', KEYS[3]) or '0'))
redis.call('SET', KEYS[3], floor, 'PX', ARGV[5])
local n = math.max(counter, floor)
for i = floor, math.min(counter, floor + 256) - 1 do
  if not redis.call('ZSCORE', KEYS[4], i) then n = i break end
end
if redis.call('ZSCORE', KEYS[4], n) then return {0, n} end
redis.call('ZADD', KEYS[4], now + tonumber(ARGV[4]), n)
redis.call('PEXPIRE', KEYS[4], ARGV[4])
redis.call('SET', KEYS[1], math.max(counter, n + 1), 'PX', ARGV[5])
return {1, n}
`,
  inProcess: (data, [counterKey, lockKey, floorKey, fencesKey], [token, floorText, nowText, fenceTtl, counterTtl]) => {
    if (data.get(lockKey!) !== token) return [-1]
    const now = Number(nowText)
    data.zremRangeByScore(fencesKey!, Number.NEGATIVE_INFINITY, now)
    const counter = Number(data.get(counterKey!) ?? '0')
    const floor = Math.max(Number(floorText), Number(data.get(floorKey!) ?? '0'))
    data.set(floorKey!, String(floor), { px: Number(counterTtl) })
    const fenced = (nonce: number) => data.zscore(fencesKey!, String(nonce)) !== null
    let n = Math.max(counter, floor)
    for (let i = floor; i < Math.min(counter, floor + 256); i++)
      if (!fenced(i)) {
        n = i
        break
      }
    if (fenced(n)) return [0, n]
    data.zadd(fencesKey!, now + Number(fenceTtl), String(n))
    data.pexpire(fencesKey!, Number(fenceTtl))
    data.set(counterKey!, String(Math.max(counter, n + 1)), { px: Number(counterTtl) })
    return [1, n]
  },
})

/**
 * KEYS[1] the counter, KEYS[2] the fences; ARGV[1] the nonce. The counter returns to it only if nothing was claimed
 * after it; its fence is removed.
 */
const releaseNonceScript = defineScript<number>({
  name: 'nonce release',
  lua: `
if tonumber(redis.call('GET', KEYS[1]) or '-1') == tonumber(ARGV[1]) + 1 then redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL') end
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`,
  inProcess: (data, [counterKey, fencesKey], [nonce]) => {
    if (Number(data.get(counterKey!) ?? '-1') === Number(nonce) + 1) data.set(counterKey!, nonce!, { keepTtl: true })
    data.zrem(fencesKey!, nonce!)
    return 1
  },
})

/** Where a signer's nonces are kept: the counter, and the prefix of its fence set's key. */
export type NonceFenceKeys = { counterKey: string; fencePrefix: string; fenceTtlMs: number; counterTtlMs: number }

/** The key of a signer's fence set, under its fence prefix. */
export const fencesKeyOf = (fencePrefix: string): string => `${fencePrefix}fences`

/** Parameters of {@link claimNextNonce}. */
export type ClaimNextNonceParameters = NonceFenceKeys & {
  lockKey: string
  lockToken: string
  /** The least nonce that may be taken (the node's pending count). */
  floor: number
  /** Epoch ms a fence's lease is counted from: now, on the lock's clock. */
  now: number
}

/** Result of {@link claimNextNonce}. */
export type ClaimNextNonceReturnType = { kind: 'claimed'; nonce: number } | { kind: 'held'; nonce: number } | { kind: 'lock-lost' }

/**
 * Takes the next nonce of a signer for the holder of its lock, atomically: checks the lock is the caller's, takes the
 * lowest nonce from `floor` up to the counter whose fence is gone, else the larger of the counter and `floor`; fences
 * that nonce for `fenceTtlMs` and moves the counter past it.
 */
export async function claimNextNonce(store: Store, parameters: ClaimNextNonceParameters): Promise<ClaimNextNonceReturnType> {
  const { counterKey, lockKey, lockToken, floor, fencePrefix, fenceTtlMs, counterTtlMs, now } = parameters
  const keys = [counterKey, lockKey, `${counterKey}:floor`, fencesKeyOf(fencePrefix)]
  const reply = await store.run(claimNextNonceScript, keys, [
    lockToken,
    floor,
    Math.round(now),
    Math.round(fenceTtlMs),
    Math.round(counterTtlMs),
  ])
  const [outcome, nonce] = reply.map(Number) as [number, number]
  if (outcome === -1) return { kind: 'lock-lost' }
  return { kind: outcome === 1 ? 'claimed' : 'held', nonce }
}

/** Parameters of {@link releaseNonce}. */
export type ReleaseNonceParameters = { counterKey: string; fencePrefix: string; nonce: number }

/** Gives back a claimed nonce that was never sent: the counter returns to it if nothing came after, its fence goes. */
export async function releaseNonce(store: Store, { counterKey, fencePrefix, nonce }: ReleaseNonceParameters): Promise<void> {
  await store.run(releaseNonceScript, [counterKey, fencesKeyOf(fencePrefix)], [nonce])
}
