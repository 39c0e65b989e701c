import type { z } from 'zod'
import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { receiptRequestSchema } from '../deploy/actions/receipt.js'
import { deployFailureSchema } from '../deploy/answers/deployAnswers.js'
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
import { DEFAULT_ASSETS, type PaymentsSettings } from './config.js'
import { paidDeployRequestSchema } from './discovery/bazaar.js'
import { DISCOVERY_MANIFEST_PATH, discoveryManifestSchema } from './discovery/manifest.js'
import {
  creditAnswerSchema,
  paidDeploySchema,
  paidDoorErrorSchema,
  paidReceiptConfirmedSchema,
  paidReceiptPendingSchema,
  paidReceiptReplacedSchema,
  paymentRequiredBodySchema,
  paymentUnknownSchema,
} from './discovery/paidDoorSchemas.js'
import { PAYMENT_HEADER_MAX_LENGTH } from './door/paymentPayload.js'
import { PAID_DOOR_BODY_LIMIT_BYTES } from './endpoint.js'

// `POST /api/x402/deploy`, as the OpenAPI document declares it: the 402 and its headers, the paid answer, the credit;
// its price and scheme as `x-payment-info`; and the origin's discovery manifest beside it.

const quota = quotaHeaders('x402', 'X402_RATE_LIMIT_PER_MINUTE')
const header = (description: string, required = false) => ({ description, required, schema: { type: 'string' as const } })

/** The door's 402, as both its methods answer it. */
const paymentRequired = {
  ...jsonAnswer(
    paymentRequiredBodySchema,
    'Payment required (PAYMENT_REQUIRED; with details when the request would be refused once paid), or refused before any settle (PAYMENT_INVALID, PAYMENT_FAILED, with reason)',
  ),
  headers: {
    ...corsHeaders,
    ...quota,
    'PAYMENT-REQUIRED': header(
      'x402 v2 PaymentRequired (base64 JSON): x402Version, error, resource (url on the service’s public origin, description, serviceName, tags), accepts, extensions (payment-identifier; bazaar: the body’s JSON Schema and the paid answer’s, with examples)',
      true,
    ),
  },
}

