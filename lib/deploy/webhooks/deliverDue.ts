import { removeFromIndex } from '../../store/recordIndex.js'
import { parseRecord } from '../../store/records.js'
import type { Store } from '../../store/types.js'
import { readWebhookTargets, type WebhookStatus, type WebhookTarget } from '../agents/webhookTargets.js'
import type { webhookOutboxKeys } from '../keys.js'
import type { AttemptOutcome } from './events.js'
import { claimDue } from './leases.js'
import { type DeliverDueReturnType, type StoredWebhookEvent, storedWebhookEventSchema } from './storedEvent.js'

/** Attempts one tick claims at most. */
const DELIVER_DUE_LIMIT = 20
/** Agents delivered to at once (one agent's events go one after another). */
const DELIVER_DUE_PARALLEL = 8

/** What {@link deliverDueEvents} works with: the outbox's store and keys, and its attempt and abandon steps. */
type DeliverDueContext = {
  store: Store
  storePrefix: string
  keys: ReturnType<typeof webhookOutboxKeys>
  now: () => number
  /** How long a claimed attempt is this instance's. */
  leaseMs: number
  attemptAndRecord: (
    event: StoredWebhookEvent,
    target: WebhookTarget,
    status: WebhookStatus,
  ) => Promise<{ outcome: AttemptOutcome; status: WebhookStatus }>
  abandon: (event: StoredWebhookEvent, reason: string) => Promise<void>
}

/** Claims the due attempts (each by one instance, for a lease) and makes them, one agent's events in order. */
export async function deliverDueEvents({
  store,
  storePrefix,
  keys,
  now,
  leaseMs,
  attemptAndRecord,
  abandon,
}: DeliverDueContext): Promise<DeliverDueReturnType> {
  const at = now()
  const ids = await claimDue(store, { indexKey: keys.due, now: at, until: at + leaseMs, limit: DELIVER_DUE_LIMIT })
  const summary: DeliverDueReturnType = { due: ids.length, delivered: 0, retrying: 0, failed: 0, disabled: 0 }
  if (ids.length === 0) return summary
  const events = (await store.getMany(ids.map(keys.event))).map((value) => parseRecord(storedWebhookEventSchema, value))
  const byAgent = new Map<string, StoredWebhookEvent[]>()
  for (const [i, event] of events.entries()) {
    if (event?.state !== 'pending') await removeFromIndex(store, keys.due, ids[i]!)
    else byAgent.set(event.agent, [...(byAgent.get(event.agent) ?? []), event])
  }
  const targets = await readWebhookTargets(store, storePrefix, [...byAgent.keys()])
  const queue = [...byAgent]
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [agent, list] = next
      let { target, status } = targets.get(agent)!
      for (const event of list) {
        if (target?.state !== 'active') {
          await abandon(event, target ? 'the webhook is disabled' : 'the webhook was removed')
          summary.failed++
          continue
        }
        const attempted = await attemptAndRecord(event, target, status)
        status = attempted.status
        summary[attempted.outcome]++
        if (attempted.outcome === 'disabled') target = { ...target, state: 'disabled' }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(DELIVER_DUE_PARALLEL, queue.length) }, worker))
  return summary
}
