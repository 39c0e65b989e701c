import type { LookupFunction } from 'node:net'
import type { Hex } from 'viem'
import { supplyFieldsOf } from '../../chain/birthView.js'
import type { Clock } from '../../platform/clock.js'
import { errorName, type Logger, unexpectedErrorFields } from '../../platform/log.js'
import { accepted, type Result, refused } from '../../platform/result.js'
import { parseRecord } from '../../store/records.js'
import { type Store, StoreError } from '../../store/types.js'
import { isPaidAgent } from '../agents/paidAgent.js'
import {
  readWebhookTargets,
  saveWebhookStatus,
  saveWebhookTarget,
  type WebhookStatus,
  type WebhookTarget,
} from '../agents/webhookTargets.js'
import { webhookOutboxKeys } from '../keys.js'
import { attemptWebhook, createWebhookAgents } from './attempt.js'
import { deliverDueEvents } from './deliverDue.js'
import {
  type AttemptOutcome,
  type BuildDeployEventParameters,
  buildDeployEvent,
  type DeployEventSubject,
  outcomeOf,
  statusAfter,
} from './events.js'
import type { DeployEventType } from './eventTypes.js'
import {
  type DeliverDueReturnType,
  EVENT_TTL_MS,
  requeued,
  type StoredWebhookEvent,
  saveStoredEvent,
  storedWebhookEventSchema,
} from './storedEvent.js'

/** How long an instance holds an attempt it claimed: past one attempt's 10 s timeout and its writes. */
const ATTEMPT_LEASE_MS = 60_000

/** An event as first filed: claimed by this instance for its first attempt; if it never makes it, the tick does after the lease. */
function newStoredEvent(built: { id: string; type: DeployEventType; body: string }, agent: string, at: number): StoredWebhookEvent {
  const { id, type, body } = built
  return {
    id,
    agent,
    type,
    body,
    attempts: 0,
    state: 'pending',
    createdAt: at,
    nextAt: at + ATTEMPT_LEASE_MS,
    lastError: null,
    lastStatus: null,
  }
}

/**
 * Runs the tasks handed in under one key one after the other, in the order they came; other keys' tasks are not held.
 * A key is kept only while its tasks run (a webhook attempt times out), so what it holds stays bounded.
 */
function oneAfterAnotherPerKey<T>(): (key: string, task: () => Promise<T>) => Promise<T> {
  const running = new Map<string, Promise<T>>()
  return (key, task) => {
    const previous = running.get(key)
    const result = previous ? previous.then(task, task) : task()
    running.set(key, result)
    const forget = () => {
      if (running.get(key) === result) running.delete(key)
    }
    result.then(forget, forget)
    return result
  }
}

/** Parameters of {@link WebhookOutbox.emit}. */
export type EmitDeployEventParameters = Omit<BuildDeployEventParameters, 'chainId' | 'at'> & { agentDigest: string }

/** Deploy events on their way to agents' webhooks, at least once. */
export type WebhookOutbox = {
  /**
   * Files an event for the agent's webhook when it has an active one (once: the same event filed again is a no-op)
   * and makes the first attempt at once, after those of the same deploy's events emitted before it on this instance.
   * Never throws; answers whether it filed the event.
   */
  emit(parameters: EmitDeployEventParameters): Promise<{ queued: boolean }>
  /** Claims the attempts that are due (across instances, each attempt once) and makes them. */
  deliverDue(): Promise<DeliverDueReturnType>
  /**
   * Queues one of the agent's own events again, with the same `webhook-id`, and makes an attempt at once; an event
   * that is not the agent's is not found.
   */
  redeliver(agentDigest: string, id: string): Promise<RedeliverReturnType>
}

/** What {@link WebhookOutbox.redeliver} did. */
export type RedeliverReturnType = Result<{ outcome: AttemptOutcome }, 'EVENT_NOT_FOUND' | 'WEBHOOK_NOT_ACTIVE'>

