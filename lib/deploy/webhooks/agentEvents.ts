import type { Logger } from '../../platform/log.js'
import { listIndexed } from '../../store/recordIndex.js'
import { parseRecord } from '../../store/records.js'
import type { Store } from '../../store/types.js'
import type { DeployConfig } from '../config.js'
import { webhookOutboxKeys } from '../keys.js'
import { type DeployFailure, failure, storeFailureOf } from '../outcome.js'
import type { ListEvents, Redelivered } from './eventAnswers.js'
import type { WebhookOutbox } from './outbox.js'
import { type StoredWebhookEvent, storedWebhookEventSchema } from './storedEvent.js'

/** Parameters of {@link listEvents}. */
export type ListEventsParameters = {
  /** The deploy services' store (null: deploys are off here), settings and log. */
  services: { store: Store | null; config: Pick<DeployConfig, 'storePrefix' | 'chainId'>; logger: Logger }
  agentDigest: string
  limit: number
}

/** `list_events`: the calling agent's own webhook events, newest first, with how each delivery stands; one store call. */
export async function listEvents({ services, agentDigest, limit }: ListEventsParameters): Promise<ListEvents | DeployFailure> {
  const { store, config, logger } = services
  if (!store)
    return failure('DEPLOYS_DISABLED', 'Webhooks need the shared store (Upstash Redis) on this deployment, and none is configured.')
  const keys = webhookOutboxKeys(config.storePrefix)
  try {
    const raw = await listIndexed(store, { indexKey: keys.agentEvents(agentDigest), recordPrefix: keys.eventPrefix, limit })
    const events = raw.map((value) => parseRecord(storedWebhookEventSchema, value))
    // The index is the agent's own; the check on each record is a second lock on the same door.
    return { ok: true, events: events.filter((e): e is StoredWebhookEvent => e?.agent === agentDigest).map(listedEvent) }
  } catch (error) {
    return storeFailureOf(error, {
      logger,
      operation: 'list_events',
      message: 'The webhook events (Redis) are unavailable. Try again shortly.',
    })
  }
}

/** An event as the agent sees it: never its body's secret signature, never another agent's digest. */
function listedEvent(event: StoredWebhookEvent): ListEvents['events'][number] {
  return {
    id: event.id,
    type: event.type,
    createdAt: new Date(event.createdAt).toISOString(),
    state: event.state,
    attempts: event.attempts,
    lastStatus: event.lastStatus,
    lastError: event.lastError,
    nextAttemptAt: event.state === 'pending' && event.nextAt !== null ? new Date(event.nextAt).toISOString() : null,
  }
}

/** What an agent is told when its event is not sent again. */
const REDELIVER_REFUSALS = {
  EVENT_NOT_FOUND: 'None of your events has this id (events are kept 7 days; list_events shows them).',
  WEBHOOK_NOT_ACTIVE: 'Your webhook is off or was disabled: set it again, then ask for the event again.',
} as const

/** Parameters of {@link redeliverEvent}. */
export type RedeliverEventParameters = {
  services: { webhooks: WebhookOutbox | null; logger: Logger }
  agentDigest: string
  eventId: string
}

/** `redeliver`: queues one of the agent's own events again, with the same webhook-id, and attempts it at once. */
export async function redeliverEvent({ services, agentDigest, eventId }: RedeliverEventParameters): Promise<Redelivered | DeployFailure> {
  const { webhooks, logger } = services
  if (!webhooks)
    return failure('DEPLOYS_DISABLED', 'Webhooks need the shared store (Upstash Redis) on this deployment, and none is configured.')
  try {
    const result = await webhooks.redeliver(agentDigest, eventId)
    if (!result.ok) return failure(result.code, REDELIVER_REFUSALS[result.code])
    return { ok: true, eventId, outcome: result.outcome }
  } catch (error) {
    return storeFailureOf(error, {
      logger,
      operation: 'redeliver',
      message: 'The webhook events (Redis) are unavailable. Try again shortly.',
    })
  }
}
