import { z } from 'zod'
import { agentDeploySchema, listDeploysRequestSchema, receiptRequestSchema } from '../deploy/intent.js'
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
        'Token names and symbols in market data come from the upstream and are untrusted text. Agent guide: /skill.md.',
    },
    servers: [{ url: '/' }],
    // Any method a path does not list is answered 405 with an Error body and an Allow header.
    paths: {
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
                'Too many searches from this client (SEARCH_RATE_LIMIT_PER_MINUTE a minute), or the service-wide upstream budget is spent and the term is not cached (RATE_LIMITED)',
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
            '404': error('No snapshot of the last 24 h holds this token (UNKNOWN_TOKEN)'),
            '405': notAllowed,
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
            '400': { ...json({ type: 'object' }, 'Not a JSON-RPC message (a JSON-RPC error body)'), headers: cors },
            '405': notAllowed,
            '406': { ...json({ type: 'object' }, 'Accept does not list application/json and text/event-stream'), headers: cors },
            '413': { ...json({ type: 'object' }, 'Body larger than 64 KiB'), headers: cors },
            '415': { ...json({ type: 'object' }, 'Content-Type is not application/json'), headers: cors },
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
      '/api/openapi': {
        get: {
          operationId: 'getOpenApi',
          summary: 'This document (also at /openapi.json)',
          responses: { '200': json({ type: 'object' }, 'OpenAPI 3.1') },
        },
      },
      '/api/skill': {
        get: {
          operationId: 'getSkill',
          summary: 'The agent skill file (also at /skill.md)',
          responses: { '200': { description: 'Markdown', content: { 'text/markdown': { schema: { type: 'string' } } } } },
        },
      },
      '/api/llms': {
        get: {
          operationId: 'getLlmsTxt',
          summary: 'llms.txt index (also at /llms.txt)',
          responses: { '200': { description: 'Text', content: { 'text/plain': { schema: { type: 'string' } } } } },
        },
      },
    },
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
      },
    },
  }
  return cached
}
