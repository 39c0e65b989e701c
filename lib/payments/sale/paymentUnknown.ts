import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { doorError } from '../door/doorAnswers.js'
import { type PaymentRecord, paymentIdOf } from '../ledger/paymentRecord.js'

// What the door answers from its ledger alone: a payment whose settle's outcome is not known yet. It names the
// payment, so that a resend (the same payment, or a new one the client signed under the same Idempotency-Key) resumes
// it instead of paying again; the chain decides it within the authorization's validity.

/** How long to wait before asking again: the chain decides within a few blocks, or once `validBefore` is past. */
const RETRY_SECONDS = 10

/** 202 PAYMENT_UNKNOWN: the settle was asked for, and neither the facilitator nor the chain says yet how it ended. */
export function paymentUnknownAnswer(record: PaymentRecord): HttpAnswer {
  const { body, headers } = doorError(
    202,
    'FACILITATOR_UNAVAILABLE',
    'Your payment’s settle was sent and its outcome is not known yet (it may be waiting to be mined). Nothing was signed. Resend the same request (the same payment, or the same Idempotency-Key) after Retry-After: it resumes this payment and never settles another one; the chain decides it by the authorization’s validBefore at the latest.',
    { 'retry-after': String(RETRY_SECONDS) },
  )
  const payment = {
    id: paymentIdOf(record.payer, record.nonce),
    state: 'unknown' as const,
    payer: record.payer,
    transaction: record.transaction,
    validBefore: record.validBefore,
  }
  return { status: 202, body: { ...body, code: 'PAYMENT_UNKNOWN', payment }, headers }
}
