import { createDocument, type ZodOpenApiPathItemObject } from 'zod-openapi'
import type { AgentAction } from '../deploy/actions/action.js'
import { AGENT_ACTIONS } from '../deploy/actions/registry.js'
import { deployBroadcastSchema, deployFailureSchema, deploySimulatedSchema, skillHttpErrorSchema } from '../deploy/answers/deployAnswers.js'
import { listDeploysSchema, receiptConfirmedSchema, receiptPendingSchema, receiptReplacedSchema } from '../deploy/answers/receipts.js'
import { b20SkillOpenApiOf } from '../deploy/openapi.js'
import { listEventsSchema, redeliveredSchema } from '../deploy/webhooks/eventAnswers.js'
import { healthOpenApi } from '../health/openapi.js'
import { healthSchema } from '../health/schema.js'
import { launchesOpenApi, launchOpenApi } from '../launches/openapi.js'
import { launchesPageSchema, launchSchema } from '../launches/schema.js'
import {
  controlRoomSchema,
  marketHistorySchema,
  statsSchema,
  tokenHistorySchema,
  tokenOhlcvSchema,
  tokenSchema,
  tokenSearchResultSchema,
} from '../market/types.js'
import { mcpOpenApiOf } from '../mcp/openapi.js'
import { toolsOf } from '../mcp/tools.js'
import { discoveryManifestSchema } from '../payments/discovery/manifest.js'
import {
  creditAnswerSchema,
  offerReceiptSchema,
  paidDeploySchema,
  paidDoorErrorSchema,
  paymentRequiredBodySchema,
  paymentRequirementSchema,
  paymentSummarySchema,
} from '../payments/discovery/paidDoorSchemas.js'
import { instancePaymentsSource } from '../payments/instance.js'
import { discoveryManifestOpenApi, paidDeployOpenApiWith } from '../payments/openapi.js'
import { errorBodySchema } from '../platform/http.js'
import { errorAnswer } from '../platform/routeDocs.js'
import { SERVICE_VERSION } from '../platform/version.js'
import { controlRoomOpenApi, marketHistoryOpenApi, tokenHistoryOpenApi, tokenOhlcvOpenApi, tokenSearchOpenApi } from '../read/openapi.js'
import { streamOpenApi } from '../stream/openapi.js'
import { tickOpenApi } from '../tick/openapi.js'
import { tickSummarySchema } from '../tick/schema.js'
import { llmsTxtOpenApi, openApiOpenApi, skillOpenApi } from './openapi.js'

type Json = Record<string, unknown>

/**
 * Every route, declared beside its handler, with its tag and a name for the operationId of its CORS preflight. Read
 * when the document is built (the document's own handler imports this module).
 */
const routes = (actions: readonly AgentAction[]): Record<string, { route: ZodOpenApiPathItemObject; tag: string; name: string }> => ({
  '/api/control-room': { route: controlRoomOpenApi, tag: 'Market data', name: 'controlRoom' },
  '/api/token-search': { route: tokenSearchOpenApi, tag: 'Market data', name: 'tokenSearch' },
  '/api/token-history': { route: tokenHistoryOpenApi, tag: 'Market data', name: 'tokenHistory' },
  '/api/market-history': { route: marketHistoryOpenApi, tag: 'Market data', name: 'marketHistory' },
  '/api/token-ohlcv': { route: tokenOhlcvOpenApi, tag: 'Market data', name: 'tokenOhlcv' },
  '/api/stream': { route: streamOpenApi, tag: 'Market data', name: 'stream' },
  '/api/launches': { route: launchesOpenApi, tag: 'Market data', name: 'launches' },
  '/api/launches/{address}': { route: launchOpenApi, tag: 'Market data', name: 'launch' },
  '/api/b20-skill': { route: b20SkillOpenApiOf(actions), tag: 'Agents', name: 'b20Skill' },
  '/api/mcp': { route: mcpOpenApiOf(toolsOf(actions)), tag: 'Agents', name: 'mcp' },
  '/api/x402/deploy': { route: paidDeployOpenApiWith(paymentsSettings()), tag: 'Agents', name: 'paidDeploy' },
  '/api/x402/manifest': { route: discoveryManifestOpenApi, tag: 'Agents', name: 'x402Manifest' },
  '/api/health': { route: healthOpenApi, tag: 'Service', name: 'health' },
  '/api/openapi': { route: openApiOpenApi, tag: 'Service', name: 'openApi' },
  '/api/skill': { route: skillOpenApi, tag: 'Service', name: 'skill' },
  '/api/llms': { route: llmsTxtOpenApi, tag: 'Service', name: 'llmsTxt' },
  '/api/tick': { route: tickOpenApi, tag: 'Service', name: 'tick' },
})

