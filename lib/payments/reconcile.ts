import type { DeployServices } from '../deploy/services.js'
import type { PaymentKeys } from './keys.js'
import { creditIdOf, listOpenPayments, type PaymentRecord, saveOpenPayment } from './paymentRecord.js'
import { refusePayment, settlementOf } from './settleBeforeDeploy.js'

// The tick's share of the ledger: every payment left `settling` or `unknown` (nobody resent it) is decided from the
// chain, a few at a time. Paid, it becomes a credit the operator sees and the payer's resend redeems; not paid (the
// chain is past its validBefore with the nonce unused), `refused`. Each costs at most four RPC reads and three store
// commands; a payment a request is working on (its lease held) is left to that request.

/** Most open payments looked at per tick (two store commands). */
export const RECONCILE_LOOKED_AT = 200
/** Most payments decided per tick (a few reads and store commands each). */
export const RECONCILE_DECIDED = 10
/** A payment younger than this is left to the request that settles it (its answer is on its way). */
const SETTLE_GRACE_MS = 60_000
/** How long the tick holds a payment's lease while it decides it. */
const RECONCILE_LEASE_MS = 30_000

/** Parameters of {@link reconcilePayments}. */
export type ReconcilePaymentsParameters = {
  services: Pick<DeployServices, 'publicClient' | 'clock' | 'logger'> & { store: NonNullable<DeployServices['store']> }
  keys: PaymentKeys
}

/** What one reconciliation did. */
export type ReconcilePaymentsReturnType = { open: number; decided: number; paid: number; refused: number; unknown: number; busy: number }

/** Decides the oldest undecided payments from the chain (see the module's comment). */
export async function reconcilePayments({ services, keys }: ReconcilePaymentsParameters): Promise<ReconcilePaymentsReturnType> {
  const { store, clock } = services
  const open = await listOpenPayments(store, keys, RECONCILE_LOOKED_AT)
  const due = open
    .filter((r) => (r.state === 'settling' || r.state === 'unknown') && r.payTo && r.at < clock.now() - SETTLE_GRACE_MS)
    .sort((a, b) => a.at - b.at)
    .slice(0, RECONCILE_DECIDED)
  const result: ReconcilePaymentsReturnType = { open: open.length, decided: 0, paid: 0, refused: 0, unknown: 0, busy: 0 }
  for (const record of due) {
    const outcome = await decideOne({ services, keys }, record)
    result[outcome] += 1
    if (outcome === 'paid' || outcome === 'refused') result.decided += 1
  }
  return result
}

/** One payment, under its lease: paid → credit, not paid → refused, else left as it is. */
async function decideOne(
  { services, keys }: ReconcilePaymentsParameters,
  record: PaymentRecord,
): Promise<'paid' | 'refused' | 'unknown' | 'busy'> {
  const { store, clock, logger } = services
  const ref = { keys, payer: record.payer, nonce: record.nonce }
  const lease = await store.acquireLock(keys.lease(record.payer, record.nonce), RECONCILE_LEASE_MS)
  if (!lease) return 'busy'
  try {
    const said = await settlementOf({ services, config: { payTo: record.payTo as `0x${string}` }, clock }, record)
    if (said.kind === 'unknown') return 'unknown'
    if (said.kind === 'unpaid') {
      await refusePayment({ store, keys }, record, said.reason)
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
    await store.releaseLock(keys.lease(record.payer, record.nonce), lease).catch(() => false)
  }
}
