import { z } from 'zod'
import { agentDeploySchema, listDeploysRequestSchema, receiptRequestSchema } from '../deploy/pipeline/intent.js'
import {
  deployBroadcastSchema,
  deployFailureSchema,
  deploySimulatedSchema,
  listDeploysSchema,
  receiptConfirmedSchema,
  receiptPendingSchema,
  receiptReplacedSchema,
  skillHttpErrorSchema,
} from '../deploy/responses.js'
import { healthSchema } from '../health/schema.js'
import { QUERY_MAX_LENGTH } from '../market/search.js'
import {
  controlRoomSchema,
  marketHistorySchema,
  statsSchema,
  tokenHistorySchema,
  tokenSchema,
  tokenSearchResultSchema,
} from '../market/types.js'
import { errorBodySchema } from '../platform/http.js'
import { SERVICE_VERSION } from '../platform/version.js'
import { tickSummarySchema } from '../tick/schema.js'

type Json = Record<string, unknown>

/** The zod schemas the handlers use, under their component names. */
const COMPONENTS: Record<string, z.ZodType> = {
  Token: tokenSchema,
  Stats: statsSchema,
  ControlRoom: controlRoomSchema,
  TokenSearchResult: tokenSearchResultSchema,
  TokenHistory: tokenHistorySchema,
  MarketHistory: marketHistorySchema,
  Error: errorBodySchema,
  AgentDeployRequest: agentDeploySchema,
  ReceiptRequest: receiptRequestSchema,
  ListDeploysRequest: listDeploysRequestSchema,
  DeployBroadcast: deployBroadcastSchema,
  DeploySimulated: deploySimulatedSchema,
  ReceiptPending: receiptPendingSchema,
  ReceiptConfirmed: receiptConfirmedSchema,
  ReceiptReplaced: receiptReplacedSchema,
  ListDeploys: listDeploysSchema,
  DeployFailure: deployFailureSchema,
  SkillHttpError: skillHttpErrorSchema,
  Health: healthSchema,
  TickSummary: tickSummarySchema,
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: Json, description: string) => ({ description, content: { 'application/json': { schema } } })
const error = (description: string) => json(ref('Error'), description)
const cors = { 'Access-Control-Allow-Origin': { description: 'Always *', required: true, schema: { type: 'string' } } }
const cachedHeaders = {
  ...cors,
  ETag: { description: 'Strong validator of the body; send it back in If-None-Match', required: true, schema: { type: 'string' } },
  'Cache-Control': {
    description:
      'public, max-age=<seconds left of the 30 s window, 0 when stale>, s-maxage=<same>, stale-while-revalidate=30, stale-if-error=<STALE_IF_ERROR_SECONDS>',
    required: true,
    schema: { type: 'string' },
  },
  'X-Data-State': {
    description:
      'fresh: within the 30 s window. stale: the last good body, served at once while a refresh runs or while the upstream fails (at most STALE_IF_ERROR_SECONDS old)',
    required: true,
    schema: { type: 'string', enum: ['fresh', 'stale'] },
  },
  'X-Data-Age': {
    description: 'Seconds since the data was fetched from the upstream',
    required: true,
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  'X-Data-Source': {
    description: 'The upstream that served the data: dexscreener, or geckoterminal when DexScreener failed',
    required: false,
    schema: { type: 'string', enum: ['dexscreener', 'geckoterminal'] },
  },
}
const retryAfter = {
  ...cors,
  'Retry-After': { description: 'Seconds after which a retry is worth it', required: true, schema: { type: 'string' } },
}
const redirect = {
  description: 'The request reached the edge as plain HTTP: the same URL over https',
  headers: { Location: { required: true, schema: { type: 'string' } } },
}
const preflight = {
  summary: 'CORS preflight',
  responses: { '204': { description: 'Allowed methods and headers', headers: cors }, '308': redirect },
}
const notAllowed = {
  ...error('Method not allowed'),
  headers: { ...cors, Allow: { description: 'The methods this path takes', required: true, schema: { type: 'string' } } },
}

/** The tick's answers, the same for Vercel Cron's GET and QStash's POST. */
const tickResponses = {
  '200': { ...json(ref('TickSummary'), 'What the tick did (ran false: another tick had this interval)'), headers: cors },
  '308': redirect,
  '401': { ...error('Neither the cron secret nor a valid QStash signature (UNAUTHORIZED)'), headers: cors },
  '405': notAllowed,
  '413': { ...error('The body is over 64 KB (BODY_TOO_LARGE)'), headers: cors },
  '500': { ...error('The service is misconfigured (CONFIG_INVALID)'), headers: cors },
}

function componentSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string }>()
  for (const [id, schema] of Object.entries(COMPONENTS)) registry.add(schema, { id })
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
  }) as {
    schemas: Record<string, Json>
  }
  for (const schema of Object.values(schemas)) {
    delete schema.$schema
    delete schema.$id
  }
  // Requests are what a client sends: input shapes, which may omit fields that have defaults.
  for (const name of ['AgentDeployRequest', 'ReceiptRequest', 'ListDeploysRequest']) {
    const input = z.toJSONSchema(COMPONENTS[name]!, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Json
    delete input.$schema
    schemas[name] = input
  }
  return schemas
}

