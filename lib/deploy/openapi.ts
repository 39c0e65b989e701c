import type { z } from 'zod'
import type { ZodOpenApiPathItemObject } from 'zod-openapi'
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
import type { AgentAction } from './actions/action.js'
import { PUBLIC_ACTIONS_PER_MINUTE } from './actions/keylessCaller.js'
import { AGENT_ACTIONS } from './actions/registry.js'
import { deployFailureSchema, skillHttpErrorSchema } from './answers/deployAnswers.js'
import { SKILL_BODY_LIMIT_BYTES } from './endpoint.js'

// `POST /api/b20-skill` as the OpenAPI document declares it.

/** The names of the actions a caller without a key may ask. */
const publicNames = (actions: readonly AgentAction[]) =>
  actions
    .filter((action) => action.access === 'public')
    .map((action) => action.name)
    .join(', ')

/** The registry's schemas of one kind, as the non-empty list `oneOf` takes. */
const each = (schemas: z.ZodType[]) => schemas as [z.ZodType, ...z.ZodType[]]

/**
 * `POST /api/b20-skill`, as the OpenAPI document declares it: one operation, the actions told apart by `action`
 * (default: the registry's, {@link AGENT_ACTIONS}).
 */
export const b20SkillOpenApiOf = (actions: readonly AgentAction[] = AGENT_ACTIONS): ZodOpenApiPathItemObject => ({
  post: {
    operationId: 'b20Skill',
    summary: `Agent actions, told apart by action in the body: ${actions.map((action) => action.name).join(', ')}`,
    description: [
      `One endpoint, ${actions.length} actions, told apart by action in the body. The agent key (X-Service-Key) is checked before anything else. Public actions (${publicNames(actions)}) need no key: without one they are counted per client (${PUBLIC_ACTIONS_PER_MINUTE} a minute, RateLimit headers).`,
      ...actions.map((action) => `${action.name}: ${action.summary}`),
      'Domain outcomes are 200 with ok true or false and a code.',
    ].join('\n\n'),
    // A public action needs no key: the key is optional for those (an empty requirement), required for the rest.
    security: actions.some((action) => action.access === 'public') ? [{ serviceKey: [] }, {}] : [{ serviceKey: [] }],
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
          schema: oneOf(each(actions.map((action) => action.schema))),
          examples: Object.assign({}, ...actions.map((action) => action.examples ?? {})),
        },
      },
    },
    responses: {
      '308': redirectAnswer,
      '200': {
        ...jsonAnswer(
          // Actions that share their answers (the four on a token) declare each once: oneOf takes exactly one match.
          oneOf(each([...new Set([...actions.flatMap((action) => action.answers), deployFailureSchema])])),
          'The outcome: ok true (broadcast, simulated, pending, confirmed, replaced, a list, a redelivery) or ok false with error and code',
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
      '403': jsonAnswer(
        oneOf(each([skillHttpErrorSchema, deployFailureSchema])),
        'X-Service-Key missing (for an action that needs one) or not allowlisted (FORBIDDEN); or an action on a token only the service’s signer can do, asked by another agent’s key or none (NOT_YOUR_TOKEN)',
      ),
      '404': jsonAnswer(deployFailureSchema, 'token_status, collect_fees: the token is not launched through this service (NOT_A_LAUNCH)'),
      '405': notAllowedAnswer,
      '413': jsonAnswer(skillHttpErrorSchema, `Body larger than ${SKILL_BODY_LIMIT_BYTES / 1024} KiB (BODY_TOO_LARGE)`),
      '429': {
        ...jsonAnswer(
          deployFailureSchema,
          `A caller without a key asked the public actions more than ${PUBLIC_ACTIONS_PER_MINUTE} times a minute (RATE_LIMITED)`,
        ),
        headers: { ...retryAfterHeaders, ...quotaHeaders('actions', String(PUBLIC_ACTIONS_PER_MINUTE)) },
      },
      '500': jsonAnswer(skillHttpErrorSchema, 'Misconfigured (CONFIG_INVALID) or an unexpected failure (INTERNAL, with requestId)'),
    },
  },
  options: preflightOperation,
})
