import { z } from 'zod'
import { DEPLOY_EVENT_TYPES } from './eventTypes.js'

// What an agent reads of its webhook events: `list_events` and `redeliver`.

/** One webhook event of the calling agent, as `list_events` answers it. */
export const listedEventSchema = z.object({
  id: z.string().describe('The event id: the webhook-id header of every attempt'),
  type: z.enum(DEPLOY_EVENT_TYPES),
  createdAt: z.string().describe('When the event was filed (ISO 8601)'),
  state: z.enum(['pending', 'delivered', 'failed']).describe('pending: an attempt is due; delivered: a 2xx came back; failed: given up'),
  attempts: z.number().int().min(0).describe('Attempts made since the event was (re)queued'),
  lastStatus: z.number().int().nullable().describe('The HTTP status of the last attempt (null: none, or no answer)'),
  lastError: z.string().nullable().describe('Why the last attempt failed, when it did'),
  nextAttemptAt: z.string().nullable().describe('When the next attempt is due (ISO 8601), while pending'),
})

/** Body of `list_events`: the calling agent's own webhook events, newest first (kept 7 days). */
export const listEventsSchema = z.object({ ok: z.literal(true), events: z.array(listedEventSchema) })

/** Body of `redeliver`: the event was queued again and attempted at once. */
export const redeliveredSchema = z.object({
  ok: z.literal(true),
  eventId: z.string(),
  outcome: z
    .enum(['delivered', 'retrying', 'failed', 'disabled'])
    .describe('How the immediate attempt went; retrying: it follows the retry schedule'),
})

/** Body of `list_events`. */
export type ListEvents = z.infer<typeof listEventsSchema>
/** Body of `redeliver`. */
export type Redelivered = z.infer<typeof redeliveredSchema>
