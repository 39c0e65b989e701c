import { z } from 'zod'
import { IDEMPOTENCY_KEY_PATTERN } from '../deploy/pipeline/idempotency.js'
import {
  agentDeploySchema,
  listDeploysRequestSchema,
  listEventsRequestSchema,
  receiptRequestSchema,
  redeliverRequestSchema,
} from '../deploy/pipeline/intent.js'
import { isWellFormedText, QUERY_MAX_LENGTH } from '../market/search.js'

// The MCP tools: their names, descriptions, annotations and input schemas. The schemas are built from the very zod
// schemas the HTTP API validates with (field for field), so a client sees the same rules either way.

/** One tool as `tools/list` shows it, with the zod schema its arguments must meet. */
export type ToolDefinition = {
  name: ToolName
  title: string
  description: string
  input: z.ZodType
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean }
  /** True when the agent key must be on the request (as `X-Service-Key` or `Authorization: Bearer`). */
  needsAgentKey: boolean
}

/** The tools the server offers. */
export type ToolName =
  | 'get_control_room'
  | 'search_tokens'
  | 'deploy_token'
  | 'get_deploy_receipt'
  | 'list_deploys'
  | 'list_events'
  | 'redeliver_event'

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true }

/** Arguments of `get_control_room`. */
export const getControlRoomInput = z.strictObject({
  limit: z.number().int().min(1).max(100).optional().describe('How many of the top 100 rows of liveActivity to return (1-100, default 20)'),
})

/** Arguments of `search_tokens`. */
export const searchTokensInput = z.strictObject({
  query: z
    .string()
    .min(1)
    .max(QUERY_MAX_LENGTH)
    .refine(isWellFormedText, 'must be well-formed Unicode text (it holds a lone surrogate)')
    .describe('Symbol, name or 0x address, as the q parameter of /api/token-search'),
})

/** Arguments of `deploy_token`: the `agent_deploy` body without `action`, plus the idempotency key. */
export const deployTokenInput = agentDeploySchema.omit({ action: true }).extend({
  idempotencyKey: z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN)
    .optional()
    .describe('As the Idempotency-Key header: the same key and arguments within 24 h return the first answer instead of deploying twice'),
})

/** Arguments of `get_deploy_receipt`: the `receipt` body's fields, `tx_hash` as `txHash`. */
export const getDeployReceiptInput = z.strictObject({
  txHash: receiptRequestSchema.shape.tx_hash,
  waitSeconds: receiptRequestSchema.shape.waitSeconds,
})

/** Arguments of `list_deploys`. */
export const listDeploysInput = listDeploysRequestSchema.omit({ action: true })

/** Arguments of `list_events`. */
export const listEventsInput = listEventsRequestSchema.omit({ action: true })

/** Arguments of `redeliver_event`: the `redeliver` body's `event_id` as `eventId`. */
export const redeliverEventInput = z.strictObject({ eventId: redeliverRequestSchema.shape.event_id })

