import { z } from 'zod'
import { deployBroadcastSchema, deployFailureSchema } from '../../deploy/answers/deployAnswers.js'
import { receiptConfirmedSchema, receiptPendingSchema, receiptReplacedSchema } from '../../deploy/answers/receipts.js'
import { DOOR_REFUSAL_REASONS, type DoorRefusalReason } from '../verdict/refusalReasons.js'

// What the paid door answers, as zod schemas: the OpenAPI document is built from them and tests hold answers to them.

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/)
const baseUnits = z.string().regex(/^\d+$/)

/** What was paid for a deploy: who, the settlement's transaction, how much (base units) of which token, on which network. */
export const paymentSummarySchema = z
  .object({
    payer: address.describe('The wallet that paid'),
    transaction: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/)
      .describe('The settlement: the transferWithAuthorization transaction'),
    amount: baseUnits.describe('The price paid, in the asset’s base units (x402’s amount)'),
    asset: address.describe('The EIP-3009 token paid in'),
    network: z.string().describe('CAIP-2 network of the payment: eip155:8453'),
    poolCredit: z
      .object({ id: z.string(), amount: baseUnits })
      .optional()
      .describe('The pool failed: the part of the price paid for it (base units), a credit the operator refunds'),
  })
  .describe('The payment this deploy was bought with')

/** One x402 v2 payment requirement, as the 402's `accepts` lists it (the PAYMENT-REQUIRED header says the same). */
export const paymentRequirementSchema = z.object({
  scheme: z.literal('exact'),
  network: z.string().describe('eip155:<CHAIN_ID>'),
  amount: baseUnits.describe('The price in the asset’s base units'),
  asset: address.describe('The EIP-3009 token to pay in (USDC by default)'),
  payTo: address.describe('Who is paid'),
  maxTimeoutSeconds: z.number().int().describe('How long the signed authorization may be valid'),
  extra: z.object({ name: z.string(), version: z.string() }).describe('The token’s EIP-712 domain'),
})

/**
 * The receipt of a paid deploy: x402's `offer-receipt` extension, EIP-712 form, signed by the deploy signer through
 * KMS. PAYMENT-RESPONSE carries the same object at `extensions["offer-receipt"].info.receipt`.
 */
export const offerReceiptSchema = z
  .object({
    format: z.literal('eip712'),
    payload: z.object({
      version: z.literal(1).describe('The receipt payload’s schema version'),
      network: z.string().describe('CAIP-2 network of the payment: eip155:8453'),
      resourceUrl: z.string().describe('The paid resource: this door’s URL, as the 402’s resource.url'),
      payer: address.describe('The wallet that paid'),
      issuedAt: z.number().int().describe('When the receipt was signed (Unix seconds)'),
      transaction: z
        .string()
        .regex(/^0x[0-9a-fA-F]{64}$/)
        .describe('The settlement’s transaction, as payment.transaction'),
    }),
    signature: z
      .string()
      .regex(/^0x[0-9a-fA-F]{130}$/)
      .describe(
        'EIP-712 signature (domain { name: "x402 receipt", version: "1", chainId: 1 }, type Receipt) by the deploy signer: it recovers to the deploy transaction’s from',
      ),
  })
  .describe(
    'Proof of purchase for others: verify with verifyReceiptSignatureEIP712 of @x402/extensions/offer-receipt; absent if KMS could not sign it then',
  )

/** Success body of a paid deploy: the deploy answer (docs/api.md, `POST /api/b20-skill`) and what was paid, with its signed receipt. */
export const paidDeploySchema = deployBroadcastSchema
  .extend({ payment: paymentSummarySchema.extend({ receipt: offerReceiptSchema.optional() }) })
  .describe('Paid, signed and broadcast (with receipt when waitSeconds saw it mined); the PAYMENT-RESPONSE header says the same settlement')

/** Body of a 402: why, and what to pay (the PAYMENT-REQUIRED header carries the same, base64, for x402 clients). */
export const paymentRequiredBodySchema = z.object({
  ok: z.literal(false),
  code: z
    .enum(['PAYMENT_REQUIRED', 'PAYMENT_INVALID', 'PAYMENT_FAILED'])
    .describe('PAYMENT_REQUIRED: none sent; PAYMENT_INVALID: refused before any settle; PAYMENT_FAILED: the settle failed'),
  error: z.string(),
  reason: z
    .enum(Object.keys(DOOR_REFUSAL_REASONS) as [DoorRefusalReason, ...DoorRefusalReason[]])
    .optional()
    .describe('Why the payment was refused, in the door’s own words (a facilitator’s are logged, never answered)'),
  details: z
    .array(z.object({ field: z.string(), reason: z.string() }))
    .optional()
    .describe(
      'PAYMENT_REQUIRED of a request the door would refuse once paid (an invalid body, an unknown action, a GET): every problem, as INVALID_INTENT names them',
    ),
  accepts: z.array(paymentRequirementSchema),
})

