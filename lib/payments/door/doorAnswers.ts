import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http'
import { x402ResourceServer } from '@x402/core/server'
import type { PaymentRequirements } from '@x402/core/types'
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier'
import type { DeployFailure } from '../../deploy/outcome.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import type { RequestProblem } from '../../platform/problems.js'
import { paidDeployDiscovery } from '../discovery/bazaar.js'
import type { PaidDoorErrorCode, PaymentSummary } from '../discovery/paidDoorSchemas.js'
import { resourceOf } from './requirements.js'

// The paid door's answers, with their x402 headers: a 402 carries PAYMENT-REQUIRED (x402 v2, base64), an answer
// after a settlement carries PAYMENT-RESPONSE. Built with @x402/core's own helpers.

/** Builds the PaymentRequired object of a 402 (no facilitator is asked: the requirements are the server's own). */
const paymentRequiredBuilder = new x402ResourceServer()

/** The codes of a 402. */
export type PaymentRequiredCode = 'PAYMENT_REQUIRED' | 'PAYMENT_INVALID' | 'PAYMENT_FAILED'

/** Parameters of {@link paymentRequiredAnswer}. */
export type PaymentRequiredAnswerParameters = {
  requirements: PaymentRequirements
  /** The door's URL on the public origin (`paidDeployUrl`): the 402's resource. */
  resourceUrl: string
  code: PaymentRequiredCode
  error: string
  /** Why a payment was refused, in x402's words. */
  reason?: string
  /** What the request would be refused for once paid (an unpaid invalid body): every problem, as INVALID_INTENT names them. */
  details?: RequestProblem[]
}

/**
 * A 402 with a fresh PAYMENT-REQUIRED header (x402 v2: the server's requirements, this door as the resource, the
 * payment-identifier extension a client may echo so that a retry is recognised, and the `bazaar` discovery extension an
 * indexing facilitator lists the door by) and the same `accepts` in the body.
 */
export async function paymentRequiredAnswer({
  requirements,
  resourceUrl,
  code,
  error,
  reason,
  details,
}: PaymentRequiredAnswerParameters): Promise<HttpAnswer> {
  const required = await paymentRequiredBuilder.createPaymentRequiredResponse([requirements], resourceOf(resourceUrl), error, {
    [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false),
    ...paidDeployDiscovery(),
  })
  return {
    status: 402,
    body: { ok: false, code, error, ...(reason ? { reason } : {}), ...(details ? { details } : {}), accepts: [requirements] },
    headers: { 'payment-required': encodePaymentRequiredHeader(required), 'cache-control': 'no-store' },
  }
}

/** The PAYMENT-RESPONSE header of a settled payment (x402's SettleResponse, base64), with its extensions if any. */
export function paymentResponseHeader(payment: PaymentSummary, extensions?: Record<string, unknown>): Record<string, string> {
  return {
    'payment-response': encodePaymentResponseHeader({
      success: true,
      payer: payment.payer,
      transaction: payment.transaction,
      network: payment.network as `${string}:${string}`,
      amount: payment.amount,
      ...(extensions ? { extensions } : {}),
    }),
  }
}

/** A 200 after a settlement: the deploy's answer (broadcast, or why not) with what was paid, and PAYMENT-RESPONSE. */
export function settledAnswer(body: object, payment: PaymentSummary, extra: Record<string, unknown> = {}): HttpAnswer {
  return { status: 200, body: { ...body, ...extra, payment }, headers: paymentResponseHeader(payment) }
}

/**
 * A settled payment whose deploy failed before broadcast: the failure (its code and retryAfterSeconds), the credit's
 * id and what was paid. A retry with the same payment, or the same Idempotency-Key, deploys without a new settlement.
 */
export function creditAnswer(failure: DeployFailure, creditId: string, payment: PaymentSummary): HttpAnswer {
  const error = `Your payment was settled, but the deploy did not go out: ${failure.error} Resend the same request (the same payment, or the same Idempotency-Key) to deploy without paying again.`
  return settledAnswer({ ...failure, error, retryAfterSeconds: failure.retryAfterSeconds ?? 5 }, payment, { credit: { id: creditId } })
}

/** A 200 domain answer with nothing paid (an invalid intent, a full cap, a simulated revert, a conflict). */
export function domainAnswer(failure: DeployFailure | object): HttpAnswer {
  return { status: 200, body: failure as Record<string, unknown>, headers: {} }
}

/** An answer outside the domain (400, 404, 413, 429, 503, 500): `{ ok: false, error, code }`. */
export function doorError(status: number, code: PaidDoorErrorCode, error: string, headers: Record<string, string> = {}): HttpAnswer {
  const retry = headers['retry-after']
  return { status, body: { ok: false, error, code, ...(retry ? { retryAfterSeconds: Number(retry) } : {}) }, headers }
}

/** 503 FACILITATOR_UNAVAILABLE: nothing was settled or signed; retry after the given seconds. */
export function facilitatorUnavailable(seconds = 10): HttpAnswer {
  return doorError(
    503,
    'FACILITATOR_UNAVAILABLE',
    'The payment facilitator is unavailable or did not answer in time; nothing was settled or signed. Resend the same request (the same payment is never charged twice).',
    { 'retry-after': String(seconds) },
  )
}

/** A stored answer, replayed to a retry of the same payment or Idempotency-Key. */
export function replayedAnswer(stored: HttpAnswer): HttpAnswer {
  return { ...stored, headers: { ...stored.headers, 'idempotent-replayed': 'true' } }
}