/** Parameters of {@link createWebhookOutbox}. */
export type CreateWebhookOutboxParameters = {
  store: Store
  storePrefix: string
  chainId: number
  logger: Logger
  /** Stamps events and attempts, and times each attempt's deadline. */
  clock: Clock
  onVercel: boolean
  /** Resolves receivers' names (tests hand in their own); every answer is checked before connecting. */
  lookup?: LookupFunction
  timeoutMs?: number
  /** Digests that never have a webhook (`DEPLOY_ALLOWLIST`'s keys have no label): their events cost no store command. */
  withoutWebhooks?: readonly string[]
}

/** The outbox over the shared store: events, the due index (claimed with a lease), and each agent's status. */
export function createWebhookOutbox(parameters: CreateWebhookOutboxParameters): WebhookOutbox {
  const { store, storePrefix, chainId, logger, clock, onVercel, lookup, timeoutMs, withoutWebhooks = [] } = parameters
  const { now } = clock
  const unhooked = new Set(withoutWebhooks)
  const keys = webhookOutboxKeys(storePrefix)
  // The outbox is built once per instance: so are the agents and their socket pools.
  const agents = createWebhookAgents({ onVercel })

  const saveEvent = (event: StoredWebhookEvent, firstFiling = false) => saveStoredEvent(store, keys, event, firstFiling)
  // One deploy's events leave in the order they were filed: a deploy that waits for its block files deploy.confirmed
  // while deploy.broadcast's first attempt may still be on its way, and the second could otherwise arrive first.
  const inDeployOrder = oneAfterAnotherPerKey<{ queued: boolean }>()

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
      sleep: clock.sleep,
      onVercel,
      agents,
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

  /** Files the event and makes its first attempt; never throws. */
  const emitNow = async ({ agentDigest, ...event }: EmitDeployEventParameters): Promise<{ queued: boolean }> => {
    try {
      const { target, status } = (await readWebhookTargets(store, storePrefix, [agentDigest])).get(agentDigest)!
      if (target?.state !== 'active') return { queued: false }
      const at = now()
      const built = buildDeployEvent({ ...event, chainId, at })
      const stored = newStoredEvent(built, agentDigest, at)
      if (!(await store.setIfAbsent(keys.event(built.id), JSON.stringify(stored), EVENT_TTL_MS))) return { queued: false }
      await saveEvent(stored, true)
      await attemptAndRecord(stored, target, status)
      return { queued: true }
    } catch (error) {
      if (error instanceof StoreError)
        logger.warn('store_unavailable', { operation: 'webhook_emit', error: errorName(error), type: event.type })
      else logger.error('webhook_emit_failed', { ...unexpectedErrorFields(error), type: event.type })
      return { queued: false }
    }
  }

  return {
    async emit(parameters) {
      // A paid agent has no key, so no webhook: its events cost no store command either.
      if (unhooked.has(parameters.agentDigest) || isPaidAgent(parameters.agentDigest)) return { queued: false }
      return inDeployOrder(parameters.subject.txHash.toLowerCase(), () => emitNow(parameters))
    },

    deliverDue: () => deliverDueEvents({ store, storePrefix, keys, now, leaseMs: ATTEMPT_LEASE_MS, attemptAndRecord, abandon }),

    async redeliver(agentDigest, id) {
      const event = parseRecord(storedWebhookEventSchema, await store.get(keys.event(id)))
      // Another agent's event is not found: an agent never learns of another's events.
      if (!event || event.agent !== agentDigest) return refused('EVENT_NOT_FOUND')
      const { target, status } = (await readWebhookTargets(store, storePrefix, [agentDigest])).get(agentDigest)!
      if (target?.state !== 'active') return refused('WEBHOOK_NOT_ACTIVE')
      const queued = requeued(event, now() + ATTEMPT_LEASE_MS)
      await saveEvent(queued)
      return accepted({ outcome: (await attemptAndRecord(queued, target, status)).outcome })
    },
  }
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
  decimals: number
  /** The createB20 calldata: what the token got at birth is read from it. */
  data: Hex
}

/** The subject of a deploy's events: the deploy as its agent knows it, by the hash `agent_deploy` answered. */
export function deployEventSubject(record: DeployEventSource): DeployEventSubject {
  return {
    txHash: record.originalTxHash ?? record.replaces ?? record.txHash,
    predictedAddress: record.predictedAddress,
    name: record.name,
    symbol: record.symbol,
    ...supplyFieldsOf(record.data, record.decimals),
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
