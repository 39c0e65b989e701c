import { createHash } from 'node:crypto'
import { z } from 'zod'
import { errorName, type Logger } from '../../platform/log.js'
import { parseRecord } from '../../store/records.js'
import type { Store } from '../../store/types.js'
import { idempotencyKey as idempotencyKeyOf } from '../keys.js'
import { type DeployFailure, failure } from '../outcome.js'

/** How long an answer is replayed for the same agent, key and body. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000
/** How long a request with a key may run before another with the same key may try again. */
const IN_PROGRESS_TTL_MS = 5 * 60 * 1000

/** Rules of an `Idempotency-Key` header: 1 to 128 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,128}$/

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

/**
 * Runs `run` at most once per agent + idempotency key + body within 24 h: a repeat gets the original answer, the
 * same keys with another body get a conflict, a repeat while the first still runs is told to wait.
 */
export async function runIdempotently<T extends { ok: boolean }>(
  parameters: RunIdempotentlyParameters<T>,
): Promise<{ response: T | DeployFailure; replayed: boolean }> {
  const { store, logger, keyPrefix, agentDigest, idempotencyKey, body, run, isFinal } = parameters
  const key = idempotencyKeyOf(keyPrefix, agentDigest, sha256(idempotencyKey))
  const bodyHash = sha256(canonicalJson(body))
  const unavailable = () =>
    failure('STORE_UNAVAILABLE', 'The idempotency store (Redis) is unavailable; nothing was done. Try again shortly.', {
      retryAfterSeconds: 10,
    })

  const existing = async (): Promise<{ response: T | DeployFailure; replayed: boolean } | null> => {
    const raw = await store.get(key)
    if (raw === null) return null
    const record = parseRecord(storedRecordSchema, raw)
    // A record this version cannot read is never replayed: its key stays taken, so the caller is told to try later.
    if (record === null) return null
    if (record.bodyHash !== bodyHash) {
      return {
        response: failure(
          'IDEMPOTENCY_CONFLICT',
          'This Idempotency-Key was already used with a different request body; use a new key for a new deploy.',
        ),
        replayed: false,
      }
    }
    if (record.state === 'pending') {
      return {
        response: failure(
          'IDEMPOTENCY_IN_PROGRESS',
          'A request with this Idempotency-Key is still running; retry shortly to get its answer.',
          { retryAfterSeconds: 2 },
        ),
        replayed: false,
      }
    }
    return { response: record.response as T, replayed: true }
  }

  try {
    const found = await existing()
    if (found) return found
    const pending: z.infer<typeof storedRecordSchema> = { state: 'pending', bodyHash }
    if (!(await store.setIfAbsent(key, JSON.stringify(pending), IN_PROGRESS_TTL_MS))) {
      return (await existing()) ?? { response: unavailable(), replayed: false }
    }
  } catch (error) {
    logger.error('store_unavailable', { operation: 'idempotency', error: errorName(error) })
    return { response: unavailable(), replayed: false }
  }

  let response: T
  try {
    response = await run()
  } catch (error) {
    await store.delete(key).catch(() => undefined)
    throw error
  }
  try {
    if (isFinal(response))
      await store.set(
        key,
        JSON.stringify({ state: 'done', bodyHash, response } satisfies z.infer<typeof storedRecordSchema>),
        IDEMPOTENCY_TTL_MS,
      )
    else await store.delete(key)
  } catch (error) {
    // The deploy already happened: answer it, and say in the log that a replay may not find it.
    logger.error('store_unavailable', { operation: 'idempotency-save', error: errorName(error) })
  }
  return { response, replayed: false }
}