/** The documents's tags: what a reader (or a generated client) groups operations by. */
const TAGS = [
  { name: 'Market data', description: 'Live Base market data: no key, CORS-open, cached 30 s with ETags' },
  { name: 'Agents', description: 'B20 token deploys for allowlisted agents (X-Service-Key), over HTTP or MCP' },
  { name: 'Service', description: 'Health and the documents that describe the service' },
]

/** Each path's tag and a name for the operationId of its CORS preflight. */
const PATH_INFO: Record<string, { tag: string; name: string }> = {
  '/api/control-room': { tag: 'Market data', name: 'controlRoom' },
  '/api/token-search': { tag: 'Market data', name: 'tokenSearch' },
  '/api/token-history': { tag: 'Market data', name: 'tokenHistory' },
  '/api/market-history': { tag: 'Market data', name: 'marketHistory' },
  '/api/b20-skill': { tag: 'Agents', name: 'b20Skill' },
  '/api/mcp': { tag: 'Agents', name: 'mcp' },
  '/api/health': { tag: 'Service', name: 'health' },
  '/api/openapi': { tag: 'Service', name: 'openApi' },
  '/api/skill': { tag: 'Service', name: 'skill' },
  '/api/llms': { tag: 'Service', name: 'llmsTxt' },
  '/api/tick': { tag: 'Service', name: 'tick' },
}

/** Longer words for each operation, beside its one-line summary. */
const DESCRIPTIONS: Record<string, string> = {
  getControlRoom:
    'The top 100 Base tokens by 24h volume (liveActivity), the first 15 (trending), market stats and a generated commentary. Cached server-side for 30 s: calls within the window get the same body; after it the last body is answered at once (X-Data-State: stale) while one refresh runs. X-Data-Age is the data age in seconds; X-Data-Source says when the GeckoTerminal failover built it.',
  searchTokens:
    'Base pairs whose base token symbol or name contains q (case-insensitive; a full 0x address matches the token address), sorted by 24h volume. Each client may search SEARCH_RATE_LIMIT_PER_MINUTE times a minute.',
  getTokenHistory:
    'One token’s points from the service’s own 5-minute snapshots of the top 100 over the last 24 hours, oldest first; the marks where it was out of the top 100 are absent.',
  getMarketHistory:
    'Everything a dashboard’s charts need in one request: the summed 24h volume of the top 100 at every 5-minute mark, and a 48-slot price line per token of the latest snapshot (null where it was not listed).',
  b20Skill:
    'One endpoint, three actions, told apart by action in the body. The agent key (X-Service-Key) is checked before anything else. agent_deploy validates, simulates, signs with KMS and broadcasts (dryRun: validate and simulate only); receipt answers pending, confirmed, reverted or replaced, waiting up to waitSeconds; list_deploys answers the calling agent’s own deploys. Domain outcomes are 200 with ok true or false and a code.',
  mcp: 'The same market data and agent actions as Model Context Protocol tools (Streamable HTTP, stateless: a new server per request, JSON answers). A browser Origin that is not allowed gets 403 before any tool runs.',
  getHealth:
    'For uptime monitors and dashboards: whether the configured store answers, the version and the data age. With the health token: every part, each probed at once under 3 s; never a secret.',
  getOpenApi: 'This OpenAPI 3.1 document, generated from the zod schemas the handlers validate with.',
  getSkill: 'The agent skill file: how an AI agent reads market data and deploys, with examples.',
  getLlmsTxt: 'The llms.txt index: what the service is and where an agent reads on.',
  runTick:
    'The service’s scheduled work, for its scheduler only: Vercel Cron (GET with Authorization: Bearer <CRON_SECRET>) or Upstash QStash (POST signed with Upstash-Signature). Refreshes the control room when older than 30 s, writes the 5-minute snapshot, backfills price lines from candles, follows unmined deploys (outcomes recorded, stuck ones replaced) and runs discovery when due. Claimed once per interval across instances; each part reports on its own.',
  runTickSigned: 'The same tick as a signed QStash POST (body of at most 64 KB; its hash and the URL are part of the signature).',
}

