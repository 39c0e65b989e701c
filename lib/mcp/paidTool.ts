import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import { z } from 'zod'
import { agentDeployAction, IDEMPOTENCY_KEY_PATTERN } from '../deploy/actions/agentDeploy.js'
import { PAID_DEPLOY_PATH, paidDeployRequestSchema } from '../payments/discovery/bazaar.js'
import { refused } from '../platform/result.js'
import type { JsonObject, ToolDefinition } from './tools.js'

// `deploy_token_paid`: the paid door (POST /api/x402/deploy) as an MCP tool, by x402's MCP transport. The tool asks
// the door itself, through its HTTP face, as the read tools ask the read endpoints: the same throttle, chain terms,
// 402, ledger, caps, credits, Idempotency-Key and chain verdicts, so a payment is one payment whichever way it came
// (its record is keyed by the authorization and the body, which both ways send alike). What the tool adds is the
// transport: the payment comes in `params._meta["x402/payment"]` instead of PAYMENT-SIGNATURE, the 402's
// PaymentRequired goes out as an `isError` result, and PAYMENT-RESPONSE as `_meta["x402/payment-response"]`.

/** The `_meta` key of a tool call that carries the client's x402 PaymentPayload. */
export const X402_PAYMENT_META = 'x402/payment'
/** The `_meta` key of a tool result that carries x402's SettlementResponse. */
export const X402_PAYMENT_RESPONSE_META = 'x402/payment-response'

/** The paid door as the MCP server reaches it (`lib/mcp/instance.ts` hands this instance's in). */
export type PaidDeployDoor = {
  /** Whether paid deploys are on here (the door configured): the tool is listed, and served, only then. */
  offered: () => Promise<boolean>
  /** The door's HTTP face, `POST /api/x402/deploy`, as Vercel runs it: a request in, its answer out. */
  handle: (request: Request) => Promise<Response>
}

/** Arguments of `deploy_token_paid`: the paid door's deploy body (no `action`, no `dryRun`: not offered there), and its `Idempotency-Key`. */
export const deployTokenPaidInput = paidDeployRequestSchema.omit({ action: true, dryRun: true }).extend({
  idempotencyKey: z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN)
    .optional()
    .describe(
      'As the paid door’s Idempotency-Key header: a resend with the same key and arguments answers the first deploy, and never settles a second payment',
    ),
})

/** The paid deploy tool: no agent key; an x402 payment in `_meta["x402/payment"]`. */
export const DEPLOY_TOKEN_PAID_TOOL: ToolDefinition = {
  name: 'deploy_token_paid',
  title: 'Deploy a B20 token, paid with x402',
  description:
    'Deploys a B20 token on Base as deploy_token does, for anyone who pays its price in USDC with x402 instead of holding an agent key. ' +
    'Called without a payment it answers isError with the x402 PaymentRequired (x402Version, accepts, resource, error) in structuredContent; ' +
    'sign one of accepts with an x402 client and call again with the same arguments and the PaymentPayload in _meta["x402/payment"]. ' +
    'Paid: txHash and predictedAddress, and the settlement in _meta["x402/payment-response"]. Without admin, the payer is the token’s admin and minter from birth. Nothing is settled until the deploy is known to be good; ' +
    'the same payment, or the same idempotencyKey, never pays twice. No dryRun (a revert is simulated before anything is settled).',
  input: deployTokenPaidInput,
  annotations: agentDeployAction.tool.annotations,
  paid: true,
}

/** A refusal as a tool result: its body in `structuredContent`, `code: error` as text. */
const refusal = (body: JsonObject): CallToolResult => ({
  content: [{ type: 'text', text: `${body.code}: ${body.error}` }],
  structuredContent: body,
  isError: true,
})

/** Parameters of {@link callPaidDeployTool}. */
export type CallPaidDeployToolParameters = {
  args: Record<string, unknown>
  /** The call's `params._meta`, where a payment comes. */
  meta: Record<string, unknown> | undefined
  /** The MCP request: the door is asked on its origin, for its client (the door's per-client throttle). */
  request: Request
  door: PaidDeployDoor
}

