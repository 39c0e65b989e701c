import { z } from 'zod'
import { systemClock } from '../../platform/clock.js'
import { BaseError } from '../../platform/errors.js'
import { type Result, refused } from '../../platform/result.js'
import { listIndexed, putIndexed, removeFromIndex } from '../../store/recordIndex.js'
import { parseRecord } from '../../store/records.js'
import type { Store } from '../../store/types.js'
import { agentRegistryKeys } from '../keys.js'
import { AGENT_KEY_MAX_LENGTH, type AgentRefusalReason, digestAgentKey, generateAgentKey } from './agentKeys.js'

/**
 * An agent key issued at runtime (`npm run agents -- issue`), as the shared store keeps it: never the key, only its
 * SHA-256 digest, with a label, an optional daily cap and expiry, and when it was revoked.
 */
export const agentRecordSchema = z.object({
  digest: z.string(),
  label: z.string(),
  /** Epoch ms. */
  createdAt: z.number(),
  /** Epoch ms after which the key is refused; null: never. */
  expiresAt: z.number().nullable(),
  /** Deploys this key may make in any rolling cap window; null: the service-wide per-agent cap applies. */
  dailyCap: z.number().nullable(),
  /** Epoch ms; null while the key is valid. */
  revokedAt: z.number().nullable(),
})

/** An agent key's record (see {@link agentRecordSchema}). */
export type AgentRecord = z.infer<typeof agentRecordSchema>

/** Most agents a registry holds: issuing past it is refused (after purging), never done by dropping a valid key. */
export const AGENT_REGISTRY_MAX = 1000
/** Room the index keeps past {@link AGENT_REGISTRY_MAX}, so two operators issuing at once never trim a valid key. */
const INDEX_SLACK = 1000
/** How long a revoked key's record stays listed before a full registry may purge it. */
export const REVOKED_KEPT_MS = 30 * 24 * 60 * 60 * 1000
/** How long the store keeps a record: long past any expiry; revoked records stay listed. */
const RECORD_TTL_MS = 10 * 365 * 24 * 60 * 60 * 1000

/** Reads every record of the registry, newest first (one index read and one read of the records). */
export async function listAgentRecords(store: Store, storePrefix: string): Promise<AgentRecord[]> {
  const keys = agentRegistryKeys(storePrefix)
  const values = await listIndexed(store, {
    indexKey: keys.index,
    recordPrefix: keys.recordPrefix,
    limit: AGENT_REGISTRY_MAX + INDEX_SLACK,
  })
  return values.flatMap((value) => parseRecord(agentRecordSchema, value) ?? [])
}

/** Writes a record (a new one, or one revoked): the record and its place in the index, in one step. */
export async function saveAgentRecord(store: Store, storePrefix: string, record: AgentRecord): Promise<void> {
  const keys = agentRegistryKeys(storePrefix)
  await putIndexed(store, {
    recordKey: keys.record(record.digest),
    value: JSON.stringify(record),
    ttlMs: RECORD_TTL_MS,
    member: record.digest,
    score: record.createdAt,
    indexKeys: [keys.index],
    maxEntries: AGENT_REGISTRY_MAX + INDEX_SLACK,
  })
}

/** The verdict on a presented key: the agent (its digest, and its own daily cap when it has one), or why not. */
export type AgentVerdict = Result<{ digest: string; dailyCap: number | null }, 'FORBIDDEN', { reason: AgentRefusalReason }>

/** Checks presented keys against the keys issued at runtime (`DEPLOY_ALLOWLIST` is checked before, without a store). */
export type AgentRegistry = {
  /** Judges a presented key; throws a StoreError when the registry cannot be read. */
  check(presented: string | null): Promise<AgentVerdict>
}

/** Parameters of {@link createAgentRegistry}. */
export type CreateAgentRegistryParameters = {
  /** The shared store holding runtime keys; null: the allowlist alone (an in-process store cannot be shared). */
  store: Store | null
  storePrefix: string
  now: () => number
  /** Age past which the snapshot is read again before answering: a revoked or expired key is refused within it. */
  maxAgeMs?: number
  /** Age past which an unknown key reads the snapshot again: a new key works at once, a flood costs one read a second. */
  missRefreshMs?: number
}

/**
 * The instance's view of the agent keys. It keeps a snapshot of the whole registry, read again when older than
 * `maxAgeMs` (5 s), or than `missRefreshMs` (1 s) when a key is not in it; one read at a time.
 */
