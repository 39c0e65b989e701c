import { z } from 'zod'
import { listEventsSchema } from '../webhooks/eventAnswers.js'
import { answer, checkBody, defineAgentAction } from './action.js'
import { lengthOf, NEWEST_LIMIT_DEFAULT, newestLimit } from './newestLimit.js'

// `list_events`: the calling agent's own webhook events, newest first, with how each delivery stands.

/** The `list_events` body schema. */
export const listEventsRequestSchema = z.strictObject({ action: z.literal('list_events'), limit: newestLimit('events') })

/** `list_events`, as both doors dispatch it. */
export const listEventsAction = defineAgentAction({
  name: 'list_events',
  summary:
    'The calling agent’s own webhook events of the last 7 days, newest first: id (the webhook-id), type, createdAt, state (pending, delivered, failed), attempts, lastStatus, lastError and nextAttemptAt.',
  schema: listEventsRequestSchema,
  answers: [listEventsSchema],
  check({ body }) {
    const checked = checkBody(listEventsRequestSchema, body, 'list_events')
    if (!checked.ok) return checked
    const limit = checked.data.limit ?? NEWEST_LIMIT_DEFAULT
    return {
      ok: true,
      run: async ({ services, agent }) =>
        answer(await (await import('../heavyHalf.js')).listEvents({ services, agentDigest: agent.digest, limit })),
    }
  },
  tool: {
    name: 'list_events',
    title: 'My webhook events',
    description: 'Needs the agent key.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    input: listEventsRequestSchema.omit({ action: true }),
    toRequest: (args) => ({ ok: true, body: { ...args, action: 'list_events' }, idempotencyKey: null }),
    summarize: (body) => `${lengthOf(body.events)} webhook events, newest first.`,
  },
})