/** This instance's paid-door settings, for the price the document marks the paid operation with; null when they do not load. */
function paymentsSettings() {
  try {
    return instancePaymentsSource.config()
  } catch {
    return null
  }
}

/** The zod schemas the handlers use, under their component names: every use of one becomes a reference. */
const componentsOf = (actions: readonly AgentAction[]) => ({
  Token: tokenSchema,
  Stats: statsSchema,
  ControlRoom: controlRoomSchema,
  TokenSearchResult: tokenSearchResultSchema,
  TokenHistory: tokenHistorySchema,
  MarketHistory: marketHistorySchema,
  TokenOhlcv: tokenOhlcvSchema,
  Launch: launchSchema,
  LaunchesPage: launchesPageSchema,
  Error: errorBodySchema,
  // Each agent action's request, named after it: agent_deploy -> AgentDeployRequest.
  ...Object.fromEntries(actions.map((action) => [`${pascalCase(action.name)}Request`, action.schema])),
  DeployBroadcast: deployBroadcastSchema,
  DeploySimulated: deploySimulatedSchema,
  ReceiptPending: receiptPendingSchema,
  ReceiptConfirmed: receiptConfirmedSchema,
  ReceiptReplaced: receiptReplacedSchema,
  ListDeploys: listDeploysSchema,
  ListEvents: listEventsSchema,
  Redelivered: redeliveredSchema,
  DeployFailure: deployFailureSchema,
  SkillHttpError: skillHttpErrorSchema,
  PaidDeploy: paidDeploySchema,
  PaymentSummary: paymentSummarySchema,
  OfferReceipt: offerReceiptSchema,
  PaymentRequirement: paymentRequirementSchema,
  PaymentRequired: paymentRequiredBodySchema,
  Credit: creditAnswerSchema,
  PaidDoorError: paidDoorErrorSchema,
  DiscoveryManifest: discoveryManifestSchema,
  Health: healthSchema,
  TickSummary: tickSummarySchema,
})

/** `list_deploys` -> `ListDeploys`. */
function pascalCase(name: string): string {
  return name.replace(/(^|_)([a-z])/g, (_, _underscore: string, letter: string) => letter.toUpperCase())
}

/** The documents's tags: what a reader (or a generated client) groups operations by. */
const TAGS = [
  { name: 'Market data', description: 'Live Base market data: no key, CORS-open, cached 30 s with ETags' },
  { name: 'Agents', description: 'B20 token deploys for allowlisted agents (X-Service-Key), over HTTP or MCP, or paid per call with x402' },
  { name: 'Service', description: 'Health and the documents that describe the service' },
]

const SECURITY_SCHEMES = {
  serviceKey: { type: 'apiKey', in: 'header', name: 'X-Service-Key', description: 'Agent key; the server keeps only its SHA-256 digest' },
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
} as const

const malformed = errorAnswer('The request is not valid HTTP (MALFORMED_REQUEST; answered by npm start, by the platform on Vercel)')

/**
 * Each route as standard linters expect it (Redocly recommended, with the rules spectral:oas adds): a tag on every operation,
 * `security: []` where no key is needed, and an operationId, a description and the 4xx answers of its CORS preflight.
 */
function completeRoute(path: string, { route, tag, name }: ReturnType<typeof routes>[string]): ZodOpenApiPathItemObject {
  const refusesOrigins = path === '/api/mcp'
  // A path's own parameters (`/api/launches/{address}`) hold for every operation on it, its preflight included.
  const completed: ZodOpenApiPathItemObject = route.parameters ? { parameters: route.parameters } : {}
  for (const method of ['get', 'post', 'options'] as const) {
    const operation = route[method]
    if (!operation) continue
    completed[method] = {
      security: [],
      ...operation,
      tags: [tag],
      ...(method === 'options'
        ? {
            operationId: `${name}Preflight`,
            description: refusesOrigins
              ? 'CORS preflight of a browser client: for an allowed origin, the methods and headers this path takes (cached for a day); any other origin gets 403.'
              : 'CORS preflight of a browser client: the methods and headers this path takes, for any origin, cached for a day.',
            responses: {
              ...operation.responses,
              '400': malformed,
              ...(refusesOrigins
                ? { '403': errorAnswer('A browser Origin that may not call the MCP server (see MCP_ALLOWED_ORIGINS)') }
                : {}),
            },
          }
        : {}),
    }
  }
  return completed
}