export function createAgentRegistry(parameters: CreateAgentRegistryParameters): AgentRegistry {
  const { store, storePrefix, now, maxAgeMs = 5000, missRefreshMs = 1000 } = parameters
  const keys = agentRegistryKeys(storePrefix)
  let snapshot: { byDigest: Map<string, AgentRecord>; readAt: number } | null = null
  let reading: Promise<void> | null = null
  const lastUsedWritten = new Map<string, number>()

  const read = (): Promise<void> => {
    reading ??= (async () => {
      try {
        const records = await listAgentRecords(store!, storePrefix)
        snapshot = { byDigest: new Map(records.map((r) => [r.digest, r])), readAt: now() }
      } finally {
        reading = null
      }
    })()
    return reading
  }

  const noteUse = (digest: string, at: number) => {
    if (at - (lastUsedWritten.get(digest) ?? 0) < 60_000) return
    lastUsedWritten.set(digest, at)
    void store?.set(keys.lastUsed(digest), String(at), RECORD_TTL_MS).catch(() => undefined) // best effort
  }

  return {
    async check(presented) {
      if (!presented) return refused('FORBIDDEN', { reason: 'no key' })
      if (!store || presented.length > AGENT_KEY_MAX_LENGTH) return refused('FORBIDDEN', { reason: 'unknown key' })
      const digest = digestAgentKey(presented)
      if (!snapshot || now() - snapshot.readAt >= maxAgeMs) await read()
      let record = snapshot!.byDigest.get(digest)
      if (!record && now() - snapshot!.readAt >= missRefreshMs) {
        await read()
        record = snapshot!.byDigest.get(digest)
      }
      if (!record) return refused('FORBIDDEN', { reason: 'unknown key' })
      const at = now()
      if (record.revokedAt !== null) return refused('FORBIDDEN', { reason: 'revoked' })
      if (record.expiresAt !== null && record.expiresAt <= at) return refused('FORBIDDEN', { reason: 'expired' })
      noteUse(digest, at)
      return { ok: true, digest, dailyCap: record.dailyCap }
    },
  }
}

/** A refusal of an admin command (`npm run agents`): bad input, an unknown or duplicate label. Nothing was written. */
export class AgentAdminError extends BaseError<'AGENT_ADMIN_REFUSED'> {
  override name = 'AgentAdminError'
  constructor(message: string) {
    super(message, { code: 'AGENT_ADMIN_REFUSED', httpStatus: 400 })
  }
}

/** What an agent may be called: a letter or digit, then up to 63 letters, digits, `.`, `_` or `-`. */
export const AGENT_LABEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** Parameters of {@link issueAgentKey}. */
export type IssueAgentKeyParameters = {
  store: Store
  storePrefix: string
  label: string
  dailyCap?: number | null
  expiresInDays?: number | null
  /** When the key is issued, epoch ms (default: now on the real clock: an admin command's time). */
  now?: number
}

/**
 * Makes a new agent key and files its digest under a unique label; answers the key (shown once, kept nowhere) and its
 * record. Throws {@link AgentAdminError} for a bad label or number, or a label already taken: then nothing is written.
 */