/** The paid door's route. */
export const paidDeployOpenApi: ZodOpenApiPathItemObject = {
  post: {
    operationId: 'paidDeploy',
    summary: 'Deploy a B20 token paid per call with x402 (USDC, no key), or read a paid deploy’s receipt (free)',
    description: [
      'Any agent with a funded wallet deploys without a key: the body is the agent_deploy intent (action may be omitted; dryRun is not offered). Without PAYMENT-SIGNATURE, a request the door would refuse (an invalid body, {}, an unknown action) is 402 all the same, naming what to fix in error and details; with one, it is refused (INVALID_INTENT) before the payment is verified. A variant Base has not activated on the network is refused (VARIANT_NOT_ACTIVE). Without PAYMENT-SIGNATURE the answer is 402 with the x402 v2 PAYMENT-REQUIRED header (scheme exact, network eip155:<CHAIN_ID>, the asset, amount in base units at the asset’s own decimals() read on chain, payTo, extra {name, version} checked against the token); an x402 client (@x402/fetch) pays it and sends the request again.',
      'A paid launch has no key, so its payer owns it: when the body names no admin, the payer (the from of the payment’s EIP-3009 authorization) is the token’s admin and minter from birth (DEFAULT_ADMIN_ROLE and MINT_ROLE, decided before the simulation; the service’s signer keeps no role), and manages it from its own wallet (token_status, prepared calls such as collect_fees). The 402 of such a body says so. A body that names an admin keeps it; a fixedSupply token has none.',
      'With a payment: decoded (400 INVALID_PAYMENT), checked locally against the server’s own requirements, verified by the facilitator, the payer’s cap taken, the deploy simulated, and only then settled, confirmed on chain, signed and broadcast. A failure before the settle is 402 PAYMENT_INVALID or PAYMENT_FAILED with reason and a fresh PAYMENT-REQUIRED; nothing is settled or signed.',
      'One payment settles at most once and buys at most one deploy: the same payment again, or the same Idempotency-Key (scoped to the payer) with the same body, returns the first answer (Idempotent-Replayed: true) without settling the new payment. Settled but not deployed (RPC, KMS or store down, DEPLOY_BUSY) is a credit: resend to deploy without paying again.',
      '{"action":"receipt","tx_hash"} is free and answers as /api/b20-skill’s receipt does, for deploys paid here, with the payment beside it (payment: id, state, payer, amount, asset, transaction).',
    ].join('\n\n'),
    security: [],
    parameters: [
      {
        name: 'PAYMENT-SIGNATURE',
        in: 'header',
        required: false,
        description: 'x402 v2 payment payload (base64 JSON): the exact scheme’s signed EIP-3009 authorization',
        schema: { type: 'string', maxLength: PAYMENT_HEADER_MAX_LENGTH },
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
            paidReceiptPendingSchema,
            paidReceiptConfirmedSchema,
            paidReceiptReplacedSchema,
            deployFailureSchema,
          ]),
          'Paid and broadcast; paid and not deployed (a credit); a receipt; or refused with nothing paid (ok false: INVALID_INTENT, VARIANT_NOT_ACTIVE before any 402 or verify, DEPLOY_CAP_REACHED, SIMULATION_REVERTED, IDEMPOTENCY_CONFLICT, …)',
        ),
        headers: {
          ...corsHeaders,
          ...quota,
          'PAYMENT-RESPONSE': header(
            'After a settlement: x402’s SettleResponse (base64 JSON: success, payer, transaction, network, amount; after a broadcast, extensions["offer-receipt"].info.receipt: the signed receipt, as payment.receipt)',
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
        `PAYMENT-SIGNATURE malformed or longer than ${PAYMENT_HEADER_MAX_LENGTH / 1024} KiB (INVALID_PAYMENT); the body is not JSON (INVALID_JSON, UNSUPPORTED_CONTENT_TYPE)`,
      ),
      '402': paymentRequired,
      '404': jsonAnswer(
        paidDoorErrorSchema,
        'Paid deploys are off on this deployment (PAID_DEPLOYS_OFF: a setting missing, PUBLIC_URL among them)',
      ),
      '405': notAllowedAnswer,
      '413': jsonAnswer(paidDoorErrorSchema, `Body larger than ${PAID_DOOR_BODY_LIMIT_BYTES / 1024} KiB (BODY_TOO_LARGE)`),
      '429': {
        ...jsonAnswer(
          paidDoorErrorSchema,
          'Too many requests from this client, or payments of this payer to verify, from any client (X402_RATE_LIMIT_PER_MINUTE a minute each; RATE_LIMITED)',
        ),
        headers: { ...retryAfterHeaders, ...quota },
      },
      '500': jsonAnswer(
        paidDoorErrorSchema,
        'Misconfigured (CONFIG_INVALID: a setting, or the asset on chain contradicting X402_ASSET, X402_PRICE or its EIP-712 name and version) or an unexpected failure (INTERNAL, with requestId)',
      ),
      '503': {
        ...jsonAnswer(
          paidDoorErrorSchema,
          'The facilitator is down or did not answer in time (FACILITATOR_UNAVAILABLE), or the RPC could not say the asset’s decimals and EIP-712 domain, so no price is asked (RPC_UNAVAILABLE): nothing was settled or signed',
        ),
        headers: retryAfterHeaders,
      },
    },
  },
  get: {
    operationId: 'getPaidDeployTerms',
    summary: 'What a paid deploy costs: the 402 with its x402 terms (a deploy itself is a POST)',
    description:
      'A GET carries no intent, so it buys nothing: without PAYMENT-SIGNATURE it is answered the 402 a deploy gets (PAYMENT-REQUIRED, with details naming the missing body), which is what an x402 catalog or an agent reads the terms from; with one, 200 INVALID_INTENT, nothing verified or settled.',
    security: [],
    responses: {
      '308': redirectAnswer,
      '200': jsonAnswer(deployFailureSchema, 'A GET with a payment: INVALID_INTENT, nothing verified, settled or signed'),
      '402': paymentRequired,
      '404': jsonAnswer(paidDoorErrorSchema, 'Paid deploys are off on this deployment (PAID_DEPLOYS_OFF)'),
      '429': {
        ...jsonAnswer(paidDoorErrorSchema, 'Too many requests from this client (RATE_LIMITED)'),
        headers: { ...retryAfterHeaders, ...quota },
      },
      '500': jsonAnswer(paidDoorErrorSchema, 'Misconfigured (CONFIG_INVALID) or an unexpected failure (INTERNAL, with requestId)'),
      '503': {
        ...jsonAnswer(
          paidDoorErrorSchema,
          'The RPC could not say the asset’s decimals and EIP-712 domain, so no price is asked (RPC_UNAVAILABLE)',
        ),
        headers: retryAfterHeaders,
      },
    },
  },
  options: preflightOperation,
}

