import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { type AgentAction, agentDoorErrors } from '../deploy/actions/action.js'
import { type AgentKeyVariables, type AgentVerdict, agentKeyMiddleware } from '../deploy/actions/agentKey.js'
import { throttleKeylessCaller } from '../deploy/actions/keylessCaller.js'
import { runAgentAction } from '../deploy/actions/registry.js'
import type { DeployServicesSource } from '../deploy/instance.js'
import { createEndpoint, type Endpoint } from '../platform/edge.js'
import { type ErrorContract, errorAnswerOf } from '../platform/errorAnswer.js'
import { CORS_EXPOSED_HEADERS, readBodyBytes } from '../platform/http.js'
import { loadMcpOriginPolicy, type OriginPolicy, originGate } from '../platform/origins.js'
import { perInstance } from '../platform/perInstance.js'
import { refused } from '../platform/result.js'
import { SERVICE_VERSION } from '../platform/version.js'
import { callPaidDeployTool, DEPLOY_TOKEN_PAID_TOOL, type PaidDeployDoor, X402_PAYMENT_META } from './paidTool.js'
import { failed, invalidArguments, renameBodyFields, toolResult } from './toolResults.js'
import {
  type JsonObject,
  type ReadEndpointName,
  summarize,
  type ToolDefinition,
  toolInputJsonSchema,
  toolNamesOf,
  toolsOf,
} from './tools.js'

/** What the MCP server calls: the read endpoints' handlers (cache, throttling and all) and the deploy actions. */
export type McpSource = Record<ReadEndpointName, (request: Request) => Response | Promise<Response>> & {
  deploy: DeployServicesSource
  /** Which browser origins may call (default: from the environment once, {@link loadMcpOriginPolicy}). */
  origins?: () => OriginPolicy
  /** The agent actions offered as tools (default: the registry's). */
  actions?: readonly AgentAction[]
  /** The paid door, whose deploy is the `deploy_token_paid` tool while paid deploys are on (none: never offered). */
  paidDeploy?: PaidDeployDoor
}

/** Largest JSON-RPC body accepted. */
export const MCP_BODY_LIMIT_BYTES = 64 * 1024

/** `a, b and c`. */
const listed = (names: readonly string[]) => (names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names.join(''))

/** The server's instructions, naming the tools from their list, so a new action's tool is named too. */
function instructionsOf(tools: readonly ToolDefinition[]): string {
  const names = toolNamesOf(tools)
  const paid =
    names.paid.length > 0
      ? `${listed(names.paid)} needs no key but a payment per call with x402 (USDC): called without one it answers isError with the x402 PaymentRequired in structuredContent; call it again with the same arguments and the signed PaymentPayload in _meta["${X402_PAYMENT_META}"]. `
      : ''
  return (
    `Live market data for Base (chain 8453) and B20 token deploys signed by the service. ${listed(names.keyless)} need no key. ` +
    `${listed(names.needsAgentKey)} need the agent key on the HTTP request (X-Service-Key, or Authorization: Bearer <key>). ${paid}` +
    'Deploy with dryRun: true first; after a deploy, call get_deploy_receipt with waitSeconds to learn the token address. Failures are tool results with isError and a code.'
  )
}

/** The tools an endpoint offers, as `tools/list` answers them and as calls find them, with the server's instructions. */
type ToolSet = { tools: readonly ToolDefinition[]; listed: () => Tool[]; instructions: string }

/** The endpoint's tools; their JSON Schemas are generated on the first `tools/list`, then kept. */
function toolSetOf(tools: readonly ToolDefinition[]): ToolSet {
  return {
    tools,
    instructions: instructionsOf(tools),
    listed: perInstance(() =>
      tools.map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: toolInputJsonSchema(tool),
        annotations: { title: tool.title, ...tool.annotations },
      })),
    ),
  }
}

const MCP_ALLOWED_HEADERS = [
  'Content-Type',
  'Accept',
  'Authorization',
  'X-Service-Key',
  'Mcp-Protocol-Version',
  'Mcp-Session-Id',
  'Last-Event-ID',
]

/** How the MCP endpoint answers an error, over HTTP and as a tool's result: as an agent door, logged as `mcp_tool_failed`. */
const MCP_ERRORS: ErrorContract = { ...agentDoorErrors('mcp'), unexpectedEvent: 'mcp_tool_failed' }

/** Parameters of one tool call. */
type CallParameters = {
  name: string
  args: Record<string, unknown>
  request: Request
  /** The call's `params._meta` (an x402 payment comes there). */
  meta: Record<string, unknown> | undefined
  dependencies: McpSource
  /** The tools the endpoint offers. */
  tools: readonly ToolDefinition[]
  /** The verdict on the request's agent key, asked only by a tool that needs it (the agent-key middleware). */
  agentKey: () => Promise<AgentVerdict>
  /** Whether the request presented a key at all (a public action's tool answers without one). */
  keyPresented: boolean
}

