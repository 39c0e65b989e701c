import type { LookupFunction } from 'node:net'
import { z } from 'zod'
import { errorName, type Logger } from '../../platform/log.js'
import { putIndexed, removeFromIndex } from '../../store/recordIndex.js'
import { parseRecord } from '../../store/records.js'
import type { Store } from '../../store/types.js'
import {
  readWebhookTargets,
  saveWebhookStatus,
  saveWebhookTarget,
  type WebhookStatus,
  type WebhookTarget,
} from '../agents/webhookTargets.js'
import { webhookOutboxKeys } from '../keys.js'
import { attemptWebhook } from './attempt.js'
import {
  type AttemptOutcome,
  type BuildDeployEventParameters,
  buildDeployEvent,
  DEPLOY_EVENT_TYPES,
  type DeployEventType,
  outcomeOf,
  statusAfter,
} from './events.js'
import { claimDue } from './leases.js'

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

/** How long an instance holds an attempt it claimed: past one attempt's 10 s timeout and its writes. */
const ATTEMPT_LEASE_MS = 60_000
/** How long an event is kept: past its last retry (about 3.3 days after the first attempt). */
const EVENT_TTL_MS = 7 * 86_400_000
/** Events the due index holds at most. */
const DUE_MAX = 100_000
/** Attempts one tick claims at most. */
const DELIVER_DUE_LIMIT = 20
/** Agents delivered to at once (one agent's events go one after another). */
const DELIVER_DUE_PARALLEL = 8

/** Parameters of {@link WebhookOutbox.emit}. */
export type EmitDeployEventParameters = Omit<BuildDeployEventParameters, 'chainId' | 'at'> & { agentDigest: string }

/** What one round of due deliveries did. */
export type DeliverDueReturnType = { due: number; delivered: number; retrying: number; failed: number; disabled: number }

/** Deploy events on their way to agents' webhooks, at least once. */
export type WebhookOutbox = {
  /**
   * Files an event for the agent's webhook when it has an active one (once: the same event filed again is a no-op)
   * and makes the first attempt at once. Never throws; answers whether it filed the event.
   */
  emit(parameters: EmitDeployEventParameters): Promise<{ queued: boolean }>
  /** Claims the attempts that are due (across instances, each attempt once) and makes them. */
  deliverDue(): Promise<DeliverDueReturnType>
}

/** Parameters of {@link createWebhookOutbox}. */
export type CreateWebhookOutboxParameters = {
  store: Store
  storePrefix: string
  chainId: number
  logger: Logger
  now?: () => number
  onVercel: boolean
  /** Resolves receivers' names (tests hand in their own); every answer is checked before connecting. */
  lookup?: LookupFunction
  timeoutMs?: number
  /** Digests that never have a webhook (`DEPLOY_ALLOWLIST`'s keys have no label): their events cost no store command. */
  withoutWebhooks?: readonly string[]
}

/** The outbox over the shared store: events, the due index (claimed with a lease), and each agent's status. */
export function createWebhookOutbox(parameters: CreateWebhookOutboxParameters): WebhookOutbox {
  const { store, storePrefix, chainId, logger, now = Date.now, onVercel, lookup, timeoutMs, withoutWebhooks = [] } = parameters
  const unhooked = new Set(withoutWebhooks)
  const keys = webhookOutboxKeys(storePrefix)

  /** Writes an event: still pending, it is due again at `nextAt`; done, it leaves the due index. */
  const saveEvent = async (event: StoredWebhookEvent) => {
    const value = JSON.stringify(event)
    if (event.state === 'pending' && event.nextAt !== null) {
      const entry = { recordKey: keys.event(event.id), value, ttlMs: EVENT_TTL_MS, member: event.id, score: event.nextAt }
      await putIndexed(store, { ...entry, indexKeys: [keys.due], maxEntries: DUE_MAX })
    } else {
      await store.set(keys.event(event.id), value, EVENT_TTL_MS)
      await removeFromIndex(store, keys.due, event.id)
    }
  }

  /** Ends an event without an attempt (its webhook was removed or disabled meanwhile). */
  const abandon = async (event: StoredWebhookEvent, reason: string) => {
    await saveEvent({ ...event, state: 'failed', nextAt: null, lastError: reason, lastStatus: null })
    logger.warn('webhook_abandoned', { agent: event.agent.slice(0, 8), type: event.type, id: event.id, reason })
  }

  /** Makes one attempt and records it: the event's state, the agent's status, and a 410's disabling. */
  const attemptAndRecord = async (
    event: StoredWebhookEvent,
    target: WebhookTarget,
    status: WebhookStatus,
  ): Promise<{ outcome: AttemptOutcome; status: WebhookStatus }> => {
    const startedAt = now()
    const result = await attemptWebhook({
      url: target.url,
      secret: target.secret,
      id: event.id,
      body: event.body,
      now: startedAt,
      onVercel,
      lookup,
      timeoutMs,
    })
    const at = now()
    const attempts = event.attempts + 1
    const { outcome, next, error } = outcomeOf(result, attempts, at)
    await saveEvent({
      ...event,
      attempts,
      state: outcome === 'delivered' ? 'delivered' : outcome === 'retrying' ? 'pending' : 'failed',
      nextAt: next,
      lastError: error,
      lastStatus: result.status,
    })
    if (outcome === 'disabled')
      await saveWebhookTarget(store, storePrefix, event.agent, { ...target, state: 'disabled', disabledAt: at, disabledReason: error })
    const updated = statusAfter(status, { startedAt, at, outcome, error: error && `${event.type} attempt ${attempts}: ${error}` })
    await saveWebhookStatus(store, storePrefix, event.agent, updated)
    const line = { agent: event.agent.slice(0, 8), type: event.type, id: event.id, attempt: attempts, status: result.status, outcome }
    if (result.ok) logger.info('webhook_delivered', line)
    else logger.warn('webhook_failed', { ...line, error, ...(next ? { nextAt: new Date(next).toISOString() } : {}) })
    return { outcome, status: updated }
  }

  return {
    async emit({ agentDigest, ...event }) {
      if (unhooked.has(agentDigest)) return { queued: false }
      try {
        const { target, status } = (await readWebhookTargets(store, storePrefix, [agentDigest])).get(agentDigest)!
        if (target?.state !== 'active') return { queued: false }
        const at = now()
        const built = buildDeployEvent({ ...event, chainId, at })
        const stored: StoredWebhookEvent = {
          id: built.id,
          agent: agentDigest,
          type: built.type,
          body: built.body,
          attempts: 0,
          state: 'pending',
          createdAt: at,
          // Filed as claimed by this instance for its first attempt; if it never makes it, the tick does after the lease.
          nextAt: at + ATTEMPT_LEASE_MS,
          lastError: null,
          lastStatus: null,
        }
        if (!(await store.setIfAbsent(keys.event(built.id), JSON.stringify(stored), EVENT_TTL_MS))) return { queued: false }
        await saveEvent(stored)
        await attemptAndRecord(stored, target, status)
        return { queued: true }
      } catch (error) {
        logger.warn('store_unavailable', { operation: 'webhook_emit', error: errorName(error), type: event.type })
        return { queued: false }
      }
    },

    deliverDue: () => deliverDueEvents({ store, storePrefix, keys, now, attemptAndRecord, abandon }),
  }
}