/**
 * The paid operation's `x-payment-info` (the convention discovery crawlers read in an OpenAPI document): x402 v2's
 * exact scheme and, while paid deploys are on, the price (in USD when the asset is the chain's USDC), the network, the
 * asset and who is paid; and where the origin's discovery manifest is. Off, or misconfigured: the scheme alone. The
 * amount in base units is left to the 402: it follows the asset's own decimals(), which only the chain says.
 */
export function paidDeployPaymentInfo(config: PaymentsSettings | null): Record<string, unknown> {
  if (!config || config.offReason) return { protocols: [{ x402: { x402Version: 2, scheme: 'exact' } }], discovery: DISCOVERY_MANIFEST_PATH }
  const usdc = config.asset.address.toLowerCase() === DEFAULT_ASSETS[config.chainId].address.toLowerCase()
  return {
    price: { mode: 'fixed', currency: usdc ? 'USD' : config.asset.name, amount: config.price },
    protocols: [
      {
        x402: {
          x402Version: 2,
          scheme: 'exact',
          network: config.network,
          asset: config.asset.address,
          payTo: config.payTo,
        },
      },
    ],
    discovery: DISCOVERY_MANIFEST_PATH,
  }
}

/** The paid door's route with its `x-payment-info` for these settings (null: not readable here). */
export function paidDeployOpenApiWith(config: PaymentsSettings | null): ZodOpenApiPathItemObject {
  return { ...paidDeployOpenApi, post: { ...paidDeployOpenApi.post!, 'x-payment-info': paidDeployPaymentInfo(config) } }
}

/** `GET /api/x402/manifest` (and `/.well-known/x402`): the origin's x402 discovery manifest. */
export const discoveryManifestOpenApi: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getX402Manifest',
    summary: 'The x402 discovery manifest (also at /.well-known/x402)',
    description:
      'What this origin sells over x402, as bare pointers on its public origin (PUBLIC_URL): version 1, resources [url] and instructions (the discovery document x402scan reads), then x402Version 2, kind resource-server, name, description, endpoints [{url, method, description}], docs, openapi, updated. Each resource’s 402 states its terms (and carries the bazaar discovery extension). CORS-open; off (404 PAID_DEPLOYS_OFF) when paid deploys are.',
    security: [],
    responses: {
      '200': {
        ...jsonAnswer(discoveryManifestSchema, 'The manifest'),
        headers: {
          ...corsHeaders,
          'Cache-Control': header('public, max-age=300', true),
        },
      },
      '308': redirectAnswer,
      '404': jsonAnswer(paidDoorErrorSchema, 'Paid deploys are off on this deployment (PAID_DEPLOYS_OFF)'),
      '405': notAllowedAnswer,
      '500': jsonAnswer(paidDoorErrorSchema, 'Misconfigured (CONFIG_INVALID)'),
    },
  },
  options: preflightOperation,
}
