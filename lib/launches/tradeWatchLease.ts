import { accepted, type Result, refused } from '../platform/result.js'
import { defineScript, type Store } from '../store/types.js'

// Which instance reads the launched pools' trades from the chain and publishes them (tradeWatch.ts): the
// one holding this lease. Beside it, where its holder had read up to, so a new holder goes on from there rather than
// from the head (a trade is late in a handover, not lost). One command per take, renewal or release.

/** Answer of a take that found the lease held by another instance. */
const HELD_ELSEWHERE = '-'

/**
 * KEYS[1] the lease, KEYS[2] the cursor; ARGV: the instance's id, the lease's ttl ms, the cursor to save ('' keeps
 * the one there) and its ttl ms. Takes the lease when it is free or the caller's, and answers the cursor saved
 * (after this save; '' when none), or '-' when another instance holds it.
 */
const takeScript = defineScript<string>({
  name: 'trade-watch take',
  lua: `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return '-' end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if ARGV[3] ~= '' then redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4]) end
return redis.call('GET', KEYS[2]) or ''
`,
  inProcess: (data, [lease, cursor], [me, ttl, saved, cursorTtl]) => {
    const holder = data.get(lease!)
    if (holder !== null && holder !== me) return HELD_ELSEWHERE
    data.set(lease!, me!, { px: Number(ttl) })
    if (saved !== '') data.set(cursor!, saved!, { px: Number(cursorTtl) })
    return data.get(cursor!) ?? ''
  },
})

/**
 * KEYS as {@link takeScript}; ARGV: the instance's id, the cursor to save and its ttl ms. Compare-and-set, as the take
 * is: when another instance holds the lease (the caller's lapsed and was taken), nothing is written, so a late release
 * never moves the new holder's cursor back; else the cursor is saved (a free lease: the caller's is the newest known)
 * and a lease of the caller's freed.
 */
const releaseScript = defineScript<number>({
  name: 'trade-watch release',
  lua: `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end
if holder then return redis.call('DEL', KEYS[1]) end
return 0
`,
  inProcess: (data, [lease, cursor], [me, saved, cursorTtl]) => {
    const holder = data.get(lease!)
    if (holder !== null && holder !== me) return 0
    if (saved !== '') data.set(cursor!, saved!, { px: Number(cursorTtl) })
    if (holder === null) return 0
    data.del(lease!)
    return 1
  },
})

/** The lease's key and the cursor's (keys.ts), and how long each lives unrenewed. */
export type TradeWatchLeaseKeys = { lease: string; cursor: string; leaseMs: number; cursorMs: number }

/** Parameters of {@link takeTradeWatch}: `saved` is the holder's cursor to keep (null: leave the one there). */
export type TakeTradeWatchParameters = { store: Store; keys: TradeWatchLeaseKeys; instanceId: string; saved: string | null }

/** What a take answers: the lease is this instance's (with the cursor saved, null when none), or another's. */
export type TakeTradeWatchReturnType = Result<{ cursor: string | null }, 'LEASE_HELD_ELSEWHERE'>

/** Takes (or renews) the lease for this instance when free or its own, saving its cursor (one command). */
export async function takeTradeWatch({ store, keys, instanceId, saved }: TakeTradeWatchParameters): Promise<TakeTradeWatchReturnType> {
  const reply = String(await store.run(takeScript, [keys.lease, keys.cursor], [instanceId, keys.leaseMs, saved ?? '', keys.cursorMs]))
  if (reply === HELD_ELSEWHERE) return refused('LEASE_HELD_ELSEWHERE')
  return accepted({ cursor: reply === '' ? null : reply })
}

/** Saves the cursor and frees the lease unless another instance holds it now (one command): another may take it then. */
export async function releaseTradeWatch({ store, keys, instanceId, saved }: TakeTradeWatchParameters): Promise<void> {
  await store.run(releaseScript, [keys.lease, keys.cursor], [instanceId, saved ?? '', keys.cursorMs])
}
