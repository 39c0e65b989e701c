import type { z } from 'zod'
import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { agentDeploySchema } from '../deploy/actions/agentDeploy.js'
import { receiptRequestSchema } from '../deploy/actions/receipt.js'
import { deployFailureSchema, receiptConfirmedSchema, receiptPendingSchema, receiptReplacedSchema } from '../deploy/answerSchemas.js'
import {
  corsHeaders,
  jsonAnswer,
  notAllowedAnswer,
  oneOf,
  preflightOperation,
  quotaHeaders,
  redirectAnswer,
  retryAfterHeaders,
} from '../platform/routeDocs.js'
import {
  creditAnswerSchema,
  paidDeploySchema,
  paidDoorErrorSchema,
  paymentRequiredBodySchema,
  paymentUnknownSchema,
} from './answerSchemas.js'
import { PAID_DOOR_BODY_LIMIT_BYTES } from './endpoint.js'

// `POST /api/x402/deploy`, as the OpenAPI document declares it: the 402 and its headers, the paid answer, the credit.

const quota = quotaHeaders('x402', 'X402_RATE_LIMIT_PER_MINUTE')
const header = (description: string, required = false) => ({ description, required, schema: { type: 'string' as const } })

/** The agent_deploy body as the paid door takes it: `action` may be omitted. */
const paidDeployRequestSchema = agentDeploySchema.partial({ action: true })

/** The paid door's route. */
export const paidDeployOpenApi: ZodOpenApiPathItemObject = {
  post: {
    operationId: 'paidDeploy',
    summary: 'Deploy a B20 token paid per call with x402 (USDC, no key), or read a paid deploy’s receipt (free)',
    description: [
      'Any agent with a funded wallet deploys without a key: the body is the agent_deploy intent (action may be omitted; dryRun is not offered). Without PAYMENT-SIGNATURE the answer is 402 with the x402 v2 PAYMENT-REQUIRED header (scheme exact, network eip155:<CHAIN_ID>, the asset, amount in base units, payTo, extra {name, version}); an x402 client (@x402/fetch) pays it and sends the request again.',
      'With a payment: decoded (400 INVALID_PAYMENT), checked locally against the server’s own requirements, verified by the facilitator, the payer’s cap taken, the deploy simulated, and only then settled, confirmed on chain, signed and broadcast. A failure before the settle is 402 PAYMENT_INVALID or PAYMENT_FAILED with reason and a fresh PAYMENT-REQUIRED; nothing is settled or signed.',
      'One payment settles at most once and buys at most one deploy: the same payment again, or the same Idempotency-Key (scoped to the payer) with the same body, returns the first answer (Idempotent-Replayed: true) without settling the new payment. Settled but not deployed (RPC, KMS or store down, DEPLOY_BUSY) is a credit: resend to deploy without paying again.',
      '{"action":"receipt","tx_hash"} is free and answers as /api/b20-skill’s receipt does, for deploys paid here.',
    ].join('\n\n'),
    security: [],
    parameters: [
      {
        name: 'PAYMENT-SIGNATURE',
        in: 'header',
        required: false,
        description: 'x402 v2 payment payload (base64 JSON): the exact scheme’s signed EIP-3009 authorization',
        schema: { type: 'string', maxLength: 8192 },
      },
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'Scoped to the payer: the same key and body within 30 days return the first answer (or redeem its credit) without a new settlement',
        schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[\\x21-\\x7e]+$' },
      },
    ],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: oneOf([paidDeployRequestSchema, receiptRequestSchema] as [z.ZodType, z.ZodType]) } },
    },
    responses: {
      '308': redirectAnswer,
      '200': {
        ...jsonAnswer(
          oneOf([
            paidDeploySchema,
            creditAnswerSchema,
            receiptPendingSchema,
            receiptConfirmedSchema,
            receiptReplacedSchema,
            deployFailureSchema,
          ]),
          'Paid and broadcast; paid and not deployed (a credit); a receipt; or refused with nothing paid (ok false: INVALID_INTENT, DEPLOY_CAP_REACHED, SIMULATION_REVERTED, IDEMPOTENCY_CONFLICT, …)',
        ),
        headers: {
          ...corsHeaders,
          ...quota,
          'PAYMENT-RESPONSE': header(
            'After a settlement: x402’s SettleResponse (base64 JSON: success, payer, transaction, network, amount)',
          ),
          'Idempotent-Replayed': header('"true" when this is the stored answer of the same payment or Idempotency-Key'),
        },
      },
      '202': {
        ...jsonAnswer(
          paymentUnknownSchema,
          'Settle asked for, outcome not known yet (PAYMENT_UNKNOWN): the payment is named; resend after Retry-After',
        ),
        headers: { ...retryAfterHeaders, ...quota },
      },
      '400': jsonAnswer(
        paidDoorErrorSchema,
        'PAYMENT-SIGNATURE malformed or longer than 8 KiB (INVALID_PAYMENT); the body is not JSON (INVALID_JSON, UNSUPPORTED_CONTENT_TYPE)',
      ),
      '402': {
        ...jsonAnswer(
          paymentRequiredBodySchema,
          'Payment required (PAYMENT_REQUIRED), or refused before any settle (PAYMENT_INVALID, PAYMENT_FAILED, with reason)',
        ),
        headers: {
          ...corsHeaders,
          ...quota,
          'PAYMENT-REQUIRED': header('x402 v2 PaymentRequired (base64 JSON): x402Version, error, resource, accepts, extensions', true),
        },
      },
      '404': jsonAnswer(paidDoorErrorSchema, 'Paid deploys are off on this deployment (PAID_DEPLOYS_OFF)'),
      '405': notAllowedAnswer,
      '413': jsonAnswer(paidDoorErrorSchema, `Body larger than ${PAID_DOOR_BODY_LIMIT_BYTES / 1024} KiB (BODY_TOO_LARGE)`),
      '429': {
        ...jsonAnswer(paidDoorErrorSchema, 'Too many requests from this client (X402_RATE_LIMIT_PER_MINUTE a minute; RATE_LIMITED)'),
        headers: { ...retryAfterHeaders, ...quota },
      },
      '500': jsonAnswer(paidDoorErrorSchema, 'Misconfigured (CONFIG_INVALID) or an unexpected failure (INTERNAL, with requestId)'),
      '503': {
        ...jsonAnswer(
          paidDoorErrorSchema,
          'The facilitator is down or did not answer in time (FACILITATOR_UNAVAILABLE): nothing was settled or signed',
        ),
        headers: retryAfterHeaders,
      },
    },
  },
  options: preflightOperation,
}
