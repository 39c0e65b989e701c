import type { DeployFailure } from '../deploy/outcome.js'
import { failure, storeFailureOf } from '../deploy/outcome.js'
import { errorName } from '../platform/log.js'
import { removeFromIndex } from '../store/recordIndex.js'
import { creditAnswer, type DoorAnswer, domainAnswer, facilitatorUnavailable, paymentRequiredAnswer } from './answers.js'
import type { SettleVerdict } from './facilitator.js'
import { creditIdOf, type PaymentRecord, saveOpenPayment } from './paymentRecord.js'
import { expectedTransferOf, type PaidDeployContext, type Purchase, settlingRecordOf, summaryOf } from './purchase.js'
import { confirmSettlement, findSettlement, type SettlementCheck } from './settlementOnChain.js'

// Steps 6 and 7 of a paid deploy, between the simulation and the signature: settle, then see the settlement on chain.
// Whatever the facilitator says, the chain has the last word (the authorization's nonce is used once at most), so a
// settle that timed out, failed half-way or was asked for by an instance that died is found again by its nonce.

/** How a settle step ended: paid (the record says so), or the answer to give instead of deploying. */
export type SettleStep = { kind: 'paid'; record: PaymentRecord } | { kind: 'refused'; answer: DoorAnswer }

/** How often, and how far apart, a settlement the RPC does not know yet is asked for again (a node a block behind). */
const CONFIRM_ATTEMPTS = 3
const CONFIRM_PAUSE_MS = 1000

/** Reads the settlement's receipt, asking again while the RPC does not know it yet (the facilitator's node may lead ours). */
async function confirmed(context: PaidDeployContext, purchase: Purchase, transaction: `0x${string}`): Promise<SettlementCheck> {
  for (let attempt = 1; ; attempt++) {
    const check = await confirmSettlement(context.services.publicClient, transaction, expectedTransferOf(context, purchase))
    // Asked again only while the node does not know it yet; an RPC that does not answer is not asked twice.
    if (check !== 'not-found' || attempt >= CONFIRM_ATTEMPTS) return check
    // A wait for the network, on the door's clock.
    await context.clock.sleep(CONFIRM_PAUSE_MS)
  }
}

/** What the facilitator's verdict and the chain together say: paid (seen or not yet), not paid, or unknown for now. */
type SettleOutcome =
  | { kind: 'paid'; transaction: `0x${string}`; confirmed: boolean }
  | { kind: 'unpaid'; reason: string }
  | { kind: 'unknown' }

async function outcomeOf(context: PaidDeployContext, purchase: Purchase, verdict: SettleVerdict): Promise<SettleOutcome> {
  if (verdict.kind === 'settled') {
    const check = await confirmed(context, purchase, verdict.transaction)
    if (check !== 'not-confirmed') return { kind: 'paid', transaction: verdict.transaction, confirmed: check === 'confirmed' }
  }
  // Refused, no answer, or a transaction that does not show the payment: the authorization's nonce tells.
  const found = await findSettlement(context.services.publicClient, expectedTransferOf(context, purchase))
  if (found.kind === 'settled' && found.check !== 'not-confirmed')
    return { kind: 'paid', transaction: found.transaction, confirmed: found.check === 'confirmed' }
  if (found.kind === 'unused' && verdict.kind === 'refused') return { kind: 'unpaid', reason: verdict.reason }
  if (found.kind === 'unused' && verdict.kind === 'settled') return { kind: 'unpaid', reason: 'settlement_not_confirmed' }
  return { kind: 'unknown' }
}

/** Keeps a settled payment's credit (best effort: if the store is down, the `settling` record and the chain keep it). */
export async function keepCredit(
  context: PaidDeployContext,
  purchase: Purchase,
  record: PaymentRecord,
  why: DeployFailure,
): Promise<DoorAnswer> {
  const credit = { id: creditIdOf(purchase.payer, purchase.nonce), code: why.code, at: context.services.clock.now() }
  const kept: PaymentRecord = { ...record, state: 'settled', credit }
  await saveOpenPayment(context.store, purchase, kept).catch((error: unknown) => {
    context.services.logger.error('store_unavailable', {
      operation: 'x402-credit',
      error: errorName(error),
      effect: 'credit kept by the chain',
    })
  })
  context.services.logger.warn('x402_credit', { credit: credit.id, code: why.code, payer: purchase.payer, transaction: record.transaction })
  return creditAnswer(why, credit.id, summaryOf(kept))
}

