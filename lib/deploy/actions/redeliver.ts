import { z } from 'zod'
import { redeliveredSchema } from '../webhooks/eventAnswers.js'
import { answer, checkBody, defineAgentAction } from './action.js'

// `redeliver`: one of the agent's own webhook events queued again, with the same webhook-id, and attempted at once.

/** The `redeliver` body schema. */
export const redeliverRequestSchema = z.strictObject({
  action: z.literal('redeliver'),
  event_id: z
    .string({ error: 'must be an event id from list_events (msg_…)' })
    .regex(/^msg_[A-Za-z0-9_-]{1,64}$/, 'must be an event id from list_events (msg_…)')
    .describe('The id of one of your events, as list_events answers it'),
})

/** `redeliver`, as both doors dispatch it. */
export const redeliverAction = defineAgentAction({
  name: 'redeliver',
  summary:
    'Queues one of your own webhook events again, with the same webhook-id, and attempts it at once (then the retry schedule, if it fails); answers the attempt’s outcome.',
  schema: redeliverRequestSchema,
  answers: [redeliveredSchema],
  check({ body }) {
    const checked = checkBody(redeliverRequestSchema, body, 'redeliver')
    if (!checked.ok) return checked
    const eventId = checked.data.event_id
    return {
      ok: true,
      run: async ({ services, agent }) =>
        answer(await (await import('../heavyHalf.js')).redeliverEvent({ services, agentDigest: agent.digest, eventId })),
    }
  },
  tool: {
    name: 'redeliver_event',
    title: 'Send a webhook event again',
    description: 'Needs the agent key and an active webhook.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    input: z.strictObject({ eventId: redeliverRequestSchema.shape.event_id }),
    toRequest: ({ eventId, ...rest }) => ({
      ok: true,
      body: { ...rest, ...(eventId !== undefined ? { event_id: eventId } : {}), action: 'redeliver' },
      idempotencyKey: null,
    }),
    renamed: { event_id: 'eventId' },
    summarize: (body) => `Event ${body.eventId} queued again; the attempt: ${body.outcome}.`,
  },
})
