import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { z } from 'zod'
import {
  AGENT_CHECK_UNAVAILABLE,
  authorizeAgent,
  type DeployServicesSource,
  MISCONFIGURED,
  runAgentAction,
} from '../deploy/agentActions.js'
import { AGENT_KEY_MAX_LENGTH, createRefusalLog, refusalText } from '../deploy/agents/agentKeys.js'
import { logConfigFailure } from '../platform/config.js'
import { createEndpoint, type Endpoint } from '../platform/edge.js'
import { CORS_EXPOSED_HEADERS, readBodyBytes } from '../platform/http.js'
import { errorName, processLogger } from '../platform/log.js'
import { loadMcpOriginPolicy, type OriginPolicy, originGate } from '../platform/origins.js'
import { SERVICE_VERSION } from '../platform/version.js'
import { getControlRoomInput, searchTokensInput, summarize, TOOLS, toolInputJsonSchema } from './tools.js'

/** What the MCP server calls: the read endpoints' handlers (cache, throttling and all) and the deploy actions. */
export type McpDependencies = {
  controlRoom: (request: Request) => Response | Promise<Response>
  tokenSearch: (request: Request) => Response | Promise<Response>
  deploy: DeployServicesSource
  /** Which browser origins may call (default: from the environment once, {@link loadMcpOriginPolicy}). */
  origins?: () => OriginPolicy
}

/** Largest JSON-RPC body accepted. */
export const MCP_BODY_LIMIT_BYTES = 64 * 1024

const INSTRUCTIONS =
  'Live market data for Base (chain 8453) and B20 token deploys signed by the service. get_control_room and search_tokens need no key. ' +
  'deploy_token, get_deploy_receipt, list_deploys, list_events and redeliver_event need the agent key on the HTTP request (X-Service-Key, or Authorization: Bearer <key>). ' +
  'Deploy with dryRun: true first; after a deploy, call get_deploy_receipt with waitSeconds to learn the token address. Failures are tool results with isError and a code.'

const MCP_ALLOWED_HEADERS = [
  'Content-Type',
  'Accept',
  'Authorization',
  'X-Service-Key',
  'Mcp-Protocol-Version',
  'Mcp-Session-Id',
  'Last-Event-ID',
]

/** The agent key of a request: `X-Service-Key`, else `Authorization: Bearer <key>`. */
export function presentedAgentKey(request: Request): string | null {
  const header = request.headers.get('x-service-key')
  if (header) return header
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1]
  return bearer && bearer.length <= AGENT_KEY_MAX_LENGTH ? bearer : null
}

/** A tool result: the JSON the HTTP API answers as `structuredContent`, a short text, and `isError` for failures. */
function toolResult(body: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: body, ...(body.ok === false ? { isError: true } : {}) }
}

const failed = (code: string, error: string, extra: Record<string, unknown> = {}) =>
  toolResult({ ok: false, error, code, ...extra }, `${code}: ${error}`)

/** Problems of arguments that failed a read tool's schema, in the API's `details` shape. */
function invalidArguments(error: z.ZodError): CallToolResult {
  const details = error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ field: key, reason: 'is not a known field' }))
      : [{ field: issue.path.map(String).join('.') || 'arguments', reason: issue.message }],
  )
  return failed('INVALID_ARGUMENTS', 'The tool arguments are invalid; see details.', { details })
}

/** A JSON object as a tool or handler answered it. */
type JsonObject = Record<string, unknown>

/** The HTTP body's field names the tools spell otherwise (`tx_hash`, `event_id`), as problem details name them. */
const TOOL_FIELD_NAMES: Record<string, string> = { tx_hash: 'txHash', event_id: 'eventId' }

/** Maps the HTTP body's field names in problem details back to the tool's own. */
const renameBodyFields = (body: Record<string, unknown>) =>
  Array.isArray(body.details)
    ? {
        ...body,
        details: body.details.map((d: { field: string; reason: string }) =>
          TOOL_FIELD_NAMES[d.field] ? { ...d, field: TOOL_FIELD_NAMES[d.field]! } : d,
        ),
      }
    : body

/** Parameters of one tool call. */
type CallParameters = {
  name: string
  args: Record<string, unknown>
  request: Request
  dependencies: McpDependencies
  logRefusal: ReturnType<typeof createRefusalLog>
}

