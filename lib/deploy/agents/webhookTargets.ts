import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import { systemClock } from '../../platform/clock.js'
import { parseRecord } from '../../store/records.js'
import type { Store } from '../../store/types.js'
import { webhookTargetKeys } from '../keys.js'
import { AgentAdminError, type AgentListing, type AgentRecord, findAgentRecord, listAgentRecordsWithUse } from './agentRegistry.js'
import { checkWebhookUrl } from './webhookUrl.js'

/** Where an agent's deploy events go: its URL and signing secret, and whether deliveries are on. */
export const webhookTargetSchema = z.object({
  url: z.string(),
  /** Standard Webhooks secret (`whsec_` + base64 of 32 random bytes), shown once when set; never listed. */
  secret: z.string(),
  state: z.enum(['active', 'disabled']),
  /** Epoch ms. */
  setAt: z.number(),
  disabledAt: z.number().nullable(),
  disabledReason: z.string().nullable(),
})

/** Where an agent's deploy events go (see {@link webhookTargetSchema}). */
export type WebhookTarget = z.infer<typeof webhookTargetSchema>

/** How an agent's deliveries went lately, for `npm run agents -- list`. */
export const webhookStatusSchema = z.object({
  lastAttemptAt: z.number().nullable(),
  lastDeliveryAt: z.number().nullable(),
  lastError: z.string().nullable(),
  lastErrorAt: z.number().nullable(),
  /** Attempts in a row that failed (0 after a delivery). */
  failing: z.number(),
  /** Events given up on after their last retry. */
  failedEvents: z.number(),
})

/** How an agent's deliveries went lately (see {@link webhookStatusSchema}). */
export type WebhookStatus = z.infer<typeof webhookStatusSchema>

/** An agent's webhook as listed: never its secret. */
export type WebhookListing = Omit<WebhookTarget, 'secret'> & WebhookStatus

/** An agent as listed, with its webhook (null when it has none). */
export type AgentWithWebhook = AgentListing & { webhook: WebhookListing | null }

/** A status with nothing to report yet. */
export const EMPTY_WEBHOOK_STATUS: WebhookStatus = {
  lastAttemptAt: null,
  lastDeliveryAt: null,
  lastError: null,
  lastErrorAt: null,
  failing: 0,
  failedEvents: 0,
}

/** How long a webhook's target and status are kept: as long as agent records. */
const WEBHOOK_TTL_MS = 10 * 365 * 24 * 60 * 60 * 1000

/** A new Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}

/** Reads the webhook target and status of each agent, in one store round trip. */
export async function readWebhookTargets(
  store: Store,
  storePrefix: string,
  digests: readonly string[],
): Promise<Map<string, { target: WebhookTarget | null; status: WebhookStatus }>> {
  const keys = webhookTargetKeys(storePrefix)
  const values = digests.length ? await store.getMany(digests.flatMap((d) => [keys.target(d), keys.status(d)])) : []
  return new Map(
    digests.map((digest, i) => [
      digest,
      {
        target: parseRecord(webhookTargetSchema, values[2 * i]),
        status: parseRecord(webhookStatusSchema, values[2 * i + 1]) ?? EMPTY_WEBHOOK_STATUS,
      },
    ]),
  )
}

/** Writes an agent's webhook target. */
export async function saveWebhookTarget(store: Store, storePrefix: string, digest: string, target: WebhookTarget): Promise<void> {
  await store.set(webhookTargetKeys(storePrefix).target(digest), JSON.stringify(target), WEBHOOK_TTL_MS)
}

/** Writes an agent's delivery status. */
export async function saveWebhookStatus(store: Store, storePrefix: string, digest: string, status: WebhookStatus): Promise<void> {
  await store.set(webhookTargetKeys(storePrefix).status(digest), JSON.stringify(status), WEBHOOK_TTL_MS)
}

/** Parameters of {@link setAgentWebhook}. */
export type SetAgentWebhookParameters = {
  store: Store
  storePrefix: string
  /** The agent's label, or at least 8 hex digits of its digest. */
  which: string
  /** The new URL, or null to turn the webhook off. */
  url: string | null
  onVercel: boolean
  now?: number
}

/**
 * Sets (with a new secret, answered once) or removes an agent's webhook. Throws {@link AgentAdminError} for a refused
 * URL or an unknown or revoked agent; then nothing is written. Deliveries under way pick up the change.
 */
export async function setAgentWebhook(parameters: SetAgentWebhookParameters): Promise<{ record: AgentRecord; secret: string | null }> {
  const { store, storePrefix, which, url, onVercel, now = systemClock.now() } = parameters
  const verdict = url === null ? null : checkWebhookUrl({ url, onVercel })
  if (verdict && !verdict.ok) throw new AgentAdminError(`the webhook URL ${verdict.reason}; nothing was written`)
  const record = await findAgentRecord(store, storePrefix, which)
  if (record.revokedAt !== null) throw new AgentAdminError(`"${record.label}" is revoked; its webhook cannot be changed`)
  const keys = webhookTargetKeys(storePrefix)
  if (!verdict) {
    await Promise.all([store.delete(keys.target(record.digest)), store.delete(keys.status(record.digest))])
    return { record, secret: null }
  }
  const secret = generateWebhookSecret()
  await saveWebhookTarget(store, storePrefix, record.digest, {
    url: verdict.url,
    secret,
    state: 'active',
    setAt: now,
    disabledAt: null,
    disabledReason: null,
  })
  await saveWebhookStatus(store, storePrefix, record.digest, EMPTY_WEBHOOK_STATUS)
  return { record, secret }
}

/** Every agent of the registry, newest first, with its webhook's URL, state and last deliveries (never its secret). */
export async function listAgentsWithWebhooks(store: Store, storePrefix: string): Promise<AgentWithWebhook[]> {
  const agents = await listAgentRecordsWithUse(store, storePrefix)
  const webhooks = await readWebhookTargets(
    store,
    storePrefix,
    agents.map((a) => a.digest),
  )
  return agents.map(({ digest, ...agent }) => {
    const { target, status } = webhooks.get(digest)!
    if (!target) return { ...agent, webhook: null }
    const { secret: _secret, ...shown } = target
    return { ...agent, webhook: { ...shown, ...status } }
  })
}
