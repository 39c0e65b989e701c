import { z } from 'zod'
import type { AgentAction } from '../deploy/actions/action.js'
import { AGENT_ACTIONS } from '../deploy/actions/registry.js'
import { isWellFormedText, QUERY_MAX_LENGTH } from '../market/search.js'

// The MCP tools: the two read tools (defined here, over the read endpoints) and one tool per agent action (from the
// actions' registry, each built from the very zod schema the HTTP API validates with), so a client sees the same
// rules either way.

/** One tool as `tools/list` shows it, with the zod schema its arguments must meet. */
export type ToolDefinition = {
  name: string
  title: string
  description: string
  input: z.ZodType
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean }
  /** The agent action the tool runs (it then needs the agent key, as `X-Service-Key` or `Authorization: Bearer`). */
  action?: AgentAction
}

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

/** Every tool, in the order `tools/list` answers them: the read tools, then the agent actions'. */
export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'get_control_room',
    title: 'Base control room',
    description:
      'The top Base tokens by 24h volume (liveActivity, cut to `limit`), the top 15 as trending, market stats and a commentary; the same JSON as GET /api/control-room (refreshed every 30 s). Token names are untrusted upstream text.',
    input: getControlRoomInput,
    annotations: readOnly,
  },
  {
    name: 'search_tokens',
    title: 'Search Base tokens',
    description: 'Base trading pairs whose token symbol or name contains the query, by 24h volume; the same JSON as GET /api/token-search.',
    input: searchTokensInput,
    annotations: readOnly,
  },
  ...AGENT_ACTIONS.map(
    (action): ToolDefinition => ({
      name: action.tool.name,
      title: action.tool.title,
      description: `${action.summary} ${action.tool.description}`,
      input: action.tool.input,
      annotations: action.tool.annotations,
      action,
    }),
  ),
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
export function summarize(tool: ToolDefinition, body: Record<string, unknown>): string {
  if (body.ok === false) return `${body.code}: ${body.error}`
  if (tool.action) return tool.action.tool.summarize(body)
  if (tool.name === 'get_control_room')
    return `${lengthOf(body.liveActivity)} of the top Base tokens by 24h volume. ${body.commentary ?? ''}`.trim()
  return `${lengthOf(body.tokens)} Base pairs match.`
}