/** What {@link deliverDueEvents} works with: the outbox's store and keys, and its attempt and abandon steps. */
type DeliverDueContext = {
  store: Store
  storePrefix: string
  keys: ReturnType<typeof webhookOutboxKeys>
  now: () => number
  attemptAndRecord: (
    event: StoredWebhookEvent,
    target: WebhookTarget,
    status: WebhookStatus,
  ) => Promise<{ outcome: AttemptOutcome; status: WebhookStatus }>
  abandon: (event: StoredWebhookEvent, reason: string) => Promise<void>
}

/** Claims the due attempts (each by one instance, for a lease) and makes them, one agent's events in order. */
async function deliverDueEvents({
  store,
  storePrefix,
  keys,
  now,
  attemptAndRecord,
  abandon,
}: DeliverDueContext): Promise<DeliverDueReturnType> {
  const at = now()
  const ids = await claimDue(store, { indexKey: keys.due, now: at, until: at + ATTEMPT_LEASE_MS, limit: DELIVER_DUE_LIMIT })
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

/** What events need of a deploy's record: whose it is, and the hashes the agent knows it by. */
export type DeployEventSource = {
  agent: string
  txHash: string
  /** For a replacement: the hash the deploy was first sent with. */
  originalTxHash?: string
  replaces?: string
  predictedAddress: string
  name: string
  symbol: string
}

/** The subject of a deploy's events: the deploy as its agent knows it, by the hash `agent_deploy` answered. */
export function deployEventSubject(record: DeployEventSource) {
  return {
    txHash: record.originalTxHash ?? record.replaces ?? record.txHash,
    predictedAddress: record.predictedAddress,
    name: record.name,
    symbol: record.symbol,
  }
}

/** Parameters of {@link notifyAgent}. */
export type NotifyAgentParameters = {
  webhooks: WebhookOutbox | null
  /** Keeps the function alive for the delivery (on Vercel, `waitUntil`). */
  background: (work: Promise<unknown>) => void
  type: DeployEventType
  record: DeployEventSource
  details?: Record<string, unknown>
  key?: string
}

/** Tells a deploy's agent about it through its webhook, in the background (nothing when it has none). */
export function notifyAgent({ webhooks, background, type, record, details, key }: NotifyAgentParameters): void {
  if (!webhooks) return
  background(webhooks.emit({ agentDigest: record.agent, type, subject: deployEventSubject(record), details, key }))
}

/** Parameters of {@link notifyReplaced}. */
export type NotifyReplacedParameters = Pick<NotifyAgentParameters, 'webhooks' | 'background'> & {
  replaced: readonly { from: string; to: string; record: DeployEventSource }[]
}

/** Tells each replaced deploy's agent that a higher-fee copy took its nonce (`deploy.replaced`, old and new hash). */
export function notifyReplaced({ webhooks, background, replaced }: NotifyReplacedParameters): void {
  for (const { from, to, record } of replaced)
    notifyAgent({
      webhooks,
      background,
      type: 'deploy.replaced',
      record,
      details: { replacedTxHash: from, replacementTxHash: to },
      key: from,
    })
}