export async function issueAgentKey(parameters: IssueAgentKeyParameters): Promise<{ key: string; record: AgentRecord }> {
  const { store, storePrefix, label, dailyCap = null, expiresInDays = null, now = systemClock.now() } = parameters
  if (!AGENT_LABEL_PATTERN.test(label)) {
    throw new AgentAdminError(
      `label "${label.slice(0, 80)}" must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    )
  }
  if (dailyCap !== null && !(Number.isInteger(dailyCap) && dailyCap >= 0 && dailyCap <= 1_000_000)) {
    throw new AgentAdminError('--daily-cap must be a whole number from 0 to 1000000')
  }
  if (expiresInDays !== null && !(Number.isFinite(expiresInDays) && expiresInDays > 0 && expiresInDays <= 3650)) {
    throw new AgentAdminError('--expires-days must be a number of days from more than 0 to 3650')
  }
  await makeRoomForOneMore(store, storePrefix, now)
  const { key, digest } = generateAgentKey()
  const keys = agentRegistryKeys(storePrefix)
  // The label is claimed atomically, so two operators issuing the same label at once cannot both succeed.
  if (!(await store.setIfAbsent(keys.label(label), digest, RECORD_TTL_MS))) {
    throw new AgentAdminError(`label "${label}" is taken (labels stay with revoked keys); choose another`)
  }
  const record: AgentRecord = {
    digest,
    label,
    createdAt: now,
    expiresAt: expiresInDays === null ? null : now + Math.round(expiresInDays * 24 * 60 * 60 * 1000),
    dailyCap,
    revokedAt: null,
  }
  try {
    await saveAgentRecord(store, storePrefix, record)
  } catch (error) {
    await store.delete(keys.label(label)).catch(() => undefined)
    throw error
  }
  return { key, record }
}

/**
 * Makes sure one more agent fits: below {@link AGENT_REGISTRY_MAX} nothing is done; at it, expired keys and keys revoked
 * over {@link REVOKED_KEPT_MS} ago are purged (record, label, last use); if the registry is still full, throws an
 * {@link AgentAdminError} that says what to do. A valid key is never dropped to make room.
 */
async function makeRoomForOneMore(store: Store, storePrefix: string, now: number): Promise<void> {
  const records = await listAgentRecords(store, storePrefix)
  if (records.length < AGENT_REGISTRY_MAX) return
  const keys = agentRegistryKeys(storePrefix)
  const stale = records.filter(
    (r) => (r.expiresAt !== null && r.expiresAt <= now) || (r.revokedAt !== null && now - r.revokedAt > REVOKED_KEPT_MS),
  )
  for (const record of stale) {
    await removeFromIndex(store, keys.index, record.digest)
    await Promise.all([
      store.delete(keys.record(record.digest)),
      store.delete(keys.label(record.label)),
      store.delete(keys.lastUsed(record.digest)),
    ])
  }
  if (records.length - stale.length >= AGENT_REGISTRY_MAX)
    throw new AgentAdminError(
      `the registry holds ${AGENT_REGISTRY_MAX} agents that are valid or were revoked in the last 30 days; revoke unused ones ` +
        '(npm run agents -- list, then revoke <label>): a revoked key is purged 30 days after its revocation. Nothing was written.',
    )
}

/** An agent as `npm run agents -- list` shows it: never a key, and only the first 12 hex digits of its digest. */
export type AgentListing = Omit<AgentRecord, 'digest'> & { digestPrefix: string; lastUsedAt: number | null }

/** Every agent of the registry, newest first, with when each was last used, and its whole digest (never shown). */
export async function listAgentRecordsWithUse(store: Store, storePrefix: string): Promise<(AgentListing & { digest: string })[]> {
  const records = await listAgentRecords(store, storePrefix)
  const keys = agentRegistryKeys(storePrefix)
  const used = records.length ? await store.getMany(records.map((r) => keys.lastUsed(r.digest))) : []
  return records.map((record, i) => {
    const { digest, ...rest } = record
    return { ...rest, digest, digestPrefix: digest.slice(0, 12), lastUsedAt: used[i] ? Number(used[i]) : null }
  })
}

/** Every agent of the registry, newest first, with when each was last used. */
export async function listAgentKeys(store: Store, storePrefix: string): Promise<AgentListing[]> {
  return (await listAgentRecordsWithUse(store, storePrefix)).map(({ digest: _digest, ...listing }) => listing)
}

/**
 * The agent with this label, or whose digest starts with these hex digits (at least 8). Throws
 * {@link AgentAdminError} when nothing or more than one agent matches.
 */
export async function findAgentRecord(store: Store, storePrefix: string, which: string): Promise<AgentRecord> {
  const records = await listAgentRecords(store, storePrefix)
  const byLabel = records.filter((r) => r.label === which)
  const byDigest = /^[0-9a-f]{8,64}$/.test(which) ? records.filter((r) => r.digest.startsWith(which)) : []
  const matches = byLabel.length ? byLabel : byDigest
  if (matches.length === 0)
    throw new AgentAdminError(`no agent with the label or digest prefix "${which.slice(0, 80)}" (npm run agents -- list)`)
  if (matches.length > 1) throw new AgentAdminError(`"${which}" matches ${matches.length} agents; give more digits of the digest`)
  return matches[0]!
}

/**
 * Revokes the agent with this label, or whose digest starts with these hex digits (at least 8); running instances
 * refuse it within 5 s. Throws {@link AgentAdminError} when nothing or more than one agent matches.
 */
export async function revokeAgentKey(store: Store, storePrefix: string, which: string, now = systemClock.now()): Promise<AgentRecord> {
  const record = await findAgentRecord(store, storePrefix, which)
  if (record.revokedAt !== null) return record
  const revoked = { ...record, revokedAt: now }
  await saveAgentRecord(store, storePrefix, revoked)
  return revoked
}
