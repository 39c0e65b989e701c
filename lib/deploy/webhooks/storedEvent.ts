import { z } from 'zod'
import { DEPLOY_EVENT_TYPES } from './events.js'

/** An event in the outbox: what was sent, how often, and how it stands. */
export const storedWebhookEventSchema = z.object({
  id: z.string(),
  /** Digest of the agent whose webhook it goes to. */
  agent: z.string(),
  type: z.enum(DEPLOY_EVENT_TYPES),
  body: z.string(),
  /** Attempts made so far. */
  attempts: z.number(),
  state: z.enum(['pending', 'delivered', 'failed']),
  createdAt: z.number(),
  /** When the next attempt is due (epoch ms); null once delivered or failed. */
  nextAt: z.number().nullable(),
  lastError: z.string().nullable(),
  lastStatus: z.number().nullable(),
})

/** An event in the outbox (see {@link storedWebhookEventSchema}). */
export type StoredWebhookEvent = z.infer<typeof storedWebhookEventSchema>

/** What one round of due deliveries did. */
export type DeliverDueReturnType = { due: number; delivered: number; retrying: number; failed: number; disabled: number }
