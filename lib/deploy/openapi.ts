import type { z } from 'zod'
import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { corsHeaders, jsonAnswer, notAllowedAnswer, oneOf, preflightOperation, redirectAnswer } from '../platform/routeDocs.js'
import type { AgentAction } from './actions/action.js'
import { AGENT_ACTIONS } from './actions/registry.js'
import { deployFailureSchema, skillHttpErrorSchema } from './answers/deployAnswers.js'
import { SKILL_BODY_LIMIT_BYTES } from './endpoint.js'

// `POST /api/b20-skill` as the OpenAPI document declares it.

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
      `One endpoint, ${actions.length} actions, told apart by action in the body. The agent key (X-Service-Key) is checked before anything else.`,
      ...actions.map((action) => `${action.name}: ${action.summary}`),
      'Domain outcomes are 200 with ok true or false and a code.',
    ].join('\n\n'),
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
          schema: oneOf(each(actions.map((action) => action.schema))),
          examples: Object.assign({}, ...actions.map((action) => action.examples ?? {})),
        },
      },
    },
    responses: {
      '308': redirectAnswer,
      '200': {
        ...jsonAnswer(
          oneOf(each([...actions.flatMap((action) => action.answers), deployFailureSchema])),
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
      '403': jsonAnswer(skillHttpErrorSchema, 'X-Service-Key missing or not allowlisted (FORBIDDEN)'),
      '405': notAllowedAnswer,
      '413': jsonAnswer(skillHttpErrorSchema, `Body larger than ${SKILL_BODY_LIMIT_BYTES / 1024} KiB (BODY_TOO_LARGE)`),
      '500': jsonAnswer(skillHttpErrorSchema, 'Misconfigured (CONFIG_INVALID) or an unexpected failure (INTERNAL, with requestId)'),
    },
  },
  options: preflightOperation,
})