async function callTool({
  name,
  args,
  request,
  meta,
  dependencies,
  tools,
  agentKey,
  keyPresented,
}: CallParameters): Promise<CallToolResult> {
  const tool = tools.find((t) => t.name === name)
  if (!tool) return failed('UNKNOWN_TOOL', `There is no tool named ${JSON.stringify(name.slice(0, 64))}.`)
  if (tool.read) return callReadTool(tool, tool.read, args, request, dependencies)
  // The paid tool asks for no key: the payment is its way in, judged by the paid door.
  if (tool.paid && dependencies.paidDeploy) return callPaidDeployTool({ args, meta, request, door: dependencies.paidDeploy })
  if (!tool.action) return failed('UNKNOWN_TOOL', 'This tool has nothing to run.')
  // An agent tool: the key first, exactly as on /api/b20-skill, then the action through the same registry. Without a
  // key, a public action's tool answers as the HTTP door does without one: counted per client.
  const keyless = !keyPresented && tool.action.access === 'public'
  const verdict = keyless ? null : await agentKey()
  if (verdict && !verdict.ok) return toolResult(verdict.answer.body, summarize(tool, verdict.answer.body))
  const asked = tool.action.tool.toRequest(args)
  if (!asked.ok) return toolResult(asked, summarize(tool, asked))
  if (keyless) {
    const share = await throttleKeylessCaller(dependencies.deploy, request)
    if (!share.ok) return toolResult(share.answer.body, summarize(tool, share.answer.body))
  }
  const { body, idempotencyKey } = asked
  const answer = await runAgentAction({
    source: dependencies.deploy,
    agent: verdict?.agent ?? null,
    body,
    idempotencyKey,
    actions: dependencies.actions,
    door: 'mcp',
  })
  const result = renameBodyFields(answer.body, tool.action.tool.renamed)
  return toolResult(result, summarize(tool, result))
}

/** The read tools go through the read handlers, so the cache and the per-client limits apply as over HTTP. */
async function callReadTool(
  tool: ToolDefinition,
  read: NonNullable<ToolDefinition['read']>,
  args: Record<string, unknown>,
  request: Request,
  dependencies: McpSource,
) {
  const parsed = tool.input.safeParse(args)
  if (!parsed.success) return invalidArguments(parsed.error)
  const forwarded = new Headers()
  for (const header of ['x-real-ip', 'x-forwarded-for']) {
    const value = request.headers.get(header)
    if (value !== null) forwarded.set(header, value)
  }
  const url = `${new URL(request.url).origin}${read.path(parsed.data)}`
  const response = await dependencies[read.endpoint](new Request(url, { headers: forwarded }))
  const body = (await response.json()) as JsonObject
  // A throttled call says when to come back, in seconds, as the HTTP answer's Retry-After does (and its text too).
  const retryAfter = response.status === 429 ? { retryAfterSeconds: Number(response.headers.get('retry-after')) } : {}
  // The read endpoints' error bodies carry no `ok`: the tool's result does, as every refusal; the body's code is kept.
  const result =
    response.ok && body.ok !== false ? (read.shape?.(body, parsed.data) ?? body) : refused(String(body.code), { ...body, ...retryAfter })
  return toolResult(result, summarize(tool, result))
}

/** One stateless MCP server for one HTTP request: the tools, answering through `dependencies`. */
function createServer(request: Request, dependencies: McpSource, toolSet: ToolSet, { agentKey, keyPresented }: AgentKeyVariables): Server {
  const server = new Server(
    { name: 'base-control-room', version: SERVICE_VERSION },
    { capabilities: { tools: {} }, instructions: toolSet.instructions },
  )
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolSet.listed() }))
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    try {
      const call = {
        name: params.name,
        args: params.arguments ?? {},
        request,
        meta: params._meta,
        dependencies,
        tools: toolSet.tools,
        agentKey,
        keyPresented,
      }
      return await callTool(call)
    } catch (error) {
      // A tool's failure is its result, answered by the endpoint's one mapping of errors, as its HTTP answer would be.
      const { body } = errorAnswerOf(error, MCP_ERRORS)
      return toolResult(body, `${body.code}: ${body.error}`)
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
export function createMcpEndpoint(dependencies: McpSource): Endpoint {
  const tools = toolsOf(dependencies.actions)
  // Two tool sets, one without the paid tool and one with it: which one a request sees is the paid door's settings'.
  const toolSets = { plain: toolSetOf(tools), paid: toolSetOf([...tools, DEPLOY_TOKEN_PAID_TOOL]) }
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
  })
  const handler = async (request: Request, key: AgentKeyVariables): Promise<Response> => {
    // One message per request: MCP dropped JSON-RPC batching in 2025-06-18, and a batch of a hundred tool calls would
    // cost a hundred calls' store commands for one request.
    const peeked = await peekJsonRpc(request)
    if (peeked.kind === 'too-large')
      return mcpAnswer(413, jsonRpcError(-32600, `The request body is larger than ${MCP_BODY_LIMIT_BYTES} bytes.`))
    if (peeked.kind === 'batch')
      return mcpAnswer(400, jsonRpcError(-32600, 'Batches are not accepted: send one JSON-RPC message per request (MCP 2025-06-18).'))
    const paid = (await dependencies.paidDeploy?.offered()) === true
    const server = createServer(peeked.request, dependencies, paid ? toolSets.paid : toolSets.plain, key)
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
  return createEndpoint<AgentKeyVariables>({
    methods: ['POST'],
    handler,
    cors: gate,
    errors: MCP_ERRORS,
    middleware: [agentKeyMiddleware({ source: dependencies.deploy, door: 'mcp' })],
  })
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
