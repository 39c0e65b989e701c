import { accepted, type Result, refused } from '../platform/result.js'
import { defineScript, type Store } from '../store/types.js'

// Which instance reads the launched pools' trades from the chain and publishes them (tradeWatch.ts): the
// one holding this lease. Beside it, where its holder had read up to, so a new holder goes on from there rather than
// from the head (a trade is late in a handover, not lost). One command per take, renewal or release.

/** Answer of a take that found the lease held by another instance. */
const HELD_ELSEWHERE = '-'
/** First character of a take's answer: the caller's cursor was written ('+'), or not ('='); the cursor stored follows. */
const WROTE = '+'

/**
 * The one rule of both scripts, compare-and-set as the lease itself is: the caller's cursor is written only when the
 * lease is the caller's, or free with the cursor stored still the one the caller last saw there (its own lease lapsed
 * and nobody moved on since). A holder whose lease lapsed and was taken, even by an instance gone again since, finds
 * another cursor there and writes nothing: a late save never moves the cursor back.
 */
const MAY_WRITE_LUA = `
local function mayWrite(holder, me, expected)
  if holder then return holder == me end
  return (redis.call('GET', KEYS[2]) or '') == expected
end
`

/** In-process twin of {@link MAY_WRITE_LUA}. */
const mayWrite = (holder: string | null, me: string, stored: string | null, expected: string) =>
  holder !== null ? holder === me : (stored ?? '') === expected

/**
 * KEYS[1] the lease, KEYS[2] the cursor; ARGV: the instance's id, the lease's ttl ms, the cursor to save ('' keeps
 * the one there), its ttl ms, and the cursor the caller last saw stored ('' none). Takes the lease when it is free or
 * the caller's, and answers '+' or '=' (the caller's cursor written, or not) then the cursor stored after it ('' none),
 * or '-' when another instance holds it.
 */
const takeScript = defineScript<string>({
  name: 'trade-watch take',
  lua: `${MAY_WRITE_LUA}
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return '-' end
local wrote = ARGV[3] ~= '' and mayWrite(holder, ARGV[1], ARGV[5])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if wrote then redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4]) end
return (wrote and '+' or '=') .. (redis.call('GET', KEYS[2]) or '')
`,
  inProcess: (data, [lease, cursor], [me, ttl, saved, cursorTtl, expected]) => {
    const holder = data.get(lease!)
    if (holder !== null && holder !== me) return HELD_ELSEWHERE
    const wrote = saved !== '' && mayWrite(holder, me!, data.get(cursor!), expected!)
    data.set(lease!, me!, { px: Number(ttl) })
    if (wrote) data.set(cursor!, saved!, { px: Number(cursorTtl) })
    return `${wrote ? WROTE : '='}${data.get(cursor!) ?? ''}`
  },
})

/**
 * KEYS as {@link takeScript}; ARGV: the instance's id, the cursor to save, its ttl ms, and the cursor the caller last
 * saw stored. Saves the cursor by the rule of {@link MAY_WRITE_LUA} and frees the lease when it is the caller's.
 */
const releaseScript = defineScript<number>({
  name: 'trade-watch release',
  lua: `${MAY_WRITE_LUA}
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' and mayWrite(holder, ARGV[1], ARGV[4]) then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end
if holder then return redis.call('DEL', KEYS[1]) end
return 0
`,
  inProcess: (data, [lease, cursor], [me, saved, cursorTtl, expected]) => {
    const holder = data.get(lease!)
    if (holder !== null && holder !== me) return 0
    if (saved !== '' && mayWrite(holder, me!, data.get(cursor!), expected!)) data.set(cursor!, saved!, { px: Number(cursorTtl) })
    if (holder === null) return 0
    data.del(lease!)
    return 1
  },
})

/** The lease's key and the cursor's (keys.ts), and how long each lives unrenewed. */
export type TradeWatchLeaseKeys = { lease: string; cursor: string; leaseMs: number; cursorMs: number }

/** Parameters of {@link takeTradeWatch} and {@link releaseTradeWatch}. */
export type TakeTradeWatchParameters = {
  store: Store
  keys: TradeWatchLeaseKeys
  instanceId: string
  /** The holder's cursor to keep (null: leave the one there). */
  saved: string | null
  /** The cursor this instance last saw stored (the one a take answered it; null: none): what a save compares with. */
  expected: string | null
}

/**
 * What a take answers: the lease is this instance's, with the cursor stored after it (null when none) and whether the
 * caller's was the one written (false while it brought one: another holder moved on meanwhile, go on from `cursor`);
 * or the lease is another's.
 */
export type TakeTradeWatchReturnType = Result<{ cursor: string | null; saved: boolean }, 'LEASE_HELD_ELSEWHERE'>

/** Takes (or renews) the lease for this instance when free or its own, saving its cursor by compare-and-set (one command). */
export async function takeTradeWatch({
  store,
  keys,
  instanceId,
  saved,
  expected,
}: TakeTradeWatchParameters): Promise<TakeTradeWatchReturnType> {
  const reply = String(
    await store.run(takeScript, [keys.lease, keys.cursor], [instanceId, keys.leaseMs, saved ?? '', keys.cursorMs, expected ?? '']),
  )
  if (reply === HELD_ELSEWHERE) return refused('LEASE_HELD_ELSEWHERE')
  const cursor = reply.slice(1)
  return accepted({ cursor: cursor === '' ? null : cursor, saved: reply.startsWith(WROTE) })
}

/**
 * Saves the cursor by compare-and-set and frees the lease unless another instance holds it now (one command): another
 * may take it then.
 */
export async function releaseTradeWatch({ store, keys, instanceId, saved, expected }: TakeTradeWatchParameters): Promise<void> {
  await store.run(releaseScript, [keys.lease, keys.cursor], [instanceId, saved ?? '', keys.cursorMs, expected ?? ''])
}