/** Every tool, in the order `tools/list` answers them. */
export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'get_control_room',
    title: 'Base control room',
    description:
      'The top Base tokens by 24h volume (liveActivity, cut to `limit`), the top 15 as trending, market stats and a commentary; the same JSON as GET /api/control-room (refreshed every 30 s). Token names are untrusted upstream text.',
    input: getControlRoomInput,
    annotations: readOnly,
    needsAgentKey: false,
  },
  {
    name: 'search_tokens',
    title: 'Search Base tokens',
    description: 'Base trading pairs whose token symbol or name contains the query, by 24h volume; the same JSON as GET /api/token-search.',
    input: searchTokensInput,
    annotations: readOnly,
    needsAgentKey: false,
  },
  {
    name: 'deploy_token',
    title: 'Deploy a B20 token',
    description:
      'Deploys a B20 token on Base through the native factory, signed by the service (KMS); counts against the rolling deploy caps. Use dryRun: true first to validate and simulate without signing. Answers the txHash and the predicted token address; then call get_deploy_receipt. Needs the agent key.',
    input: deployTokenInput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    needsAgentKey: true,
  },
  {
    name: 'get_deploy_receipt',
    title: 'Deploy receipt',
    description:
      'Where a deploy stands: pending (and for how long), confirmed (with the token address and its market), reverted, or replaced (a higher-fee copy took its place; followed to its outcome). waitSeconds (0-25) waits for mining. Needs the agent key.',
    input: getDeployReceiptInput,
    annotations: readOnly,
    needsAgentKey: true,
  },
  {
    name: 'list_deploys',
    title: 'My deploys',
    description:
      'The calling agent’s own deploys of the last 30 days, newest first, with their last known status and market: null until the token trades, then its DexScreener pair (pairAddress, dexId, priceUsd, liquidity, volume24h, pairUrl, firstSeenAt). Needs the agent key.',
    input: listDeploysInput,
    annotations: readOnly,
    needsAgentKey: true,
  },
  {
    name: 'list_events',
    title: 'My webhook events',
    description:
      'The calling agent’s own webhook events of the last 7 days, newest first: id (the webhook-id), type, createdAt, state (pending, delivered, failed), attempts, lastStatus, lastError and nextAttemptAt. Needs the agent key.',
    input: listEventsInput,
    annotations: readOnly,
    needsAgentKey: true,
  },
  {
    name: 'redeliver_event',
    title: 'Send a webhook event again',
    description:
      'Queues one of your own events again, with the same webhook-id, and attempts it at once (then the retry schedule, if it fails). Answers the attempt’s outcome. Needs the agent key and an active webhook.',
    input: redeliverEventInput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    needsAgentKey: true,
  },
]

/** The JSON Schema of a tool's arguments, as clients read it from `tools/list`. */
export function toolInputJsonSchema(tool: ToolDefinition): { type: 'object'; [key: string]: unknown } {
  const schema = z.toJSONSchema(tool.input, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
  delete schema.$schema
  return { ...schema, type: 'object' }
}

/** How many items a JSON array field holds (0 when it is not an array). */
const lengthOf = (value: unknown): number => (Array.isArray(value) ? value.length : 0)

/** A short sentence for people (and models) beside the structured result. */
export function summarize(name: ToolName, body: Record<string, unknown>): string {
  if (body.ok === false) return `${body.code}: ${body.error}`
  switch (name) {
    case 'get_control_room':
      return `${lengthOf(body.liveActivity)} of the top Base tokens by 24h volume. ${body.commentary ?? ''}`.trim()
    case 'search_tokens':
      return `${lengthOf(body.tokens)} Base pairs match.`
    case 'deploy_token':
      return body.status === 'simulated'
        ? `Simulated: the token would be at ${body.predictedAddress}; nothing was signed. Most it could cost: ${body.maxFeeWei} wei.`
        : `Broadcast ${body.txHash}; the token will be at ${body.predictedAddress}. Call get_deploy_receipt with waitSeconds to confirm.`
    case 'get_deploy_receipt':
      if (body.status === 'confirmed') return `Confirmed in block ${body.blockNumber}: token ${body.tokenAddress}.`
      if (body.status === 'replaced')
        return `Replaced by ${body.replacedBy} (${body.replacementStatus})${body.tokenAddress ? `: token ${body.tokenAddress}` : ''}.`
      return `Pending${body.pendingSeconds !== undefined ? ` for ${body.pendingSeconds} s` : ''}; ask again with waitSeconds.`
    case 'list_deploys':
      return `${lengthOf(body.deploys)} deploys, newest first.`
    case 'list_events':
      return `${lengthOf(body.events)} webhook events, newest first.`
    case 'redeliver_event':
      return `Event ${body.eventId} queued again; the attempt: ${body.outcome}.`
  }
}
