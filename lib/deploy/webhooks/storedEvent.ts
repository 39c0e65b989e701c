import { z } from 'zod'
import { putIndexed, removeFromIndex } from '../../store/recordIndex.js'
import type { Store } from '../../store/types.js'
import type { webhookOutboxKeys } from '../keys.js'
import { DEPLOY_EVENT_TYPES } from './eventTypes.js'

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

/** How long an event is kept: past its last retry (about 3.3 days after the first attempt). */
export const EVENT_TTL_MS = 7 * 86_400_000
/** Events the due index holds at most. */
const DUE_MAX = 100_000

/**
 * Writes an event: still pending, it is due again at `nextAt`; done, it leaves the due index. Filed the first time,
 * it joins its agent's events too (`list_events`), in the same step: its first `nextAt` is its creation plus the
 * lease, so the agent's index keeps the order of creation.
 */
export async function saveStoredEvent(
  store: Store,
  keys: ReturnType<typeof webhookOutboxKeys>,
  event: StoredWebhookEvent,
  firstFiling = false,
): Promise<void> {
  const value = JSON.stringify(event)
  if (event.state === 'pending' && event.nextAt !== null) {
    const entry = { recordKey: keys.event(event.id), value, ttlMs: EVENT_TTL_MS, member: event.id, score: event.nextAt }
    const indexKeys = firstFiling ? [keys.due, keys.agentEvents(event.agent)] : [keys.due]
    await putIndexed(store, { ...entry, indexKeys, maxEntries: DUE_MAX })
  } else {
    await store.set(keys.event(event.id), value, EVENT_TTL_MS)
    await removeFromIndex(store, keys.due, event.id)
  }
}

/**
 * An event queued again (`redeliver`), due at `nextAt`: the same id, so a receiver that keeps ids sees a retry, not a
 * new event; its retry schedule starts over.
 */
export function requeued(event: StoredWebhookEvent, nextAt: number): StoredWebhookEvent {
  return { ...event, attempts: 0, state: 'pending', nextAt, lastError: null, lastStatus: null }
}