async function callTool({ name, args, request, dependencies, logRefusal }: CallParameters): Promise<CallToolResult> {
  const tool = TOOLS.find((t) => t.name === name)
  if (!tool) return failed('UNKNOWN_TOOL', `There is no tool named ${JSON.stringify(name.slice(0, 64))}.`)
  const origin = new URL(request.url).origin
  // The read tools go through the read handlers, so the cache and the per-client search limit apply as over HTTP.
  const forwarded = new Headers()
  for (const header of ['x-real-ip', 'x-forwarded-for']) {
    const value = request.headers.get(header)
    if (value !== null) forwarded.set(header, value)
  }
  if (tool.name === 'get_control_room') {
    const parsed = getControlRoomInput.safeParse(args)
    if (!parsed.success) return invalidArguments(parsed.error)
    const body = (await (
      await dependencies.controlRoom(new Request(`${origin}/api/control-room`, { headers: forwarded }))
    ).json()) as JsonObject
    if (body.ok === false || !Array.isArray(body.liveActivity))
      return toolResult({ ok: false, ...body }, summarize(tool.name, { ok: false, ...body }))
    const room = { ...body, liveActivity: body.liveActivity.slice(0, parsed.data.limit ?? 20) }
    return toolResult(room, summarize(tool.name, room))
  }
  if (tool.name === 'search_tokens') {
    const parsed = searchTokensInput.safeParse(args)
    if (!parsed.success) return invalidArguments(parsed.error)
    const response = await dependencies.tokenSearch(
      new Request(`${origin}/api/token-search?q=${encodeURIComponent(parsed.data.query)}`, { headers: forwarded }),
    )
    const body = (await response.json()) as JsonObject
    // A throttled call says when to come back, in seconds, as the HTTP answer's Retry-After does (and its text too).
    const retryAfter = response.status === 429 ? { retryAfterSeconds: Number(response.headers.get('retry-after')) } : {}
    const result = response.ok ? body : { ok: false, ...body, ...retryAfter }
    return toolResult(result, summarize(tool.name, result))
  }

  // The agent tools: the key is checked before anything else, exactly as on /api/b20-skill.
  const presented = presentedAgentKey(request)
  const agent = await authorizeAgent(dependencies.deploy, presented, 'mcp')
  if (agent.kind === 'misconfigured') return toolResult(MISCONFIGURED.body, summarize(tool.name, MISCONFIGURED.body))
  if (agent.kind === 'unavailable') return toolResult(AGENT_CHECK_UNAVAILABLE.body, summarize(tool.name, AGENT_CHECK_UNAVAILABLE.body))
  if (agent.kind === 'refused') {
    logRefusal({ endpoint: 'mcp', presented, reason: agent.reason })
    return failed('FORBIDDEN', `The agent key (X-Service-Key or Authorization: Bearer) is ${refusalText(agent.reason)}.`)
  }
  let body: Record<string, unknown>
  let idempotencyKey: string | null = null
  if (tool.name === 'deploy_token') {
    const { idempotencyKey: key, ...fields } = args
    if (key !== undefined && typeof key !== 'string') {
      return failed('INVALID_INTENT', 'The deploy intent is invalid; see details.', {
        details: [{ field: 'idempotencyKey', reason: 'must be 1 to 128 visible ASCII characters' }],
      })
    }
    idempotencyKey = key ?? null
    body = { ...fields, action: 'agent_deploy' }
  } else if (tool.name === 'get_deploy_receipt') {
    const { txHash, ...rest } = args
    body = { ...rest, ...(txHash !== undefined ? { tx_hash: txHash } : {}), action: 'receipt' }
  } else if (tool.name === 'redeliver_event') {
    const { eventId, ...rest } = args
    body = { ...rest, ...(eventId !== undefined ? { event_id: eventId } : {}), action: 'redeliver' }
  } else {
    body = { ...args, action: tool.name === 'list_events' ? 'list_events' : 'list_deploys' }
  }
  const answer = await runAgentAction({
    source: dependencies.deploy,
    agentDigest: agent.digest,
    agentDailyCap: agent.dailyCap,
    body,
    idempotencyKey,
  })
  const result = renameBodyFields(answer.body)
  return toolResult(result, summarize(tool.name, result))
}

let toolList: ReturnType<typeof buildToolList> | undefined
const buildToolList = () =>
  TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toolInputJsonSchema(tool),
    annotations: { title: tool.title, ...tool.annotations },
  }))
/** The tools as `tools/list` answers them: their JSON Schemas are generated once per instance, not per request. */
const listedTools = () => (toolList ??= buildToolList())