const malformed = error('The request is not valid HTTP (MALFORMED_REQUEST; answered by npm start, by the platform on Vercel)')

/**
 * Completes every operation as standard linters expect (Redocly recommended, Spectral spectral:oas): a tag, a
 * description, `security: []` where no key is needed, and an operationId and its 4xx answers for each CORS preflight.
 */
function completeOperations(paths: Record<string, Record<string, Json>>): Record<string, Record<string, Json>> {
  for (const [path, operations] of Object.entries(paths)) {
    const info = PATH_INFO[path]!
    for (const [method, operation] of Object.entries(operations)) {
      if (method === 'options') {
        const refusesOrigins = path === '/api/mcp'
        operations[method] = {
          ...operation,
          operationId: `${info.name}Preflight`,
          description: refusesOrigins
            ? 'CORS preflight of a browser client: for an allowed origin, the methods and headers this path takes (cached for a day); any other origin gets 403.'
            : 'CORS preflight of a browser client: the methods and headers this path takes, for any origin, cached for a day.',
          responses: {
            ...(operation.responses as Json),
            '400': malformed,
            ...(refusesOrigins ? { '403': error('A browser Origin that may not call the MCP server (see MCP_ALLOWED_ORIGINS)') } : {}),
          },
        }
      }
      const completed = operations[method]!
      completed.tags = [info.tag]
      completed.description ??= DESCRIPTIONS[completed.operationId as string]
      completed.security ??= []
    }
  }
  return paths
}

let cached: Json | undefined

