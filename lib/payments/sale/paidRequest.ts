import type { PaymentRequirements } from '@x402/core/types'
import { failure, storeFailureOf } from '../../deploy/outcome.js'
import { canonicalJson } from '../../deploy/pipeline/idempotency.js'
import type { DeployIntent } from '../../deploy/pipeline/intent.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { domainAnswer, facilitatorUnavailable, paymentRequiredAnswer, replayedAnswer } from '../door/doorAnswers.js'
import { checkPaymentTerms, checkValidityLength, checkValidityWindow, signatureRecoversToPayer } from '../door/localChecks.js'
import type { DecodedPayment } from '../door/paymentPayload.js'
import { takePayerVerify } from '../door/verifyBudget.js'
import {
  claimIdempotencyKey,
  type IdempotencyAlias,
  leasePayment,
  type PaymentRecord,
  readPayment,
  readPaymentRecord,
  refusePayment,
  releasePayment,
  sha256,
} from '../ledger/paymentRecord.js'
import { doorRefusalOf } from '../verdict/refusalReasons.js'
import { deployForPayment } from './deployForPayment.js'
import { type PaidDeployContext, type Purchase, payerOwnedIntent, paymentRecordOf } from './purchase.js'
import { resumeSettling } from './settle.js'

// A request with a payment, from its signature to its answer, exactly once per payment across instances: the work on
// a payment holds its lease (keyed by the authorization: payer and nonce), so the same payload twice at once, or on
// two instances, settles once and deploys once; a retry finds the first answer, or redeems a credit.

/** A paid deploy request: its checked body and intent, the decoded payment, and the payer's Idempotency-Key if any. */
export type PaidRequest = {
  body: Record<string, unknown>
  intent: DeployIntent
  payment: DecodedPayment
  /** The `Idempotency-Key` header, else the payment's `payment-identifier`: a retry key, scoped to the payer. */
  idempotencyKey: string | null
}

const conflict = (error: string) => domainAnswer(failure('IDEMPOTENCY_CONFLICT', error))
const inProgress = (error: string) => domainAnswer(failure('IDEMPOTENCY_IN_PROGRESS', error, { retryAfterSeconds: 2 }))
const STILL_RUNNING = 'A request with this payment or Idempotency-Key is still running; retry shortly to get its answer.'

/** Runs a request that carries a payment (steps 2 to 8) and answers it; a store failure is STORE_UNAVAILABLE, nothing paid. */
export async function runPaidDeploy(given: Omit<PaidDeployContext, 'startedAt'>, request: PaidRequest): Promise<HttpAnswer> {
  const context: PaidDeployContext = { ...given, startedAt: given.clock.now() }
  const { payment, body, intent, idempotencyKey } = request
  const { requirements, resourceUrl, config, store, services } = context
  // Step 2, the checks that hold for good (a resend of the same payment passed them the first time); the window,
  // which closes with time, only for a payment not seen before.
  const terms = checkPaymentTerms(payment, requirements)
  const keptTerms = terms ? await keptTermsOf(context, payment) : null
  if (terms && !keptTerms)
    return paymentRequiredAnswer({ requirements, resourceUrl, code: 'PAYMENT_INVALID', error: terms.message, reason: terms.reason })
  if (!(await signatureRecoversToPayer(payment, keptTerms ?? requirements, config.chainId)))
    return paymentRequiredAnswer({
      requirements,
      resourceUrl,
      code: 'PAYMENT_INVALID',
      error: 'The payment’s signature does not recover to its from address (only an EOA’s EIP-712 signature is taken).',
      reason: 'invalid_signature',
    })
  const purchase: Purchase = {
    keys: context.keys,
    payer: payment.authorization.from.toLowerCase(),
    nonce: payment.authorization.nonce.toLowerCase(),
    payment,
    body,
    bodyHash: sha256(canonicalJson(body)),
    // The payer owns what it buys: the admin, when the body names none (the body, and so its hash, stays as sent).
    intent: payerOwnedIntent(intent, payment.authorization.from),
    keyHash: idempotencyKey === null ? null : sha256(idempotencyKey),
    lease: null,
  }
  try {
    return await underLease(keptTerms ? { ...context, keptTerms } : context, purchase)
  } catch (error) {
    return domainAnswer(
      storeFailureOf(error, {
        logger: services.logger,
        operation: 'x402-payment',
        effect: 'payment refused',
        message: 'The deploy coordinator (Redis) is unavailable; nothing was settled or signed. Try again shortly.',
      }),
    )
  } finally {
    if (purchase.lease) await releasePayment(store, purchase, purchase.lease)
  }
}

