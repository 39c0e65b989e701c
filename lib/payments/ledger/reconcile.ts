import type { DeployServices } from '../../deploy/services.js'
import type { PaymentKeys } from '../keys.js'
import { settlementOf } from '../verdict/chainVerdict.js'
import { doorRefusalOf } from '../verdict/refusalReasons.js'
import { paymentSignedDeploy } from './deployOfPayment.js'
import { PAYMENT_RECORD_TTL_MS } from './lifetimes.js'
import { listOpenPaymentsAfter } from './openPayments.js'
import {
  closePayment,
  creditIdOf,
  PAYMENT_LEASE_MS,
  type PaymentRecord,
  readPaymentRecord,
  refusePayment,
  saveOpenPayment,
} from './paymentRecord.js'

// The tick's share of the ledger: every payment left `settling` or `unknown` (nobody resent it) is decided from the
// chain, a few at a time. Paid, it becomes a credit the operator sees and the payer's resend redeems; not paid (the
// chain is past its validBefore with the nonce unused), `refused`. Each costs at most four RPC reads and three store
// commands; a payment a request is working on (its lease held) is left to that request. A payment left `deploying`
// (its instance stopped, or could not keep the answer it gave) is decided from the deploy history: a deploy signed for
// it, `deployed` (the payer's resend is answered that deploy); none, a `credit`. Either way the operator's list of
// credits holds only payments that bought nothing.

/**
 * Most open payments looked at per tick, oldest first from where the last tick stopped (a saved cursor: four store
 * commands with the page), so every open payment is looked at in turn however many there are.
 */
export const RECONCILE_LOOKED_AT = 200
/** Most payments decided per tick (a few reads and store commands each). */
export const RECONCILE_DECIDED = 10
/** A payment younger than this is left to the request that settles it (its answer is on its way). */
const SETTLE_GRACE_MS = 60_000
/**
 * How long the tick holds a payment's lease while it decides it: a request's own lease, well past the tick's slowest
 * path (its RPC reads, each with its timeout and a retry, take about 33 s at worst).
 */
const RECONCILE_LEASE_MS = PAYMENT_LEASE_MS

/** The states the tick decides: a settle nobody saw end, a deploy nobody saw answered. */
const UNDECIDED: readonly PaymentRecord['state'][] = ['settling', 'unknown', 'deploying']

/** Whether the tick looks at a payment: undecided, or a credit whose settlement the chain has not shown yet. */
const isDue = (record: PaymentRecord) => UNDECIDED.includes(record.state) || (record.state === 'credit' && !record.confirmed)

/** Parameters of {@link reconcilePayments}. */
export type ReconcilePaymentsParameters = {
  services: Pick<DeployServices, 'publicClient' | 'clock' | 'logger' | 'config'> & { store: NonNullable<DeployServices['store']> }
  keys: PaymentKeys
  /** Open payments looked at per tick (default {@link RECONCILE_LOOKED_AT}). */
  pageSize?: number
  /** Payments decided per tick (default {@link RECONCILE_DECIDED}). */
  decidedMax?: number
}

/**
 * What one reconciliation did: `paid` (now a credit), `refused`, `unknown` (left), `busy` (a request holds it), and
 * of the payments left `deploying`, `deployed` (a deploy was signed for it) and `credited` (none was).
 */
export type ReconcilePaymentsReturnType = {
  open: number
  decided: number
  paid: number
  refused: number
  unknown: number
  busy: number
  deployed: number
  credited: number
}

/** Decides the oldest undecided payments from the chain (see the module's comment). */
export async function reconcilePayments(parameters: ReconcilePaymentsParameters): Promise<ReconcilePaymentsReturnType> {
  const { services, keys, pageSize = RECONCILE_LOOKED_AT, decidedMax = RECONCILE_DECIDED } = parameters
  const { store, clock } = services
  const cursor = Number(await store.get(keys.reconcileCursor)) || 0
  const page = await listOpenPaymentsAfter(store, keys, cursor, pageSize)
  const due = page.payments.filter(({ record: r }) => isDue(r) && r.payTo && r.at < clock.now() - SETTLE_GRACE_MS).slice(0, decidedMax)
  // The next tick goes on past the last payment decided when this one decided its most, else past the page; once the
  // index is looked through, from the oldest again.
  const next = due.length === decidedMax ? due.at(-1)!.filedAt : page.more ? (page.lastAt ?? 0) : 0
  await store.set(keys.reconcileCursor, String(next), PAYMENT_RECORD_TTL_MS)
  const result: ReconcilePaymentsReturnType = {
    open: page.payments.length,
    decided: 0,
    paid: 0,
    refused: 0,
    unknown: 0,
    busy: 0,
    deployed: 0,
    credited: 0,
  }
  for (const { record } of due) {
    const outcome = await decideOne({ services, keys }, record)
    result[outcome] += 1
    if (outcome !== 'unknown' && outcome !== 'busy') result.decided += 1
  }
  return result
}