/**
 * Runs `deploy_token_paid`: the arguments checked by the deploy action's own check first (an invalid body is never
 * priced, and nothing is asked of the door), then the door asked with the payment, if any, and its answer told back
 * in x402's MCP terms.
 */
export async function callPaidDeployTool({ args, meta, request, door }: CallPaidDeployToolParameters): Promise<CallToolResult> {
  const asked = agentDeployAction.tool.toRequest(args)
  if (!asked.ok) return refusal(asked)
  const checked = agentDeployAction.check({ body: asked.body, idempotencyKey: asked.idempotencyKey })
  if (!checked.ok) return refusal(checked)
  const payment = meta?.[X402_PAYMENT_META]
  if (payment !== undefined && (typeof payment !== 'object' || payment === null || Array.isArray(payment)))
    return refusal(refused('INVALID_PAYMENT', { error: `_meta["${X402_PAYMENT_META}"] must be an x402 PaymentPayload object.` }))
  const headers = new Headers({ 'content-type': 'application/json' })
  for (const header of ['x-real-ip', 'x-forwarded-for']) {
    const value = request.headers.get(header)
    if (value !== null) headers.set(header, value)
  }
  if (asked.idempotencyKey !== null) headers.set('idempotency-key', asked.idempotencyKey)
  if (payment) headers.set('payment-signature', encodePaymentSignatureHeader(payment as PaymentPayload))
  const url = `${new URL(request.url).origin}${PAID_DEPLOY_PATH}`
  return toolResultOf(await door.handle(new Request(url, { method: 'POST', headers, body: JSON.stringify(asked.body) })))
}

/**
 * The door's answer as a tool result. A 402 is x402's PaymentRequired (as its PAYMENT-REQUIRED header says it) with
 * the door's `ok`, `code` and `reason` beside it, also as JSON text, as x402's MCP transport asks. A settlement (its
 * PAYMENT-RESPONSE header) goes in `_meta["x402/payment-response"]`, on a credit as on a deploy. Anything else is the
 * door's body, an error unless `ok`.
 */
async function toolResultOf(response: Response): Promise<CallToolResult> {
  const body = (await response.json()) as JsonObject
  const settlement = response.headers.get('payment-response')
  const meta = settlement ? { _meta: { [X402_PAYMENT_RESPONSE_META]: decodePaymentResponseHeader(settlement) } } : {}
  const required = response.headers.get('payment-required')
  if (response.status === 402 && required) {
    const paymentRequired = {
      ...decodePaymentRequiredHeader(required),
      ok: false,
      code: body.code,
      ...(body.reason ? { reason: body.reason } : {}),
    }
    return {
      content: [{ type: 'text', text: JSON.stringify(paymentRequired) }],
      structuredContent: paymentRequired,
      isError: true,
      ...meta,
    }
  }
  if (body.ok === true) {
    const replayed = response.headers.get('idempotent-replayed') === 'true' ? ' (the first answer again: nothing was paid twice)' : ''
    return { content: [{ type: 'text', text: `${paidSummary(body)}${replayed}` }], structuredContent: body, ...meta }
  }
  // The door's words name its header; here the payment came in _meta.
  const error = typeof body.error === 'string' ? body.error.replaceAll('PAYMENT-SIGNATURE', `_meta["${X402_PAYMENT_META}"]`) : body.error
  return { ...refusal({ ...body, ok: false, error }), ...meta }
}

/** The deploy's sentence, and what paid for it. */
function paidSummary(body: JsonObject): string {
  const payment = body.payment as { payer?: string; amount?: string; transaction?: string } | undefined
  const paid = payment ? ` Paid ${payment.amount} base units by ${payment.payer} (settlement ${payment.transaction}).` : ''
  return `${agentDeployAction.tool.summarize(body)}${paid}`
}
