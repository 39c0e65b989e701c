import { createHash, randomUUID } from 'node:crypto'
import { z } from 'zod'
import { putIndexed, removeFromIndexes } from '../../store/recordIndex.js'
import { parseRecord } from '../../store/records.js'
import { defineScript, type Store } from '../../store/types.js'
import type { PaymentKeys } from '../keys.js'
import { PAYMENT_RECORD_TTL_MS, UNSETTLED_TTL_MS } from './lifetimes.js'

// The ledger: what the store keeps of a payment, so that one payment settles at most once and buys at most one deploy,
// across instances. Work on a payment happens under its lease (one instance at a time, keyed by the authorization:
// payer and nonce). One record per authorization, in one named state, each written before the step it allows
// (docs/payments.md has the table): `verifying` (an Idempotency-Key was claimed for it, before verify), `settling`
// (before the settle), `unknown` (the settle's outcome is not known: only the chain can say), `deploying` (paid and
// confirmed on chain, before the signature), `deployed` (the answer, replayed), `credit` (paid, not deployed) and
// `refused` (nothing was paid: the chain says so; an Idempotency-Key that went with it may be taken by a new payment).
// How long each is kept: ./lifetimes.ts (minutes before the settle and once refused, 30 days from the settle on).

/** How long an instance holds a payment: past the door's longest path (its function's 120 s maxDuration). */
export const PAYMENT_LEASE_MS = 150_000
/** Most open payments (settling or credited) the operator's list keeps. */
export const SETTLED_INDEX_MAX = 10_000

/** A stored answer of the door (an HttpAnswer), replayed as it was. */
const storedAnswerSchema = z.object({
  status: z.number(),
  body: z.record(z.string(), z.unknown()),
  headers: z.record(z.string(), z.string()).optional(),
})

/** The states of a payment (see the module's comment). */
export const PAYMENT_STATES = ['verifying', 'settling', 'unknown', 'deploying', 'deployed', 'credit', 'refused'] as const

/** Records written before the ledger's states: `settled` (paid, maybe with a credit) and `done` (the answer). */
const legacyState = (record: unknown) => {
  if (typeof record !== 'object' || record === null) return record
  const { state, credit } = record as { state?: unknown; credit?: unknown }
  if (state === 'done') return { ...record, state: 'deployed' }
  if (state === 'settled') return { ...record, state: credit ? 'credit' : 'deploying' }
  return record
}

/** What the store keeps per payment (see the module's comment). */
export const paymentRecordSchema = z.preprocess(
  legacyState,
  z.object({
    state: z.enum(PAYMENT_STATES),
    /** SHA-256 of the deploy request it pays for: the same payment cannot buy another deploy. */
    bodyHash: z.string(),
    payer: z.string(),
    nonce: z.string(),
    amount: z.string(),
    asset: z.string(),
    network: z.string(),
    /** When the authorization lapses (unix seconds): an unsettled one can never settle after it. */
    validBefore: z.number(),
    /** When the settle was first asked for (epoch ms). */
    at: z.number(),
    /** The settlement's transaction, once known. */
    transaction: z.string().nullable(),
    /** Whether the settlement was seen on chain (a Transfer of the price from payer to payTo). */
    confirmed: z.boolean(),
    /** Settled, not deployed: the credit's id, and why the deploy failed. */
    credit: z.object({ id: z.string(), code: z.string(), at: z.number() }).nullable(),
    /** The final answer, once done. */
    answer: storedAnswerSchema.nullable(),
    /** Who it paid (`X402_PAY_TO` when it was taken): a credit stays bound to the terms it was paid under. */
    payTo: z.string().optional(),
    /** The asset's EIP-712 domain when it was taken: what its signature is checked against for good. */
    assetName: z.string().optional(),
    assetVersion: z.string().optional(),
    /** The latest block when its settle was asked for: its transaction can be no earlier (bounds the log lookup). */
    fromBlock: z.string().optional(),
    /** Why nothing was paid, once `refused`. */
    reason: z.string().optional(),
    /** The part of the price paid for a pool (base units), and that part credited once the pool failed (poolCredits.ts). */
    poolPart: z.string().optional(),
    poolCredit: z.object({ id: z.string(), code: z.literal('POOL_FAILED'), amount: z.string(), at: z.number() }).optional(),
  }),
)

/** A payment as the store keeps it. */
export type PaymentRecord = z.infer<typeof paymentRecordSchema>

