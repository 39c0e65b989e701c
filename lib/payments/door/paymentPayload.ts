import { decodePaymentSignatureHeader } from '@x402/core/http'
import { PaymentPayloadV2Schema } from '@x402/core/schemas'
import type { PaymentPayload } from '@x402/core/types'
import { extractAndValidatePaymentIdentifier } from '@x402/extensions/payment-identifier'
import { z } from 'zod'
import { accepted, type Result, refused } from '../../platform/result.js'

// Step 1 of a paid request: the PAYMENT-SIGNATURE header decoded with x402's own helper and schema, then read as the
// exact scheme's EIP-3009 payload. Anything else is malformed here (400 INVALID_PAYMENT): nothing further is asked.

/**
 * Longest PAYMENT-SIGNATURE accepted. An x402 client echoes every extension of the 402 in it: with the `bazaar`
 * declaration (the deploy's input and output schemas, about 6 KB) an EIP-3009 payment is about 10 KB of base64, and a
 * smart wallet's signature adds a few KB. 12 KiB leaves that room and stays under what Node's server (16 KiB for all
 * headers) and Vercel (16 KB for one header) take.
 */
export const PAYMENT_HEADER_MAX_LENGTH = 12 * 1024

const hex = (bytes: number, what: string) =>
  z.string().regex(new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`), `${what} must be ${bytes} bytes of hex`)
const unsigned = z.string().regex(/^\d{1,78}$/, 'must be an unsigned integer as a decimal string')

/**
 * The exact scheme's EIP-3009 payload: a signed TransferWithAuthorization, and nothing else. Strict: a member beside
 * it (a `permit2Authorization`, say) would make a facilitator settle by another method than the one every local
 * check, lease and on-chain lookup here is about, so the payment is refused instead.
 */
const eip3009PayloadSchema = z.strictObject({
  signature: z.string().regex(/^0x([0-9a-fA-F]{2}){65,}$/, 'signature must be at least 65 bytes of hex'),
  authorization: z.strictObject({
    from: hex(20, 'from'),
    to: hex(20, 'to'),
    value: unsigned,
    validAfter: unsigned,
    validBefore: unsigned,
    nonce: hex(32, 'nonce'),
  }),
})

/** The members of an x402 v2 payment payload; any other is refused. */
const PAYLOAD_MEMBERS: ReadonlySet<string> = new Set(['x402Version', 'resource', 'accepted', 'payload', 'extensions'])

/** The EIP-3009 authorization a payment carries, its numbers as bigints. */
export type PaymentAuthorization = {
  from: `0x${string}`
  to: `0x${string}`
  value: bigint
  validAfter: bigint
  validBefore: bigint
  nonce: `0x${string}`
}

/** A decoded payment: the payload as x402 hands it on (to verify and settle), and what the door reads of it. */
export type DecodedPayment = {
  payload: PaymentPayload
  authorization: PaymentAuthorization
  signature: `0x${string}`
  /** The client's payment id (`payment-identifier` extension), when it sent one: it keys a retry like an Idempotency-Key. */
  paymentId: string | null
}

/** Result of {@link decodePaymentHeader}: the payment, or why the header is malformed (no value of it echoed). */
export type DecodePaymentHeaderReturnType = Result<{ payment: DecodedPayment }, 'INVALID_PAYMENT', { reason: string }>

/** Decodes a PAYMENT-SIGNATURE header (x402 v2, exact scheme, EIP-3009); pure, no I/O. */
export function decodePaymentHeader(header: string): DecodePaymentHeaderReturnType {
  if (header.length > PAYMENT_HEADER_MAX_LENGTH)
    return refused('INVALID_PAYMENT', { reason: `longer than ${PAYMENT_HEADER_MAX_LENGTH} characters` })
  let decoded: unknown
  try {
    decoded = decodePaymentSignatureHeader(header.trim())
  } catch {
    return refused('INVALID_PAYMENT', { reason: 'not base64 of a JSON payment payload' })
  }
  const parsed = PaymentPayloadV2Schema.safeParse(decoded)
  if (!parsed.success) return refused('INVALID_PAYMENT', { reason: 'not an x402 v2 payment payload (x402Version 2, accepted, payload)' })
  const unknown = Object.keys(decoded as object).filter((key) => !PAYLOAD_MEMBERS.has(key))
  if (unknown.length > 0)
    return refused('INVALID_PAYMENT', { reason: `unknown payment payload members: ${unknown.slice(0, 3).join(', ').slice(0, 120)}` })
  const exact = eip3009PayloadSchema.safeParse(parsed.data.payload)
  if (!exact.success)
    return refused('INVALID_PAYMENT', { reason: `not an exact EIP-3009 payload: ${exact.error.issues[0]?.message ?? 'malformed'}` })
  // Only what was checked is handed on to verify and settle: the EIP-3009 members as parsed, nothing the client added.
  const payload = { ...parsed.data, payload: exact.data } as PaymentPayload
  const identifier = extractAndValidatePaymentIdentifier(payload)
  if (!identifier.validation.valid)
    return refused('INVALID_PAYMENT', { reason: 'its payment-identifier is not 16-128 letters, digits, - or _' })
  const { authorization, signature } = exact.data
  return accepted({
    payment: {
      payload,
      authorization: {
        from: authorization.from as `0x${string}`,
        to: authorization.to as `0x${string}`,
        value: BigInt(authorization.value),
        validAfter: BigInt(authorization.validAfter),
        validBefore: BigInt(authorization.validBefore),
        nonce: authorization.nonce.toLowerCase() as `0x${string}`,
      },
      signature: signature as `0x${string}`,
      paymentId: identifier.id,
    },
  })
}