/**
 * One payment, under its lease: paid → credit, not paid → refused, else left as it is; `deploying` from the history.
 * It is decided from its record as read under the lease, not the copy listed: a payer's resend may have moved it on
 * (deployed it, say) between the listing and the lease, and is left to stand (counted `busy`).
 */
async function decideOne(
  { services, keys }: ReconcilePaymentsParameters,
  listed: PaymentRecord,
): Promise<Exclude<keyof ReconcilePaymentsReturnType, 'open' | 'decided'>> {
  const { store, clock, logger } = services
  const ref = { keys, payer: listed.payer, nonce: listed.nonce }
  const lease = await store.acquireLock(keys.lease(listed.payer, listed.nonce), RECONCILE_LEASE_MS)
  if (!lease) return 'busy'
  try {
    const record = await readPaymentRecord(store, ref)
    if (!record || record.state !== listed.state) return 'busy'
    if (record.state === 'credit') return await checkCredit({ services, keys }, record)
    if (record.state === 'deploying') {
      if (await paymentSignedDeploy({ store, config: services.config, payer: record.payer, nonce: record.nonce })) {
        // Its answer was given and not kept: a resend finds the deploy in the history and answers it again.
        await store.set(keys.payment(record.payer, record.nonce), JSON.stringify({ ...record, state: 'deployed' }), PAYMENT_RECORD_TTL_MS)
        await closePayment(store, ref)
        return 'deployed'
      }
      const credit = { id: creditIdOf(record.payer, record.nonce), code: 'DEPLOY_UNFINISHED', at: clock.now() }
      await saveOpenPayment(store, ref, { ...record, state: 'credit', credit })
      logger.warn('x402_credit', { credit: credit.id, code: credit.code, payer: record.payer, transaction: record.transaction })
      return 'credited'
    }
    const said = await settlementOf({ services, config: { payTo: record.payTo as `0x${string}` }, clock }, record)
    if (said.kind === 'unknown') return 'unknown'
    if (said.kind === 'unpaid') {
      await refusePayment({ store, keys }, record, doorRefusalOf(said.reason).reason)
      return 'refused'
    }
    const credit = { id: creditIdOf(record.payer, record.nonce), code: 'SETTLED_UNANSWERED', at: clock.now() }
    await saveOpenPayment(store, ref, {
      ...record,
      state: 'credit',
      transaction: said.transaction,
      confirmed: said.confirmed,
      credit,
    })
    logger.warn('x402_credit', { credit: credit.id, code: credit.code, payer: record.payer, transaction: said.transaction })
    return 'paid'
  } finally {
    await store.releaseLock(keys.lease(listed.payer, listed.nonce), lease).catch(() => false)
  }
}

/**
 * A credit whose settlement the RPC never confirmed (the facilitator said settled, the chain could not show it yet),
 * checked again: confirmed when the chain shows the transfer (still a credit), withdrawn (`refused`) when the chain
 * shows nothing was paid (the authorization unused past its `validBefore`, or cancelled), else left for the next tick.
 */
async function checkCredit(
  { services, keys }: ReconcilePaymentsParameters,
  record: PaymentRecord,
): Promise<'paid' | 'refused' | 'unknown'> {
  const { store, clock, logger } = services
  const said = await settlementOf({ services, config: { payTo: record.payTo as `0x${string}` }, clock }, record)
  if (said.kind === 'unpaid') {
    await refusePayment({ store, keys }, record, doorRefusalOf(said.reason).reason)
    logger.warn('x402_credit_withdrawn', { credit: record.credit?.id ?? null, payer: record.payer, reason: said.reason })
    return 'refused'
  }
  if (said.kind === 'unknown' || !said.confirmed) return 'unknown'
  await saveOpenPayment(
    store,
    { keys, payer: record.payer, nonce: record.nonce },
    { ...record, transaction: said.transaction, confirmed: true },
  )
  return 'paid'
}