/** What a payer's Idempotency-Key (or payment id) points to: the request it came with, and the payment it went with. */
const idempotencyAliasSchema = z.object({
  bodyHash: z.string(),
  payer: z.string(),
  nonce: z.string(),
  /**
   * Which claim wrote it: a claim compares the key's value with what it read, so a resend of the key's refused payment
   * that claims the key again writes a new value, and a new payment racing it cannot take the key too.
   */
  claim: z.string().optional(),
})
/** A payer's Idempotency-Key as the store keeps it. */
export type IdempotencyAlias = z.infer<typeof idempotencyAliasSchema>

/** SHA-256 hex of a text (a request's canonical JSON, an Idempotency-Key). */
export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

/** A payment's id, as answers and the operator's list name it: the same for every retry of one authorization. */
export const paymentIdOf = (payer: string, nonce: string): string =>
  `pay_${sha256(`${payer.toLowerCase()}:${nonce.toLowerCase()}`).slice(0, 24)}`

/** A credit's id: the same for every retry of one payment. */
export const creditIdOf = (payer: string, nonce: string): string =>
  `cr_${sha256(`${payer.toLowerCase()}:${nonce.toLowerCase()}`).slice(0, 24)}`

/** One payment's keys, as the module's functions take them. */
export type PaymentRef = { keys: PaymentKeys; payer: string; nonce: string }

/** Takes the payment's lease; answers its token, or null when another request works on it. */
export function leasePayment(store: Store, { keys, payer, nonce }: PaymentRef): Promise<string | null> {
  return store.acquireLock(keys.lease(payer, nonce), PAYMENT_LEASE_MS)
}

/** Gives the lease back (best effort: it lapses by itself). */
export async function releasePayment(store: Store, { keys, payer, nonce }: PaymentRef, token: string): Promise<void> {
  await store.releaseLock(keys.lease(payer, nonce), token).catch(() => false)
}

/** The payment's record and, when a key hash is given, the payer's Idempotency-Key alias: one round trip. */
export async function readPayment(
  store: Store,
  ref: PaymentRef,
  keyHash: string | null,
): Promise<{ record: PaymentRecord | null; alias: IdempotencyAlias | null }> {
  const { keys, payer, nonce } = ref
  const wanted = [keys.payment(payer, nonce), ...(keyHash ? [keys.idempotency(payer, keyHash)] : [])]
  const [record, alias] = await store.getMany(wanted)
  return { record: parseRecord(paymentRecordSchema, record), alias: parseRecord(idempotencyAliasSchema, alias) }
}

/** Another payment's record (the one an Idempotency-Key went with). */
export async function readPaymentRecord(store: Store, { keys, payer, nonce }: PaymentRef): Promise<PaymentRecord | null> {
  return parseRecord(paymentRecordSchema, await store.get(keys.payment(payer, nonce)))
}

/** States of a payment that may have paid (its settle was asked for): no claim ever writes over its record. */
const MAYBE_PAID = ['settling', 'unknown', 'deploying', 'deployed', 'credit']

/**
 * Points a payer's Idempotency-Key at a payment and writes that payment's record, in one step, only while the key
 * still holds what the caller read (nothing, or a payment the caller saw refused) and the payment's settle was never
 * asked for (a record `settling`, `unknown`, `deploying`, `deployed` or a `credit`, written over, would lose what the
 * chain must decide, or drop a credit off the operator's list). KEYS: the key, the record; ARGV: the key's new value,
 * the record, the TTL, what the key must hold now ('' for nothing). Answers 1, or 0 when the key changed since it was
 * read (another payment took it) or the payment may have paid.
 */
const claimPaymentKeyScript = defineScript<number>({
  name: 'claim-payment-key',
  lua: `
local current = redis.call('GET', KEYS[1])
if (current or '') ~= ARGV[4] then return 0 end
local held = redis.call('GET', KEYS[2])
if held then
  local read, state = pcall(function() return cjson.decode(held).state end)
  if read and (state == 'settling' or state == 'unknown' or state == 'deploying' or state == 'deployed' or state == 'credit') then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1
`,
  inProcess: (data, keys, args) => {
    if ((data.get(keys[0]!) ?? '') !== args[3]) return 0
    if (MAYBE_PAID.includes(stateOf(data.get(keys[1]!)))) return 0
    data.set(keys[0]!, args[0]!, { px: Number(args[2]) })
    data.set(keys[1]!, args[1]!, { px: Number(args[2]) })
    return 1
  },
})

/** The `state` of a stored record's JSON, or '' when it has none (or is not JSON). */
function stateOf(text: string | null): string {
  try {
    const state = (JSON.parse(text ?? 'null') as { state?: unknown } | null)?.state
    return typeof state === 'string' ? state : ''
  } catch {
    return ''
  }
}

