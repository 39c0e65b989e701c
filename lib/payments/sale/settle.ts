import type { DeployFailure } from '../../deploy/outcome.js'
import { failure, storeFailureOf } from '../../deploy/outcome.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { errorName } from '../../platform/log.js'
import { creditAnswer, domainAnswer, doorError, paymentRequiredAnswer } from '../door/doorAnswers.js'
import { checkValidityWindow } from '../door/localChecks.js'
import { SETTLE_TIMEOUT_MS } from '../facilitator/httpFacilitator.js'
import { keepIdempotencyKey } from '../ledger/lifetimes.js'
import {
  countOpenPayments,
  creditIdOf,
  PAYER_OPEN_MAX,
  type PaymentRecord,
  paymentIdOf,
  refusePayment,
  saveOpenPayment,
} from '../ledger/paymentRecord.js'
import { countRefusedAttempt } from '../ledger/refusedAttempt.js'
import { type ChainVerdict, settlementOf } from '../verdict/chainVerdict.js'
import { doorRefusalOf } from '../verdict/refusalReasons.js'
import { carriesOwnPayment, type PaidDeployContext, type Paying, type Purchase, paymentRecordOf, summaryOf } from './purchase.js'

// Steps 6 and 7 of a paid deploy, between the simulation and the signature: settle, then see the settlement on chain
// (verdict/chainVerdict.ts: the chain has the last word, whatever the facilitator said), each outcome written to the
// ledger before the step it allows. A payment whose settle nobody saw end is decided from the chain first, before its
// deploy is even simulated (resumeSettling); the deploy's step before signing settles it (settleBeforeSigning).

/** The answer to give instead of deploying; `unpaid`: the chain showed it not paid after its settle was asked for. */
export type SettleRefusal = { kind: 'refused'; answer: HttpAnswer; unpaid?: PaymentRecord }

/** How a settle step ended: paid (the record says so, `deploying`), or the answer to give instead of deploying. */
export type SettleStep = { kind: 'paid'; record: PaymentRecord } | SettleRefusal

