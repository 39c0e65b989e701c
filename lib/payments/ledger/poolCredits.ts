import { isPaidAgent, PAID_AGENT_PREFIX } from '../../deploy/agents/paidAgent.js'
import type { DeployHistoryKeys } from '../../deploy/keys.js'
import { parseTransactionRecord } from '../../deploy/sender/signedTransactions.js'
import { listIndexed, putIndexed, removeFromIndex } from '../../store/recordIndex.js'
import type { Store } from '../../store/types.js'
import type { PaymentKeys } from '../keys.js'
import { PAYMENT_RECORD_TTL_MS } from './lifetimes.js'
import { type PaymentRecord, readPaymentRecord, SETTLED_INDEX_MAX, sha256 } from './paymentRecord.js'

// A pooled launch is sold at its own price (X402_POOL_PRICE). It is one batch that reverts whole when its pool cannot
// be made as planned (someone initialised the pool first after the simulation): then the payment bought nothing at
// all and its whole price becomes a credit. A launch of the four-transaction kind whose pool failed (a seed the node
// refused, or one that reverted) still has its token: the part of the price paid for the pool becomes the credit.
// Either way it stays `deployed` (a resend replays the answer) and is listed for the operator to refund.
// The deploy answer says so when the failure is known at once; the tick credits the rest from the deploy side's list
// of paid launches whose pool failed (`paidPoolsFailed` in lib/deploy/keys.ts).

/** A pool credit's id: the same for every look at one payment, and never a whole payment's credit id. */
export const poolCreditIdOf = (payer: string, nonce: string): string =>
  `cr_${sha256(`pool:${payer.toLowerCase()}:${nonce.toLowerCase()}`).slice(0, 24)}`

/**
 * The payment with its pool's part credited, or with `whole` (the launch reverted whole: no token either) its whole
 * amount (pure); null when it paid nothing for a pool, or it is credited already.
 */
export function withPoolCredit(record: PaymentRecord, now: number, whole = false): PaymentRecord | null {
  if (record.poolCredit || !record.poolPart || BigInt(record.poolPart) <= 0n) return null
  const amount = whole ? record.amount : record.poolPart
  const poolCredit = { id: poolCreditIdOf(record.payer, record.nonce), code: 'POOL_FAILED' as const, amount, at: now }
  return { ...record, poolCredit }
}

/** Writes a payment whose pool's part is credited, filed where the operator's list of credits reads (not the payer's open count). */
export async function savePoolCredit(store: Store, keys: PaymentKeys, record: PaymentRecord): Promise<void> {
  await putIndexed(store, {
    recordKey: keys.payment(record.payer, record.nonce),
    value: JSON.stringify(record),
    ttlMs: PAYMENT_RECORD_TTL_MS,
    member: `${record.payer.toLowerCase()}:${record.nonce.toLowerCase()}`,
    score: record.poolCredit?.at ?? record.at,
    indexKeys: [keys.settled],
    maxEntries: SETTLED_INDEX_MAX,
  })
}

/** Parameters of {@link creditFailedPools}. */
export type CreditFailedPoolsParameters = {
  store: Store
  keys: PaymentKeys
  /** The deploy side's history keys: its list of paid launches whose pool failed, and their records. */
  deployKeys: DeployHistoryKeys
  now: number
}

/** Paid launches looked at in one tick (the list is emptied as they are credited). */
const FAILED_POOLS_PER_TICK = 50

/**
 * The tick's part: each paid launch whose pool failed has its payment's pool part credited (once: a credit already
 * kept, by the deploy's own answer, is left as it is), then leaves the list. One store command when the list is empty.
 */
export async function creditFailedPools({ store, keys, deployKeys, now }: CreditFailedPoolsParameters): Promise<number> {
  const values = await listIndexed(store, {
    indexKey: deployKeys.paidPoolsFailed,
    recordPrefix: deployKeys.recordPrefix,
    limit: FAILED_POOLS_PER_TICK,
  })
  let credited = 0
  for (const launch of values.map(parseTransactionRecord)) {
    if (!launch) continue
    if (isPaidAgent(launch.agent) && launch.paymentNonce) {
      const ref = { keys, payer: launch.agent.slice(PAID_AGENT_PREFIX.length), nonce: launch.paymentNonce }
      const record = await readPaymentRecord(store, ref)
      // A launch in one batch that failed reverted whole (its record says so): nothing of what was paid for was made.
      const whole = launch.status === 'reverted' && launch.pool?.seedTxHashes.length === 0
      const kept = record && withPoolCredit(record, now, whole)
      if (kept) {
        await savePoolCredit(store, keys, kept)
        credited++
      }
    }
    await removeFromIndex(store, deployKeys.paidPoolsFailed, launch.txHash.toLowerCase())
  }
  return credited
}