/** A settled payment whose deploy failed before broadcast: the payment is kept as a credit, redeemed by a retry. */
export const creditAnswerSchema = deployFailureSchema
  .extend({
    credit: z
      .object({ id: z.string().describe('The credit, for the operator (npm run agents -- credits)') })
      .describe('Resend the same payment (or the same Idempotency-Key with a new one) to deploy without paying again'),
    payment: paymentSummarySchema,
  })
  .describe('Paid, not deployed: code and retryAfterSeconds say why and when to retry; no new payment is settled then')

/** A payment whose settle's outcome is not known yet: named, so that a resend resumes it and never pays again. */
export const paymentUnknownSchema = z
  .object({
    ok: z.literal(false),
    code: z.literal('PAYMENT_UNKNOWN'),
    error: z.string(),
    retryAfterSeconds: z.number().int().min(1),
    payment: z.object({
      id: z.string().describe('The payment (one per signed authorization: payer and nonce)'),
      state: z.literal('unknown'),
      payer: address,
      transaction: z
        .string()
        .regex(/^0x[0-9a-fA-F]{64}$/)
        .nullable()
        .describe('The settlement the facilitator named, when it named one (it may not be mined yet)'),
      validBefore: z.number().int().describe('When the authorization lapses (unix seconds): past it, the chain decides for good'),
    }),
  })
  .describe(
    'The settle was asked for and its outcome is not known yet (pending, or no answer): resend the same request (the same payment, or the same Idempotency-Key) after Retry-After; it resumes this payment and never settles another',
  )

/** Where the payment that bought a deploy stands, as the ledger knows it (a paid deploy's receipt carries it). */
export const paymentStandingSchema = z
  .object({
    id: z.string().describe('The payment (one per signed authorization: payer and nonce), as PAYMENT_UNKNOWN names it'),
    state: z
      .enum(['verifying', 'settling', 'unknown', 'deploying', 'deployed', 'credit', 'refused'])
      .describe('The ledger’s state of the payment (docs/payments.md): deployed once the deploy it bought went out'),
    payer: address.describe('The wallet that paid'),
    amount: baseUnits.describe('The price, in the asset’s base units'),
    asset: address.describe('The EIP-3009 token paid in'),
    transaction: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/)
      .nullable()
      .describe('The settlement (transferWithAuthorization), once known'),
  })
  .describe('The payment this deploy was bought with; absent when the ledger no longer holds it (kept 30 days)')

/** A paid deploy's receipt: the deploy's receipt with its payment beside it. */
export const paidReceiptPendingSchema = receiptPendingSchema.extend({ payment: paymentStandingSchema.optional() })
/** A paid deploy's receipt, mined. */
export const paidReceiptConfirmedSchema = receiptConfirmedSchema.extend({ payment: paymentStandingSchema.optional() })
/** A paid deploy's receipt, replaced. */
export const paidReceiptReplacedSchema = receiptReplacedSchema.extend({ payment: paymentStandingSchema.optional() })

/** Machine codes of the paid door's answers outside the 200 domain answers and the 402. */
export const paidDoorErrorCodeSchema = z.enum([
  'PAID_DEPLOYS_OFF',
  'INVALID_PAYMENT',
  'FACILITATOR_UNAVAILABLE',
  'RPC_UNAVAILABLE',
  'RATE_LIMITED',
  'BODY_TOO_LARGE',
  'INVALID_JSON',
  'UNSUPPORTED_CONTENT_TYPE',
  'CONFIG_INVALID',
  'INTERNAL',
  'METHOD_NOT_ALLOWED',
])

/** An answer of the paid door outside the 200 domain answers and the 402 (400, 404, 413, 429, 500, 503). */
export const paidDoorErrorSchema = z.object({
  ok: z.literal(false),
  error: z.string(),
  code: paidDoorErrorCodeSchema,
  retryAfterSeconds: z.number().int().min(0).optional(),
  requestId: z.string().optional().describe('INTERNAL: the id of this request (also X-Request-Id), for the operator to trace it'),
})

/** Where a deploy's payment stands. */
export type PaymentStanding = z.infer<typeof paymentStandingSchema>
/** What was paid for a deploy. */
export type PaymentSummary = z.infer<typeof paymentSummarySchema>
/** A machine code of {@link paidDoorErrorSchema}. */
export type PaidDoorErrorCode = z.infer<typeof paidDoorErrorCodeSchema>