/** Keeps a settled payment's credit (best effort: if the store is down, the record before it and the chain keep it). */
export async function keepCredit(
  context: PaidDeployContext,
  purchase: Purchase,
  record: PaymentRecord,
  why: DeployFailure,
): Promise<HttpAnswer> {
  const credit = { id: creditIdOf(purchase.payer, purchase.nonce), code: why.code, at: context.services.clock.now() }
  const kept: PaymentRecord = { ...record, state: 'credit', credit }
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
 * A paid outcome: confirmed on chain, the record becomes `deploying` (written before the signature it allows; if it
 * cannot be written, nothing is signed and the payment is a credit); not seen yet, the deploy must wait, as a credit.
 */
async function paidStep(
  context: PaidDeployContext,
  purchase: Purchase,
  record: PaymentRecord,
  outcome: { transaction: `0x${string}`; confirmed: boolean },
): Promise<SettleStep> {
  const paid: PaymentRecord = { ...record, state: 'deploying', transaction: outcome.transaction, confirmed: outcome.confirmed }
  const why = outcome.confirmed
    ? await saveOpenPayment(context.store, purchase, paid).then(
        () => null,
        (error: unknown) =>
          storeFailureOf(error, {
            logger: context.services.logger,
            operation: 'x402-deploying',
            effect: 'paid, not signed',
            message: 'The deploy coordinator (Redis) is unavailable; your payment was settled and nothing was signed.',
          }),
      )
    : unconfirmed
  return why ? { kind: 'refused', answer: await keepCredit(context, purchase, paid, why) } : { kind: 'paid', record: paid }
}

/** 402 PAYMENT_FAILED for a payment the chain shows unpaid, its record `refused` first (best effort: the chain keeps it). */
async function unpaidAnswer(context: PaidDeployContext, record: PaymentRecord, said: string): Promise<HttpAnswer> {
  // The facilitator's own words go to the log only; the answer and the record say the door's.
  const { reason } = doorRefusalOf(said)
  context.services.logger.info('x402_settle_unpaid', { payer: record.payer, reason, said: said.slice(0, 200) })
  await refusePayment(context, record, reason).catch(() => undefined)
  // Verified, settled for and not paid: the attempt counts against the payer's cap (a cancel-between loop runs dry).
  await countRefusedAttempt(context, record).catch(() => undefined)
  const { requirements, resourceUrl } = context
  const error = 'The payment could not be settled; the chain shows nothing was paid, and nothing was signed.'
  return paymentRequiredAnswer({ requirements, resourceUrl, code: 'PAYMENT_FAILED', error, reason })
}

/** How long to wait before asking again: the chain decides within a few blocks, or once `validBefore` is past. */
const UNKNOWN_RETRY_SECONDS = 10

/**
 * Records a settle whose outcome is unknown (with the transaction it named) and answers 202 PAYMENT_UNKNOWN from the
 * ledger alone. It names the payment, so that a resend (the same payment, or a new one the client signed under the
 * same Idempotency-Key) resumes it instead of paying again; the chain decides it within the authorization's validity.
 */
async function unknownAnswer(context: PaidDeployContext, purchase: Purchase, record: PaymentRecord): Promise<HttpAnswer> {
  const unknown: PaymentRecord = { ...record, state: 'unknown' }
  await saveOpenPayment(context.store, purchase, unknown).catch((error: unknown) => {
    // The `settling` record written before the settle stays: it says as much, without the transaction.
    context.services.logger.error('store_unavailable', { operation: 'x402-unknown', error: errorName(error), effect: 'settling kept' })
  })
  context.services.logger.warn('x402_payment_unknown', { payer: record.payer, transaction: record.transaction })
  const { body, headers } = doorError(
    202,
    'FACILITATOR_UNAVAILABLE',
    'Your payment’s settle was sent and its outcome is not known yet (it may be waiting to be mined). Nothing was signed. Resend the same request (the same payment, or the same Idempotency-Key) after Retry-After: it resumes this payment and never settles another one; the chain decides it by the authorization’s validBefore at the latest.',
    { 'retry-after': String(UNKNOWN_RETRY_SECONDS) },
  )
  const { payer, transaction, validBefore } = unknown
  const payment = { id: paymentIdOf(payer, unknown.nonce), state: 'unknown' as const, payer, transaction, validBefore }
  return { status: 202, body: { ...body, code: 'PAYMENT_UNKNOWN', payment }, headers }
}

/** The step the chain's verdict on a payment's settle leads to: deploy (paid), 402 PAYMENT_FAILED, or 202 PAYMENT_UNKNOWN. */
async function stepOf(context: PaidDeployContext, purchase: Purchase, record: PaymentRecord, said: ChainVerdict): Promise<SettleStep> {
  if (said.kind === 'paid') return paidStep(context, purchase, record, said)
  if (said.kind === 'unpaid') return { kind: 'refused', answer: await unpaidAnswer(context, record, said.reason), unpaid: record }
  return { kind: 'refused', answer: await unknownAnswer(context, purchase, record) }
}

/** A payer with {@link PAYER_OPEN_MAX} payments open: refused before the settle, nothing paid. */
const tooManyOpen = failure(
  'DEPLOY_CAP_REACHED',
  `This payer has ${PAYER_OPEN_MAX} payments whose outcome is still open (undecided settles, credits to redeem); nothing was settled or signed. Resend those (the same payment or Idempotency-Key) first, or retry later.`,
  { retryAfterSeconds: 60 },
)

/**
 * The most a request may have run when its settle starts (the door's clock, from the payment's first check): what
 * follows must fit in the function's 120 s maxDuration with room: the settle (two attempts of
 * {@link SETTLE_TIMEOUT_MS}), the receipt check (about 5 s), the nonce lock's wait (20 s), KMS and the waiting send
 * (about 15 s). A request past it settles nothing, rather than be cut off between a settle and its deploy.
 */
export const SETTLE_START_BUDGET_MS = 30_000

/** Refuses a settle that could not finish with its deploy inside the function's time (see SETTLE_START_BUDGET_MS). */
const tooLate = failure(
  'DEPLOY_BUSY',
  'This request took too long before its settle to finish the deploy in time; nothing was settled or signed. Resend it.',
  { retryAfterSeconds: 2 },
)

/** A new payment whose Idempotency-Key no longer names it (lapsed, or taken): nothing may be settled under it. */
const keyLost = failure(
  'DEPLOY_BUSY',
  'This payment’s Idempotency-Key no longer names it (it lapsed before the settle); nothing was settled or signed. Resend it.',
  { retryAfterSeconds: 2 },
)

/**
 * Writes the `settling` record (with the block the settle is asked at) before any settle: no settle without it. A new
 * payment's payer with many open already (a loop of authorizations cancelled between verify and settle leaves each
 * one undecided for a while) opens no more: the operator's list keeps everyone's credits in view. A new payment's
 * Idempotency-Key (claimed for minutes before its verify) is kept as long as the record first. Answers the record, or
 * why nothing may be settled.
 */
async function recordSettling(context: PaidDeployContext, purchase: Purchase, retrying: PaymentRecord | null) {
  if (context.clock.now() - context.startedAt > SETTLE_START_BUDGET_MS) return tooLate
  const fromBlock = await context.services.publicClient.getBlockNumber().catch(() => null)
  const first = retrying ?? paymentRecordOf(context, purchase, 'settling')
  const record: PaymentRecord = { ...first, state: 'settling', fromBlock: first.fromBlock ?? fromBlock?.toString() }
  try {
    if (!retrying && (await countOpenPayments(context.store, purchase)) >= PAYER_OPEN_MAX) return tooManyOpen
    const { keyHash } = purchase
    if (!retrying && keyHash && !(await keepIdempotencyKey(context.store, { ...purchase, keyHash }))) return keyLost
    await saveOpenPayment(context.store, purchase, record)
    return record
  } catch (error) {
    return storeFailureOf(error, {
      logger: context.services.logger,
      operation: 'x402-settle',
      effect: 'payment not settled',
      message: 'The deploy coordinator (Redis) is unavailable; nothing was settled or signed. Try again shortly.',
    })
  }
}

/**
 * Settles the payment (a new one, or one whose earlier settle the chain shows unused: the token uses a nonce once at
 * most, so this can never pay twice) and decides it from the chain, before anything is signed: paid and confirmed,
 * `deploying`; not paid (the chain agrees with a refusal), 402 PAYMENT_FAILED; anything else, `unknown` with the
 * transaction a pending answer named, answered 202 PAYMENT_UNKNOWN.
 */
async function settle(context: PaidDeployContext, purchase: Purchase, retrying: PaymentRecord | null): Promise<SettleStep> {
  const record = await recordSettling(context, purchase, retrying)
  if ('code' in record) return { kind: 'refused', answer: domainAnswer(record) }
  // A payment taken under other terms than today's is settled under those (its record's), never today's.
  const verdict = await context.facilitator.settle(purchase.payment.payload, context.keptTerms ?? context.requirements)
  const named: PaymentRecord = verdict.transaction ? { ...record, transaction: verdict.transaction } : record
  const said = await settlementOf(context, named, {
    refusedFor: verdict.kind === 'refused' ? verdict.reason : null,
    justSettled: verdict.kind === 'settled',
  })
  return stepOf(context, purchase, named, said)
}

/**
 * A payment found `settling` or `unknown` (its settle timed out or was pending, or its instance died), or a credit the
 * chain did not show yet: paid or not paid if the chain says so; else to be settled again (`settling`) when the request
 * carries this very payment, its settle named no transaction and its authorization is still valid (safe: the nonce is
 * used once at most); else still unknown. The payment an Idempotency-Key went with is never settled from a request
 * that carries another.
 */
export async function resumeSettling(
  context: PaidDeployContext,
  purchase: Purchase,
  record: PaymentRecord,
): Promise<SettleStep | { kind: 'settling'; record: PaymentRecord }> {
  const said = await settlementOf(context, record)
  const open = checkValidityWindow(purchase.payment, Math.floor(context.clock.now() / 1000)) === null
  if (said.kind === 'unknown' && carriesOwnPayment(purchase) && record.transaction === null && open) return { kind: 'settling', record }
  return stepOf(context, purchase, record, said)
}

/**
 * The deploy's step before its signature, as where the payment stands asks for it: a new payment is settled; one whose
 * earlier settle the chain showed unused is settled again; a credit the chain did not show yet is looked up on chain
 * first (resumeSettling), and settled again only if still unused.
 */
export async function settleBeforeSigning(context: PaidDeployContext, purchase: Purchase, paying: Paying): Promise<SettleStep> {
  const standing = paying.kind === 'paid' ? await resumeSettling(context, purchase, paying.record) : paying
  if (standing.kind === 'new') return settle(context, purchase, null)
  return standing.kind === 'settling' ? settle(context, purchase, standing.record) : standing
}