/**
 * States of a payment paid for sure, answered by its deploy with no new settlement: a credit, a deploy under way, or a
 * deploy the tick found signed whose answer was not kept (`deployed` without it: the deploy is found and answered).
 */
const PAID_STATES: readonly string[] = ['credit', 'deploying', 'deployed']

/** States of a payment that may have moved the funds: it is held to the terms it was taken under, not today's. */
const MAYBE_PAID: readonly string[] = ['settling', 'unknown', 'deploying', 'credit', 'deployed']

/**
 * The terms a payment that fails today's (X402_PRICE, X402_PAY_TO or X402_ASSET changed since) was taken under, when
 * its record says it may have paid exactly what it authorizes, to whom, in the asset and EIP-712 domain it names; else
 * null. A credit stays redeemable, an answer replayable and a settle resumable, whatever the operator changed. A record
 * kept before it named its domain is held to its asset only: its signature was checked against that domain then.
 */
async function keptTermsOf(context: PaidDeployContext, payment: DecodedPayment): Promise<PaymentRequirements | null> {
  const { authorization } = payment
  const { accepted } = payment.payload
  const ref = { keys: context.keys, payer: authorization.from.toLowerCase(), nonce: authorization.nonce.toLowerCase() }
  const record = await readPaymentRecord(context.store, ref).catch(() => null)
  if (!record || !MAYBE_PAID.includes(record.state)) return null
  const { name, version } = (accepted.extra ?? {}) as { name?: unknown; version?: unknown }
  const sameDomain = record.assetName === undefined || (name === record.assetName && version === record.assetVersion)
  const same =
    BigInt(record.amount) === authorization.value &&
    record.asset.toLowerCase() === accepted.asset.toLowerCase() &&
    record.network === accepted.network &&
    (record.payTo ?? '').toLowerCase() === authorization.to.toLowerCase() &&
    sameDomain
  if (!same || typeof name !== 'string' || typeof version !== 'string') return null
  const { requirements } = context
  return {
    ...requirements,
    network: record.network as PaymentRequirements['network'],
    asset: accepted.asset,
    amount: record.amount,
    payTo: authorization.to,
    extra: { ...requirements.extra, name, version },
  }
}

/** Under the payment's lease: the first answer, a credit redeemed, a settle resumed, or a new payment. */
async function underLease(context: PaidDeployContext, purchase: Purchase): Promise<HttpAnswer> {
  const { store } = context
  purchase.lease = await leasePayment(store, purchase)
  if (!purchase.lease) {
    const record = await readPaymentRecord(store, purchase)
    return record?.state === 'deployed' && record.answer && record.bodyHash === purchase.bodyHash
      ? replayedAnswer(record.answer)
      : inProgress(STILL_RUNNING)
  }
  const { record, alias } = await readPayment(store, purchase, purchase.keyHash)
  // A payment that may have paid (its settle was asked for) is answered from its own record, whatever payment its
  // Idempotency-Key went with before: following the key (to a refused payment, say) would take it anew, verify it
  // again (its nonce used: refused) and write over its credit, or over a settle the chain shows paid.
  if (record && MAYBE_PAID.includes(record.state)) return continuePayment(context, purchase, record, alias)
  if (alias && alias.nonce !== purchase.nonce) return followKey(context, purchase, alias)
  if (record) return continuePayment(context, purchase, record, alias)
  return newPayment(context, purchase, alias)
}

/**
 * A payment seen before: its answer again, a credit redeemed, or its settle resumed from the chain; never a second
 * deploy. One that never reached its settle (`verifying`, `refused`) is taken as new: its authorization is unspent.
 */
async function continuePayment(
  context: PaidDeployContext,
  purchase: Purchase,
  record: PaymentRecord,
  alias: IdempotencyAlias | null,
): Promise<HttpAnswer> {
  if (record.bodyHash !== purchase.bodyHash)
    return conflict('This payment already paid for another deploy request; nothing was settled. Sign a new payment for a new deploy.')
  if (record.state === 'deployed' && record.answer) return replayedAnswer(record.answer)
  if (record.state === 'verifying' || record.state === 'refused') return newPayment(context, purchase, alias, record)
  return resumePayment(context, purchase, record)
}

/**
 * A payment whose settle was asked for: deployed with no new settlement when it is paid for sure; else decided from the
 * chain first (resumeSettling): its deploy (paid, or to be settled again), or the answer the chain's verdict gives.
 */