/** A reference to a component schema in the serialised document; group 1 is the schema's name. */
const SCHEMA_REFERENCE = /"#\/components\/schemas\/([^"]+)"/g

/** The names of the component schemas `value` references. */
const referencesIn = (value: unknown): Set<string> => new Set(Array.from(JSON.stringify(value).matchAll(SCHEMA_REFERENCE), (m) => m[1]!))

/**
 * zod-openapi renders a component first as a request would send it and, where a response differs (a strict object
 * rejects extra fields only as output), adds an `<Name>Output` copy. The components used only in answers keep
 * their own names: each `<Name>Output` whose `<Name>` nothing references takes that name back. Dropping `<Name>` can
 * leave another component unreferenced, so the renames go on until none is left; they are decided on the references
 * read once, and the document is rewritten once (this ran on every cold `/openapi.json`, and redoing the whole
 * document per rename took most of its build).
 */
function namesWithoutOutputSuffix(document: Json): Json {
  const components = document.components as Json & { schemas: Record<string, unknown> }
  const { schemas } = components
  // What each schema references, and what the rest of the document does, under the schemas' current names.
  const referencesOf = new Map(Object.keys(schemas).map((name) => [name, referencesIn(schemas[name])]))
  const outside = referencesIn({ ...document, components: { ...components, schemas: {} } })
  const referenced = (name: string) => outside.has(name) || [...referencesOf.values()].some((refs) => refs.has(name))
  const order = Object.keys(schemas)
  const sourceOf = new Map<string, string>() // a renamed schema's name -> its name in zod-openapi's document
  const renamedTo = new Map<string, string>() // a name in zod-openapi's document -> the name it ends with
  for (let next = order.find(renameable); next; next = order.find(renameable)) {
    const base = next.replace(/Output$/, '')
    referencesOf.delete(base)
    referencesOf.set(base, referencesOf.get(next)!)
    referencesOf.delete(next)
    for (const refs of [outside, ...referencesOf.values()]) if (refs.delete(next)) refs.add(base)
    order.splice(order.indexOf(base), 1)
    order.splice(order.indexOf(next), 1)
    order.push(base)
    const source = sourceOf.get(next) ?? next
    sourceOf.delete(next)
    sourceOf.set(base, source)
    renamedTo.set(source, base)
  }
  const renamedSchemas = Object.fromEntries(order.map((name) => [name, schemas[sourceOf.get(name) ?? name]]))
  const text = JSON.stringify({ ...document, components: { ...components, schemas: renamedSchemas } })
  return JSON.parse(
    text.replace(SCHEMA_REFERENCE, (reference, name: string) => {
      const renamed = renamedTo.get(name)
      return renamed ? `"#/components/schemas/${renamed}"` : reference
    }),
  ) as Json

  function renameable(name: string): boolean {
    const base = name.replace(/Output$/, '')
    return base !== name && referencesOf.has(base) && !referenced(base)
  }
}

/** Parameters of {@link buildOpenApiDocument}. */
export type BuildOpenApiDocumentParameters = {
  /** The agent actions `POST /api/b20-skill` and the MCP tools offer (default: the registry's, {@link AGENT_ACTIONS}). */
  actions?: readonly AgentAction[]
}

/** The OpenAPI 3.1 document of the service, generated by zod-openapi from the routes declared beside the handlers. */
export function buildOpenApiDocument({ actions = AGENT_ACTIONS }: BuildOpenApiDocumentParameters = {}): Json {
  return namesWithoutOutputSuffix(
    createDocument(
      {
        openapi: '3.1.0',
        info: {
          title: 'Base control room',
          version: SERVICE_VERSION,
          description:
            'Live market data for Base (chain 8453) and KMS-signed B20 token deploys for allowlisted agents, or for any agent that pays per deploy with x402. ' +
            'Token names and symbols in market data come from the upstream and are untrusted text. Agent guide: /skill.md. ' +
            'Every answer carries X-Request-Id; quote it when you report a problem.',
          contact: { name: 'The operator of this deployment' },
          license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        },
        tags: TAGS,
        servers: [{ url: '/' }],
        // Any method a path does not list is answered 405 with an Error body and an Allow header.
        paths: Object.fromEntries(Object.entries(routes(actions)).map(([path, entry]) => [path, completeRoute(path, entry)])),
        components: { schemas: componentsOf(actions), securitySchemes: SECURITY_SCHEMES },
      },
      { allowEmptySchema: { custom: true } },
    ) as unknown as Json,
  )
}