/** The answer when the chain cannot confirm a settlement yet: paid, nothing signed, retry later. */
const unconfirmed = failure('RPC_UNAVAILABLE', 'The chain RPC cannot confirm the settlement yet; nothing was signed.', {
  retryAfterSeconds: 5,
})

/**
 * A paid outcome: seen on chain, the deploy goes on (nothing more is written: the `settling` record and the chain say
 * it all until the answer is kept, and a retry after a crash finds the payment by its nonce); not seen yet, the
 * deploy must wait, as a credit.
 */
async function paid(
  context: PaidDeployContext,
  purchase: Purchase,
  record: PaymentRecord,
  outcome: { transaction: `0x${string}`; confirmed: boolean },
): Promise<SettleStep> {
  const settled: PaymentRecord = { ...record, state: 'settled', transaction: outcome.transaction, confirmed: outcome.confirmed }
  if (!outcome.confirmed) return { kind: 'refused', answer: await keepCredit(context, purchase, settled, unconfirmed) }
  return { kind: 'paid', record: settled }
}

/**
 * Settles the payment and confirms it on chain, before anything is signed. The record is written first (no settle
 * without it: if the store is down, nothing is settled); after the settle the chain is the record, so nothing more
 * must be written for the payment to be found again. Refusals: 402 PAYMENT_FAILED when the chain shows the authorization unused after a refused settle;
 * 503 FACILITATOR_UNAVAILABLE when nobody can say yet (the record stays, and a retry asks the chain again).
 */
export async function settleForDeploy(
  context: PaidDeployContext,
  purchase: Purchase,
  retrying: PaymentRecord | null = null,
): Promise<SettleStep> {
  const record = retrying ?? settlingRecordOf(context, purchase)
  try {
    if (!retrying) await saveOpenPayment(context.store, purchase, record)
  } catch (error) {
    const refusal = storeFailureOf(error, {
      logger: context.services.logger,
      operation: 'x402-settle',
      effect: 'payment not settled',
      message: 'The deploy coordinator (Redis) is unavailable; nothing was settled or signed. Try again shortly.',
    })
    return { kind: 'refused', answer: domainAnswer(refusal) }
  }
  const verdict = await context.facilitator.settle(purchase.payment.payload, context.requirements)
  const outcome = await outcomeOf(context, purchase, verdict)
  if (outcome.kind === 'paid') return paid(context, purchase, record, outcome)
  if (outcome.kind === 'unknown') return { kind: 'refused', answer: facilitatorUnavailable() }
  // Not paid, for sure: nothing of it is kept, and the payer may sign a fresh payment.
  await forgetPayment(context, purchase)
  const { requirements, url } = context
  const error = 'The payment could not be settled; nothing was paid and nothing was signed.'
  return {
    kind: 'refused',
    answer: await paymentRequiredAnswer({ requirements, url, code: 'PAYMENT_FAILED', error, reason: outcome.reason }),
  }
}

/**
 * A payment found `settling` by a retry (its settle timed out, or its instance died): paid if the chain says so,
 * forgotten if its authorization can no longer settle, else settled again (safe: the nonce is used once at most).
 */
export async function resumeSettling(
  context: PaidDeployContext,
  purchase: Purchase,
  record: PaymentRecord,
): Promise<SettleStep | { kind: 'settle-again' }> {
  const found = await findSettlement(context.services.publicClient, expectedTransferOf(context, purchase))
  if (found.kind === 'settled' && found.check !== 'not-confirmed')
    return paid(context, purchase, record, { transaction: found.transaction, confirmed: found.check === 'confirmed' })
  if (found.kind !== 'unused') return { kind: 'refused', answer: facilitatorUnavailable() }
  return { kind: 'settle-again' }
}

/** Takes a payment that was never paid off the record and the open list (its authorization is unspent). */
export async function forgetPayment(context: PaidDeployContext, purchase: Purchase): Promise<void> {
  const { store, keys } = context
  await store.delete(keys.payment(purchase.payer, purchase.nonce)).catch(() => undefined)
  await removeFromIndex(store, keys.settled, `${purchase.payer}:${purchase.nonce}`).catch(() => undefined)
}