/** The OpenAPI 3.1 document of the service, generated from the zod schemas the handlers use. */
export function buildOpenApiDocument(): Json {
  cached ??= {
    openapi: '3.1.0',
    info: {
      title: 'Base control room',
      version: SERVICE_VERSION,
      description:
        'Live market data for Base (chain 8453) and KMS-signed B20 token deploys for allowlisted agents. ' +
        'Token names and symbols in market data come from the upstream and are untrusted text. Agent guide: /skill.md. ' +
        'Every answer carries X-Request-Id; quote it when you report a problem.',
      contact: { name: 'The operator of this deployment' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    tags: TAGS,
    servers: [{ url: '/' }],
    // Any method a path does not list is answered 405 with an Error body and an Allow header.
    paths: completeOperations({
      '/api/control-room': {
        get: {
          operationId: 'getControlRoom',
          summary: 'Top 100 Base tokens by 24h volume, the top 15 as trending, stats and commentary (cached 30 s)',
          parameters: [{ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } }],
          responses: {
            '308': redirect,
            '200': { ...json(ref('ControlRoom'), 'The control room'), headers: cachedHeaders },
            '304': { description: 'Not modified since the ETag sent', headers: cachedHeaders },
            '405': notAllowed,
            '500': {
              ...error(
                'Both upstreams are unavailable and no body younger than STALE_IF_ERROR_SECONDS is cached (UPSTREAM_UNAVAILABLE), or the service is misconfigured (CONFIG_INVALID)',
              ),
              headers: cors,
            },
          },
        },
        options: preflight,
      },
      '/api/token-search': {
        get: {
          operationId: 'searchTokens',
          summary: 'Base pairs whose base token symbol or name contains q, by 24h volume (cached 30 s)',
          parameters: [
            {
              name: 'q',
              in: 'query',
              required: true,
              description: 'Symbol, name or 0x address; trimmed',
              schema: { type: 'string', minLength: 1, maxLength: QUERY_MAX_LENGTH },
            },
            { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
          ],
          responses: {
            '308': redirect,
            '200': { ...json(ref('TokenSearchResult'), 'Matching pairs'), headers: cachedHeaders },
            '304': { description: 'Not modified since the ETag sent', headers: cachedHeaders },
            '400': error('q is missing, blank (QUERY_REQUIRED) or longer than 64 characters (QUERY_TOO_LONG)'),
            '405': notAllowed,
            '500': error('Unexpected failure'),
            '429': {
              ...error(
                'Too many searches from this client (SEARCH_RATE_LIMIT_PER_MINUTE a minute; an IPv6 client is its /64), or the searches’ share of the service-wide upstream budget (SEARCH_UPSTREAM_REQUESTS_PER_MINUTE) is spent and the term is not cached (RATE_LIMITED)',
              ),
              headers: retryAfter,
            },
            '502': { ...error('The upstream answered with an error (UPSTREAM_ERROR)'), headers: retryAfter },
          },
        },
        options: preflight,
      },
      '/api/token-history': {
        get: {
          operationId: 'getTokenHistory',
          summary:
            'A token’s last 24 h in the top 100 (price, 24h volume, liquidity, rank) at 5-minute resolution, oldest first, from the service’s own snapshots (cached 30 s)',
          parameters: [
            {
              name: 'address',
              in: 'query',
              required: true,
              description: 'The token, 0x + 40 hex (any case)',
              schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
            },
            { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
          ],
          responses: {
            '308': redirect,
            '200': { ...json(ref('TokenHistory'), 'The series'), headers: cachedHeaders },
            '304': { description: 'Not modified since the ETag sent', headers: cachedHeaders },
            '400': error('address is missing or not a 20-byte hex address (INVALID_ADDRESS)'),
            '404': error('No snapshot of the last 24 h holds this token (UNKNOWN_TOKEN); remembered for 30 s'),
            '405': notAllowed,
            '429': {
              ...error('Too many requests from this client (TOKEN_HISTORY_RATE_LIMIT_PER_MINUTE a minute) (RATE_LIMITED)'),
              headers: retryAfter,
            },
            '500': error('Unexpected failure (INTERNAL, CONFIG_INVALID)'),
          },
        },
        options: preflight,
      },
      '/api/market-history': {
        get: {
          operationId: 'getMarketHistory',
          summary:
            'The top 100’s last 24 h in one answer: total 24h volume every 5 minutes, and a price line of 48 half-hour slots per current top-100 token (cached 30 s); empty before the first snapshot',
          parameters: [{ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } }],
          responses: {
            '308': redirect,
            '200': { ...json(ref('MarketHistory'), 'The series'), headers: cachedHeaders },
            '304': { description: 'Not modified since the ETag sent', headers: cachedHeaders },
            '405': notAllowed,
            '500': error('Unexpected failure (INTERNAL, CONFIG_INVALID)'),
          },
        },
        options: preflight,
      },
      '/api/b20-skill': {
        post: {
          operationId: 'b20Skill',
          summary:
            'Deploy a B20 token (action agent_deploy), read a deploy receipt, waiting up to 25 s (action receipt), or list your deploys (action list_deploys)',
          security: [{ serviceKey: [] }],
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              description: 'agent_deploy only: the same agent key + idempotency key + body within 24 h returns the original answer',
              schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[\\x21-\\x7e]+$' },
            },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { oneOf: [ref('AgentDeployRequest'), ref('ReceiptRequest'), ref('ListDeploysRequest')] } },
            },
          },
          responses: {
            '308': redirect,
            '200': {
              ...json(
                {
                  oneOf: [
                    ref('DeployBroadcast'),
                    ref('DeploySimulated'),
                    ref('ReceiptPending'),
                    ref('ReceiptConfirmed'),
                    ref('ReceiptReplaced'),
                    ref('ListDeploys'),
                    ref('DeployFailure'),
                  ],
                },
                'The outcome: ok true (broadcast, simulated, pending, confirmed, replaced, or the deploy list) or ok false with error and code',
              ),
              headers: {
                ...cors,
                'Idempotent-Replayed': {
                  description: '"true" when this is the stored answer of an earlier request with the same Idempotency-Key',
                  required: false,
                  schema: { type: 'string', const: 'true' },
                },
              },
            },
            '400': json(
              ref('SkillHttpError'),
              'The body is not JSON (INVALID_JSON) or not sent as application/json (UNSUPPORTED_CONTENT_TYPE)',
            ),
            '403': json(ref('SkillHttpError'), 'X-Service-Key missing or not allowlisted (FORBIDDEN)'),
            '405': notAllowed,
            '413': json(ref('SkillHttpError'), 'Body larger than 16 KiB (BODY_TOO_LARGE)'),
            '500': json(ref('SkillHttpError'), 'Misconfigured or unexpected failure'),
          },
        },
        options: preflight,
      },
      '/api/mcp': {
        post: {
          operationId: 'mcp',
          summary:
            'Model Context Protocol over Streamable HTTP (stateless, JSON answers). Tools: get_control_room, search_tokens, deploy_token, get_deploy_receipt, list_deploys; the last three need the agent key as X-Service-Key or Authorization: Bearer',
          security: [{}, { serviceKey: [] }, { bearerAgentKey: [] }],
          parameters: [
            {
              name: 'Accept',
              in: 'header',
              required: true,
              description: 'application/json, text/event-stream (as the MCP transport requires)',
              schema: { type: 'string' },
            },
            { name: 'Mcp-Protocol-Version', in: 'header', required: false, schema: { type: 'string' } },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { type: 'object', description: 'A JSON-RPC 2.0 message (initialize, tools/list, tools/call, ...)' },
              },
            },
          },
          responses: {
            '200': {
              ...json(
                {
                  type: 'object',
                  description:
                    'The JSON-RPC answer; a failed tool call is a result with isError: true and structuredContent { ok: false, error, code }',
                },
                'JSON-RPC answer',
              ),
              headers: cors,
            },
            '202': { description: 'A notification or response was accepted (no body)', headers: cors },
            '403': json(
              { type: 'object', description: 'A JSON-RPC error (id null)' },
              'A browser Origin that may not call the MCP server (see MCP_ALLOWED_ORIGINS); no tool ran',
            ),
            '400': { ...json({ type: 'object' }, 'Not a JSON-RPC message (a JSON-RPC error body)'), headers: cors },
            '405': notAllowed,
            '406': { ...json({ type: 'object' }, 'Accept does not list application/json and text/event-stream'), headers: cors },
            '413': { ...json({ type: 'object' }, 'Body larger than 64 KiB'), headers: cors },
            '415': { ...json({ type: 'object' }, 'Content-Type is not application/json'), headers: cors },
            '500': json({ type: 'object' }, 'MCP_ALLOWED_ORIGINS is malformed (CONFIG_INVALID)'),
          },
        },
        options: preflight,
      },
      '/api/health': {
        get: {
          operationId: 'getHealth',
          summary:
            'Service health: { ok, version, dataAgeSeconds } for anyone (cached 5 s); every part (store, upstreams, RPC, signer, deploys) with Authorization: Bearer <HEALTH_TOKEN>',
          security: [{}, { healthToken: [] }],
          responses: {
            '200': { ...json(ref('Health'), 'The public view, or with the health token the detailed view (never cached)'), headers: cors },
            '308': redirect,
            '401': { ...error('Authorization names a wrong health token (UNAUTHORIZED)'), headers: cors },
            '405': notAllowed,
            '500': { ...error('The service is misconfigured (CONFIG_INVALID)'), headers: cors },
          },
        },
        options: preflight,
      },
      '/api/tick': {
        get: {
          operationId: 'runTick',
          summary: 'Run the scheduled work once (Vercel Cron: Authorization: Bearer <CRON_SECRET>); the answer says what each part did',
          security: [{ cronSecret: [] }, { qstashSignature: [] }],
          responses: tickResponses,
        },
        post: {
          operationId: 'runTickSigned',
          summary: 'Run the scheduled work once (Upstash QStash, signed with Upstash-Signature)',
          security: [{ qstashSignature: [] }, { cronSecret: [] }],
          requestBody: { required: false, content: { '*/*': { schema: { type: 'string', maxLength: 65536 } } } },
          responses: tickResponses,
        },
        options: preflight,
      },
      '/api/openapi': {
        get: {
          operationId: 'getOpenApi',
          summary: 'This document (also at /openapi.json)',
          responses: { '200': json({ type: 'object' }, 'OpenAPI 3.1'), '405': notAllowed },
        },
      },
      '/api/skill': {
        get: {
          operationId: 'getSkill',
          summary: 'The agent skill file (also at /skill.md)',
          responses: {
            '200': { description: 'Markdown', content: { 'text/markdown': { schema: { type: 'string' } } } },
            '405': notAllowed,
          },
        },
      },
      '/api/llms': {
        get: {
          operationId: 'getLlmsTxt',
          summary: 'llms.txt index (also at /llms.txt)',
          responses: { '200': { description: 'Text', content: { 'text/plain': { schema: { type: 'string' } } } }, '405': notAllowed },
        },
      },
    }),
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        serviceKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Service-Key',
          description: 'Agent key; the server keeps only its SHA-256 digest',
        },
        bearerAgentKey: { type: 'http', scheme: 'bearer', description: 'The same agent key as a bearer token (MCP clients)' },
        healthToken: { type: 'http', scheme: 'bearer', description: 'HEALTH_TOKEN: the detailed view of /api/health' },
        cronSecret: { type: 'http', scheme: 'bearer', description: 'CRON_SECRET: what Vercel Cron sends to /api/tick' },
        qstashSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'Upstash-Signature',
          description:
            'A QStash signature (JWT over the URL and the body), checked with QSTASH_CURRENT_SIGNING_KEY, then QSTASH_NEXT_SIGNING_KEY',
        },
      },
    },
  }
  return cached
}
