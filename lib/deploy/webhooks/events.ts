import { createHash } from 'node:crypto'
import type { WebhookStatus } from '../agents/webhookTargets.js'
import type { DeployEventType } from './eventTypes.js'

/** What every event's `data` carries: the deploy as the agent knows it (the hash `agent_deploy` answered). */
export type DeployEventSubject = {
  txHash: string
  predictedAddress: string
  name: string
  symbol: string
  /** Whole tokens minted at creation; null: none. */
  initialSupply: string | null
  /** The cap from birth in whole tokens; null: no cap. */
  supplyCap: string | null
  /** Who received the initial supply; null: nobody. */
  recipient: string | null
}

/** An event as delivered: its id (the `webhook-id`, the same on every retry) and the body every attempt sends. */
export type DeployEvent = { id: string; type: DeployEventType; body: string }

/** Parameters of {@link buildDeployEvent}. */
export type BuildDeployEventParameters = {
  chainId: number
  type: DeployEventType
  subject: DeployEventSubject
  /** The type's own fields (`tokenAddress`, `blockNumber`, …). */
  details?: Record<string, unknown>
  /** What makes this event one of a kind besides its type (default the subject's hash): the same key, the same id. */
  key?: string
  /** When it happened, epoch ms. */
  at: number
}

/**
 * Builds an event (pure): the body `{ type, timestamp, data }` and an id derived from the chain, the type and the
 * key, so the same outcome seen twice (by a receipt and by the tick, or by two instances) is one event.
 */
export function buildDeployEvent({
  chainId,
  type,
  subject,
  details = {},
  key = subject.txHash,
  at,
}: BuildDeployEventParameters): DeployEvent {
  const id = `msg_${createHash('sha256').update(`${chainId}:${type}:${key.toLowerCase()}`).digest('base64url').slice(0, 27)}`
  const data = {
    txHash: subject.txHash,
    predictedAddress: subject.predictedAddress,
    name: subject.name,
    symbol: subject.symbol,
    initialSupply: subject.initialSupply,
    supplyCap: subject.supplyCap,
    recipient: subject.recipient,
    ...details,
  }
  return { id, type, body: JSON.stringify({ type, timestamp: new Date(at).toISOString(), data }) }
}

/** Waits after each failed attempt before the next (Standard Webhooks' schedule): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400].map((s) => s * 1000)

/** Attempts an event gets at most: the first and one per retry. */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1

/** When the next attempt is due after `attemptsMade` failed ones, or null when that was the last. Pure. */
export function nextAttemptAt(attemptsMade: number, now: number): number | null {
  const delay = WEBHOOK_RETRY_DELAYS_MS[attemptsMade - 1]
  return delay === undefined ? null : now + delay
}

/** How an attempt ended for the event: delivered, to be retried, given up, or its webhook disabled by a 410. */
export type AttemptOutcome = 'delivered' | 'retrying' | 'failed' | 'disabled'

/** How one attempt ended: the outcome, when the next attempt is due (null: none), and the error to record. */
export function outcomeOf(result: { ok: boolean; status: number | null; error?: string | null }, attempts: number, at: number) {
  if (result.ok) return { outcome: 'delivered' as AttemptOutcome, next: null, error: null }
  if (result.status === 410)
    return { outcome: 'disabled' as AttemptOutcome, next: null, error: 'the receiver answered 410 Gone: webhook disabled' }
  const next = nextAttemptAt(attempts, at)
  return { outcome: (next === null ? 'failed' : 'retrying') as AttemptOutcome, next, error: result.error ?? null }
}

/** An agent's delivery status after one attempt (`error` null: delivered). */
export function statusAfter(
  status: WebhookStatus,
  { startedAt, at, outcome, error }: { startedAt: number; at: number; outcome: AttemptOutcome; error: string | null },
): WebhookStatus {
  if (outcome === 'delivered') return { ...status, lastAttemptAt: startedAt, lastDeliveryAt: at, failing: 0 }
  return {
    ...status,
    lastAttemptAt: startedAt,
    lastError: error,
    lastErrorAt: at,
    failing: status.failing + 1,
    failedEvents: status.failedEvents + (outcome === 'failed' || outcome === 'disabled' ? 1 : 0),
  }
}