/** One stateless MCP server for one HTTP request: the tools, answering through `dependencies`. */
function createServer(request: Request, dependencies: McpDependencies, logRefusal: ReturnType<typeof createRefusalLog>): Server {
  const server = new Server(
    { name: 'base-control-room', version: SERVICE_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  )
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listedTools() }))
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    try {
      return await callTool({ name: params.name, args: params.arguments ?? {}, request, dependencies, logRefusal })
    } catch (error) {
      processLogger().error('mcp_tool_failed', { tool: params.name.slice(0, 64), error: errorName(error) })
      return failed('INTERNAL', 'The tool failed unexpectedly; nothing further was done.')
    }
  })
  return server
}

/**
 * The `/api/mcp` endpoint: Model Context Protocol over Streamable HTTP, stateless (a new server per request, JSON
 * answers, no session), which fits serverless functions. The Origin is judged first (MCP transport security, against
 * DNS rebinding): a browser page from an origin that is not allowed is refused before any tool runs. Stateless: no
 * server-to-client stream (GET), no session to end (DELETE); POST alone is served.
 */
export function createMcpEndpoint(dependencies: McpDependencies): Endpoint {
  let logRefusal: ReturnType<typeof createRefusalLog> | undefined
  const gate = originGate({
    policy: dependencies.origins ?? (() => loadMcpOriginPolicy(process.env)),
    allowMethods: ['POST', 'OPTIONS'],
    allowHeaders: MCP_ALLOWED_HEADERS,
    exposeHeaders: CORS_EXPOSED_HEADERS,
    refused: (origin) =>
      mcpAnswer(403, {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32000,
          message: `Origin ${origin} may not call this MCP server (the operator can allow it in MCP_ALLOWED_ORIGINS).`,
        },
      }),
    misconfigured: (error) => {
      logConfigFailure('mcp', error)
      return mcpAnswer(500, { ok: false, error: 'The service is misconfigured; the operator has been told.', code: 'CONFIG_INVALID' })
    },
  })
  const handler = async (request: Request): Promise<Response> => {
    // One message per request: MCP dropped JSON-RPC batching in 2025-06-18, and a batch of a hundred tool calls would
    // cost a hundred calls' store commands for one request.
    const peeked = await peekJsonRpc(request)
    if (peeked.kind === 'too-large')
      return mcpAnswer(413, jsonRpcError(-32600, `The request body is larger than ${MCP_BODY_LIMIT_BYTES} bytes.`))
    if (peeked.kind === 'batch')
      return mcpAnswer(400, jsonRpcError(-32600, 'Batches are not accepted: send one JSON-RPC message per request (MCP 2025-06-18).'))
    logRefusal ??= createRefusalLog({ logger: dependencies.deploy.logger() })
    const server = createServer(peeked.request, dependencies, logRefusal)
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MCP_BODY_LIMIT_BYTES,
    })
    try {
      await server.connect(transport)
      const response = await transport.handleRequest(peeked.request)
      const body = response.body ? await response.arrayBuffer() : null
      const headers = new Headers(response.headers)
      headers.set('cache-control', 'no-store')
      return new Response(body, { status: response.status, headers })
    } finally {
      await server.close().catch(() => undefined)
    }
  }
  return createEndpoint({ methods: ['POST'], handler, cors: gate })
}

/** A JSON-RPC error with no id (the request was refused whole). */
const jsonRpcError = (code: number, message: string) => ({ jsonrpc: '2.0', id: null, error: { code, message } })

/** What the body of a POST holds, read once (at most {@link MCP_BODY_LIMIT_BYTES}); `request` carries it on. */
type PeekedJsonRpc = { kind: 'one'; request: Request } | { kind: 'batch' } | { kind: 'too-large' }

/** Reads the body to refuse a batch before the transport sees it; anything else goes on unchanged. */
async function peekJsonRpc(request: Request): Promise<PeekedJsonRpc> {
  if (request.method !== 'POST') return { kind: 'one', request }
  const read = await readBodyBytes(request, MCP_BODY_LIMIT_BYTES)
  if (!read.ok) return { kind: 'too-large' }
  if (/^\s*\[/.test(read.bytes.toString('utf8', 0, Math.min(read.bytes.length, 64)))) return { kind: 'batch' }
  return { kind: 'one', request: new Request(request.url, { method: 'POST', headers: request.headers, body: new Uint8Array(read.bytes) }) }
}

/** A JSON answer of the MCP endpoint that names no origin (a refusal, a broken configuration). */
function mcpAnswer(status: number, body: object): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', vary: 'Origin' },
  })
}
