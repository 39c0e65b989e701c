import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { createEndpoint, type Endpoint } from '../platform/edge.js'
import { jsonResponse, type Method, readJsonBody } from '../platform/http.js'
import { type Logger, processLogger } from '../platform/log.js'
import { corsHeaders, jsonAnswer, notAllowedAnswer, oneOf, preflightOperation, redirectAnswer } from '../platform/routeDocs.js'
import { AGENT_CHECK_UNAVAILABLE, authorizeAgent, type DeployServicesSource, MISCONFIGURED, runAgentAction } from './agentActions.js'
import { createRefusalLog, refusalText } from './agents/agentKeys.js'
import {
  agentDeploySchema,
  listDeploysRequestSchema,
  listEventsRequestSchema,
  receiptRequestSchema,
  redeliverRequestSchema,
} from './pipeline/intent.js'
import {
  deployBroadcastSchema,
  deployFailureSchema,
  deploySimulatedSchema,
  listDeploysSchema,
  listEventsSchema,
  receiptConfirmedSchema,
  receiptPendingSchema,
  receiptReplacedSchema,
  redeliveredSchema,
  skillHttpErrorSchema,
} from './responses.js'

const METHODS: readonly Method[] = ['POST']

/** Largest request body accepted. */
export const SKILL_BODY_LIMIT_BYTES = 16 * 1024

const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  jsonResponse({ status, body: JSON.stringify(body), headers: { 'cache-control': 'no-store', ...headers } })

/** The `POST /api/b20-skill` endpoint over the given source of configuration and services. */
export function createB20SkillEndpoint(source: DeployServicesSource): Endpoint {
  let logRefusal: ReturnType<typeof createRefusalLog> | undefined
  return createEndpoint({
    methods: METHODS,
    handler: async (request) => {
      // The agent key comes before anything else: an unknown caller reaches no body parser, chain or KMS (and the store
      // only to look for a key issued at runtime, at most once a second per instance).
      const presented = request.headers.get('x-service-key')
      const agent = await authorizeAgent(source, presented, 'b20-skill')
      if (agent.kind === 'misconfigured') return reply(MISCONFIGURED.status, MISCONFIGURED.body)
      if (agent.kind === 'unavailable') return reply(AGENT_CHECK_UNAVAILABLE.status, AGENT_CHECK_UNAVAILABLE.body)
      if (agent.kind === 'refused') {
        logRefusal ??= createRefusalLog({ logger: refusalLogger(source) })
        logRefusal({ endpoint: 'b20-skill', presented, reason: agent.reason })
        return reply(403, { ok: false, error: `X-Service-Key is ${refusalText(agent.reason)}.`, code: 'FORBIDDEN' })
      }

      const read = await readJsonBody(request, SKILL_BODY_LIMIT_BYTES)
      if (!read.ok) return reply(read.status, { ok: false, error: read.message, code: read.code })
      const answer = await runAgentAction({
        source,
        agentDigest: agent.digest,
        agentDailyCap: agent.dailyCap,
        body: read.body,
        idempotencyKey: request.headers.get('idempotency-key'),
      })
      return reply(answer.status, answer.body, answer.headers)
    },
  })
}

/** `POST /api/b20-skill`, as the OpenAPI document declares it. */
export const b20SkillRoute: ZodOpenApiPathItemObject = {
  post: {
    operationId: 'b20Skill',
    summary:
      'Deploy a B20 token (action agent_deploy), read a deploy receipt, waiting up to 25 s (action receipt), list your deploys (action list_deploys), list your webhook events (action list_events) or send one again (action redeliver)',
    description:
      'One endpoint, five actions, told apart by action in the body. The agent key (X-Service-Key) is checked before anything else. agent_deploy validates, simulates, signs with KMS and broadcasts (dryRun: validate and simulate only); receipt answers pending, confirmed, reverted or replaced, waiting up to waitSeconds; list_deploys answers the calling agent’s own deploys; list_events its own webhook events (kept 7 days) with how each delivery stands; redeliver queues one of them again with the same webhook-id and attempts it at once. Domain outcomes are 200 with ok true or false and a code.',
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
        'application/json': {
          schema: oneOf([
            agentDeploySchema,
            receiptRequestSchema,
            listDeploysRequestSchema,
            listEventsRequestSchema,
            redeliverRequestSchema,
          ]),
          examples: {
            deploy: { summary: 'A plain deploy', value: { action: 'agent_deploy', name: 'Example Token', symbol: 'EXT' } },
            bornReady: {
              summary: 'A token born with supply, a cap and ERC-7572 metadata, in one transaction',
              value: {
                action: 'agent_deploy',
                name: 'Example Token',
                symbol: 'EXT',
                admin: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
                initialSupply: '1000000',
                supplyCap: '10000000',
                description: 'The points token of Example.',
                image: 'https://example.com/ext.png',
                website: 'https://example.com',
              },
            },
            fixedSupply: {
              summary: 'A fixed supply: no admin and no minter, ever',
              value: {
                action: 'agent_deploy',
                name: 'Fixed Example',
                symbol: 'FIX',
                fixedSupply: true,
                initialSupply: '21000000',
                recipient: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
              },
            },
            receipt: { summary: 'Where the token landed', value: { action: 'receipt', tx_hash: `0x${'5f'.repeat(32)}`, waitSeconds: 20 } },
          },
        },
      },
    },
    responses: {
      '308': redirectAnswer,
      '200': {
        ...jsonAnswer(
          oneOf([
            deployBroadcastSchema,
            deploySimulatedSchema,
            receiptPendingSchema,
            receiptConfirmedSchema,
            receiptReplacedSchema,
            listDeploysSchema,
            listEventsSchema,
            redeliveredSchema,
            deployFailureSchema,
          ]),
          'The outcome: ok true (broadcast, simulated, pending, confirmed, replaced, or the deploy list) or ok false with error and code',
        ),
        headers: {
          ...corsHeaders,
          'Idempotent-Replayed': {
            description: '"true" when this is the stored answer of an earlier request with the same Idempotency-Key',
            required: false,
            schema: { type: 'string', const: 'true' },
          },
        },
      },
      '400': jsonAnswer(
        skillHttpErrorSchema,
        'The body is not JSON (INVALID_JSON) or not sent as application/json (UNSUPPORTED_CONTENT_TYPE)',
      ),
      '403': jsonAnswer(skillHttpErrorSchema, 'X-Service-Key missing or not allowlisted (FORBIDDEN)'),
      '405': notAllowedAnswer,
      '413': jsonAnswer(skillHttpErrorSchema, `Body larger than ${SKILL_BODY_LIMIT_BYTES / 1024} KiB (BODY_TOO_LARGE)`),
      '500': jsonAnswer(skillHttpErrorSchema, 'Misconfigured or unexpected failure'),
    },
  },
  options: preflightOperation,
}

/** Where refusals are logged: the source's logger, or the process's when the configuration cannot be loaded. */
function refusalLogger(source: DeployServicesSource): Logger {
  try {
    return source.logger()
  } catch {
    return processLogger()
  }
}