/** Parameters of {@link claimIdempotencyKey}. */
export type ClaimIdempotencyKeyParameters = {
  keyHash: string
  /** The record the payment starts with (`verifying`), written with the claim. */
  record: PaymentRecord
  /** What the key held when read: null for nothing, else the alias of a payment that was refused. */
  replacing: IdempotencyAlias | null
}

/**
 * Claims a payer's Idempotency-Key for this payment before its verify, atomically with the payment's first record,
 * both for minutes (the settle keeps the key longer: ./lifetimes.ts): while the key is claimed no other payment under
 * it is verified or settled. False when another payment holds it.
 */
export async function claimIdempotencyKey(store: Store, ref: PaymentRef, parameters: ClaimIdempotencyKeyParameters): Promise<boolean> {
  const { keys, payer, nonce } = ref
  const { keyHash, record, replacing } = parameters
  const alias: IdempotencyAlias = { bodyHash: record.bodyHash, payer: payer.toLowerCase(), nonce: nonce.toLowerCase(), claim: randomUUID() }
  const claimed = await store.run(
    claimPaymentKeyScript,
    [keys.idempotency(payer, keyHash), keys.payment(payer, nonce)],
    [JSON.stringify(alias), JSON.stringify(record), UNSETTLED_TTL_MS, replacing ? JSON.stringify(replacing) : ''],
  )
  return claimed === 1
}

/** Most open payments one payer may have (settles undecided, credits to redeem): past it, no new settle. */
export const PAYER_OPEN_MAX = 10

/** How many payments one payer has open (one store command). */
const countOpenScript = defineScript<number>({
  name: 'payment-open-count',
  lua: `return redis.call('ZCARD', KEYS[1])`,
  inProcess: (data, keys) => data.zcard(keys[0]!),
})

/** How many payments the payer has open. */
export function countOpenPayments(store: Store, { keys, payer }: Pick<PaymentRef, 'keys' | 'payer'>): Promise<number> {
  return store.run(countOpenScript, [keys.payerOpen(payer)], [])
}

/** Takes a payment off the open lists (deployed, or refused). */
export async function closePayment(store: Store, { keys, payer, nonce }: PaymentRef): Promise<void> {
  await removeFromIndexes(store, [keys.settled, keys.payerOpen(payer)], `${payer.toLowerCase()}:${nonce.toLowerCase()}`)
}

/**
 * Marks a payment `refused`: nothing was paid, the chain says so. The record stays for minutes (an Idempotency-Key that
 * went with it is free for a new payment, atomically) and leaves the open list (one never filed, `verifying`: no command).
 */
export async function refusePayment(
  { store, keys }: { store: Store; keys: PaymentKeys },
  record: PaymentRecord,
  reason: string,
): Promise<void> {
  const refused: PaymentRecord = { ...record, state: 'refused', reason }
  await store.set(keys.payment(record.payer, record.nonce), JSON.stringify(refused), UNSETTLED_TTL_MS)
  if (record.state !== 'verifying') await closePayment(store, { keys, payer: record.payer, nonce: record.nonce }).catch(() => undefined)
}

/** Writes the record, filed among the open payments (before a settle, and at each step until done). */
export async function saveOpenPayment(store: Store, ref: PaymentRef, record: PaymentRecord): Promise<void> {
  const member = `${ref.payer.toLowerCase()}:${ref.nonce.toLowerCase()}`
  await putIndexed(store, {
    recordKey: ref.keys.payment(ref.payer, ref.nonce),
    value: JSON.stringify(record),
    ttlMs: PAYMENT_RECORD_TTL_MS,
    member,
    score: record.at,
    indexKeys: [ref.keys.settled, ref.keys.payerOpen(ref.payer)],
    maxEntries: SETTLED_INDEX_MAX,
  })
}

/**
 * Writes the final answer (with the Idempotency-Key's alias, when one went with it) and lets the lease go, in one
 * store command; then takes the payment off the open list.
 */
export async function savePaymentDone(
  store: Store,
  ref: PaymentRef,
  parameters: { record: PaymentRecord; lease: string; keyHash: string | null },
): Promise<void> {
  const { keys, payer, nonce } = ref
  const { record, lease, keyHash } = parameters
  const alias: IdempotencyAlias = { bodyHash: record.bodyHash, payer: payer.toLowerCase(), nonce: nonce.toLowerCase() }
  await store.writeMany({
    entries: [
      { key: keys.payment(payer, nonce), value: JSON.stringify(record), ttlMs: PAYMENT_RECORD_TTL_MS },
      ...(keyHash ? [{ key: keys.idempotency(payer, keyHash), value: JSON.stringify(alias), ttlMs: PAYMENT_RECORD_TTL_MS }] : []),
    ],
    releaseLock: { key: keys.lease(payer, nonce), token: lease },
  })
  await closePayment(store, ref)
}