async function resumePayment(context: PaidDeployContext, purchase: Purchase, record: PaymentRecord): Promise<HttpAnswer> {
  const standing = PAID_STATES.includes(record.state) ? { kind: 'paid' as const, record } : await resumeSettling(context, purchase, record)
  return standing.kind === 'refused' ? standing.answer : deployForPayment(context, purchase, standing)
}

/**
 * The payer's Idempotency-Key went with another payment: the request follows that payment's outcome. Its answer, its
 * credit redeemed, or its settle resumed from the chain; the payment this request carries is neither verified nor
 * settled while that one may still be paid. Only when that one was refused (nothing paid), or never reached its
 * settle and nobody works on it, does this payment take the key (atomically: a third request cannot take it too).
 * A different body is a conflict.
 */
async function followKey(context: PaidDeployContext, purchase: Purchase, alias: IdempotencyAlias): Promise<HttpAnswer> {
  if (alias.bodyHash !== purchase.bodyHash)
    return conflict(
      'This Idempotency-Key was already used with a different request body; nothing was settled. Use a new key for a new deploy.',
    )
  const earlier: Purchase = { ...purchase, nonce: alias.nonce, lease: null }
  const record = await readPaymentRecord(context.store, earlier)
  if (record?.state === 'deployed' && record.answer) return replayedAnswer(record.answer)
  if (record?.state === 'refused') return newPayment(context, purchase, alias)
  earlier.lease = await leasePayment(context.store, earlier)
  if (!earlier.lease) return inProgress('The payment this Idempotency-Key first came with is still being worked on; retry shortly.')
  try {
    // Under its lease, a payment with no record, or still `verifying`, was left before any settle: it is unspent.
    if (!record || record.state === 'verifying') return await newPayment(context, purchase, alias)
    // Never settled again from here: the payload in hand is not that payment's (resumeSettling knows it).
    return await resumePayment(context, earlier, record)
  } finally {
    if (earlier.lease) await releasePayment(context.store, earlier, earlier.lease)
  }
}

/**
 * A payment not settled before: its validity window (step 2), one of its payer's verifies of the minute (else 429,
 * nothing written), its Idempotency-Key claimed for it with its `verifying` record (atomically, before verify:
 * `replacing` is what the key held, a refused payment's alias, or this payment's own), the facilitator's verify
 * (step 3), then the deploy with its settle. A refusal here settles nothing.
 */
async function newPayment(
  context: PaidDeployContext,
  purchase: Purchase,
  replacing: IdempotencyAlias | null,
  seen: PaymentRecord | null = null,
): Promise<HttpAnswer> {
  const { requirements, resourceUrl, store, facilitator } = context
  // The validity window is the door's clock's: the wall clock, as the token and the facilitator judge it.
  const nowSeconds = Math.floor(context.clock.now() / 1000)
  const window =
    checkValidityWindow(purchase.payment, nowSeconds) ?? checkValidityLength(purchase.payment, nowSeconds, requirements.maxTimeoutSeconds)
  if (window)
    return paymentRequiredAnswer({ requirements, resourceUrl, code: 'PAYMENT_INVALID', error: window.message, reason: window.reason })
  const limit = context.config.rateLimitPerMinute
  const budget = await takePayerVerify(store, { keys: context.keys, payer: purchase.payer, limit, now: context.clock.now() })
  if (!budget.ok) return budget.answer
  const { keyHash } = purchase
  const record = paymentRecordOf(context, purchase, 'verifying')
  const claimed = keyHash ? await claimIdempotencyKey(store, purchase, { keyHash, record, replacing }) : true
  if (!claimed) return inProgress(STILL_RUNNING)
  const refuse = async (reason: string) => {
    if (keyHash || seen) await refusePayment(context, record, reason).catch(() => undefined)
  }
  const verdict = await facilitator.verify(purchase.payment.payload, requirements)
  if (verdict.kind === 'unavailable') {
    await refuse('facilitator_unavailable')
    return facilitatorUnavailable()
  }
  if (verdict.kind === 'invalid') {
    // The facilitator's own words go to the log only; the answer says the door's.
    const { reason, message } = doorRefusalOf(verdict.reason)
    context.services.logger.info('x402_verify_refused', { payer: purchase.payer, reason, said: verdict.reason.slice(0, 200) })
    await refuse(reason)
    const error = `The facilitator refused the payment: ${message} Nothing was settled or signed.`
    return paymentRequiredAnswer({ requirements, resourceUrl, code: 'PAYMENT_INVALID', error, reason })
  }
  return deployForPayment(context, purchase, { kind: 'new' })
}
