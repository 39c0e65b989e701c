import { createHash } from 'node:crypto'
import { z } from 'zod'
import { type Logger, unexpectedErrorFields } from '../../platform/log.js'
import { parseRecord } from '../../store/records.js'
import { type Store, StoreError } from '../../store/types.js'
import { idempotencyKey as idempotencyKeyOf } from '../keys.js'
import { type DeployFailure, failure, storeFailureOf } from '../outcome.js'

/** How long an answer is replayed for the same agent, key and body. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000
/** How long a request with a key may run before another with the same key may try again. */
const IN_PROGRESS_TTL_MS = 5 * 60 * 1000

/** JSON text with object keys sorted at every level, so equal bodies hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** What the store keeps per agent and Idempotency-Key: the body's hash, and the answer once there is one. */
const storedRecordSchema = z.object({ state: z.enum(['pending', 'done']), bodyHash: z.string(), response: z.unknown().optional() })
type StoredRecord = z.infer<typeof storedRecordSchema>

/** Parameters of {@link runIdempotently}. */
export type RunIdempotentlyParameters<T extends { ok: boolean }> = {
  store: Store
  logger: Logger
  keyPrefix: string
  agentDigest: string
  idempotencyKey: string
  body: unknown
  run: () => Promise<T>
  /** Whether an answer must be replayed rather than recomputed (it changed the world). */
  isFinal: (response: T) => boolean
}

/** What the store holds for a key, as {@link runIdempotently} reads it. */
type Found = { kind: 'absent' } | { kind: 'unreadable' } | { kind: 'record'; record: StoredRecord }

/**
 * Runs `run` at most once per agent + idempotency key + body within 24 h: a repeat gets the original answer, the
 * same keys with another body get a conflict, a repeat while the first still runs is told to wait. Only a store
 * failure is `STORE_UNAVAILABLE`; a record this version cannot read is a conflict (its key stays taken: a new key is
 * the way on), and any other error is thrown on.
 */
export async function runIdempotently<T extends { ok: boolean }>(
  parameters: RunIdempotentlyParameters<T>,
): Promise<{ response: T | DeployFailure; replayed: boolean }> {
  const { store, logger, keyPrefix, agentDigest, idempotencyKey, body, run, isFinal } = parameters
  const key = idempotencyKeyOf(keyPrefix, agentDigest, sha256(idempotencyKey))
  const bodyHash = sha256(canonicalJson(body))
  const read = async (): Promise<Found> => {
    const raw = await store.get(key)
    if (raw === null) return { kind: 'absent' }
    const record = parseRecord(storedRecordSchema, raw)
    return record ? { kind: 'record', record } : { kind: 'unreadable' }
  }

  let claimed = false
  let early: { response: T | DeployFailure; replayed: boolean } | null = null
  try {
    // Twice at most: a record may vanish between the look and the claim (a first request that failed gave it back).
    for (let attempt = 0; attempt < 2 && !claimed && !early; attempt++) {
      const found = await read()
      if (found.kind !== 'absent') early = answerOf<T>(found, bodyHash)
      else claimed = await store.setIfAbsent(key, JSON.stringify({ state: 'pending', bodyHash } satisfies StoredRecord), IN_PROGRESS_TTL_MS)
    }
  } catch (error) {
    const response = storeFailureOf(error, {
      logger,
      operation: 'idempotency',
      message: 'The idempotency store (Redis) is unavailable; nothing was done. Try again shortly.',
    })
    return { response, replayed: false }
  }
  if (early) return early
  // Claimed and given back twice in a row: another request with this key is running; its answer comes on a retry.
  if (!claimed) return answerOf<T>({ kind: 'record', record: { state: 'pending', bodyHash } }, bodyHash)
  return { response: await runAndKeep(), replayed: false }

  async function runAndKeep(): Promise<T> {
    let response: T
    try {
      response = await run()
    } catch (error) {
      await store.delete(key).catch(() => undefined)
      throw error
    }
    try {
      if (isFinal(response))
        await store.set(key, JSON.stringify({ state: 'done', bodyHash, response } satisfies StoredRecord), IDEMPOTENCY_TTL_MS)
      else await store.delete(key)
    } catch (error) {
      // The deploy already happened: answer it, and say in the log that a replay may not find it.
      const event = error instanceof StoreError ? 'store_unavailable' : 'idempotency_save_failed'
      logger.error(event, { operation: 'idempotency-save', ...unexpectedErrorFields(error) })
    }
    return response
  }
}

/** The answer to a request whose key is already taken: the stored answer (replayed), a conflict, or "still running". */
function answerOf<T>(found: Exclude<Found, { kind: 'absent' }>, bodyHash: string): { response: T | DeployFailure; replayed: boolean } {
  const refused = (response: DeployFailure) => ({ response, replayed: false })
  if (found.kind === 'unreadable')
    return refused(
      failure(
        'IDEMPOTENCY_CONFLICT',
        'This Idempotency-Key is taken by a request this version of the service cannot read back; nothing was done. Use a new key for a new deploy.',
      ),
    )
  const { record } = found
  if (record.bodyHash !== bodyHash)
    return refused(
      failure(
        'IDEMPOTENCY_CONFLICT',
        'This Idempotency-Key was already used with a different request body; use a new key for a new deploy.',
      ),
    )
  if (record.state === 'pending')
    return refused(
      failure('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still running; retry shortly to get its answer.', {
        retryAfterSeconds: 2,
      }),
    )
  return { response: record.response as T, replayed: true }
}
