import { createHash } from 'node:crypto'
import { errorName, type Logger } from './log.js'
import type { Store } from './store/types.js'

/** A cached response body with the validator and the instant it stops being fresh. */
export type CachedBody = {
  /** The JSON text served to clients, byte for byte the same across instances within the window. */
  body: string
  /** Strong ETag of `body`, quoted. */
  etag: string
  /** Epoch ms after which the entry is stale (on the cache's clock). */
  expiresAt: number
}

/** A cache entry as held in the instance: the body is also kept UTF-8 encoded, so a warm hit copies nothing. */
export type LocalCachedBody = CachedBody & { bytes: Uint8Array }

/** Computes the strong ETag of a body. */
export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
}

/** Parameters of {@link createReadCache}. */
export type CreateReadCacheParameters = {
  store: Store
  logger: Logger
  now?: () => number
  /** Lease of the cross-instance refresh lock; longer than a whole refresh may take (default 12 s). */
  lockTtlMs?: number
  /** How often a waiter looks for the lock holder's result (default 50 ms). */
  pollIntervalMs?: number
}

/** Parameters of {@link ReadCache.read}. */
export type ReadParameters = {
  key: string
  ttlMs: number
  /** Produces the fresh body; its failure reaches the caller and is never cached. */
  refresh: () => Promise<string>
}

/** A read-through cache with single-flight refreshes in the instance and a short lock across instances. */
export type ReadCache = { read(parameters: ReadParameters): Promise<LocalCachedBody> }

/** Most entries kept in the instance's own copy of the shared cache. */
export const LOCAL_ENTRIES_MAX = 1000

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Creates the read-through cache used by the read endpoints. */
export function createReadCache(parameters: CreateReadCacheParameters): ReadCache {
  const { store, logger, now = Date.now, lockTtlMs = 12_000, pollIntervalMs = 50 } = parameters
  const local = new Map<string, LocalCachedBody>()
  const inFlight = new Map<string, Promise<LocalCachedBody>>()

  const isFresh = (entry: CachedBody | null | undefined): entry is CachedBody => !!entry && entry.expiresAt > now()

  /** Runs a store call; a failing store degrades to "no cache" with one log line instead of failing the read. */
  const tryStore = async <T>(operation: string, run: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false }> => {
    try {
      return { ok: true, value: await run() }
    } catch (error) {
      logger.warn('store_unavailable', { operation, store: store.kind, error: errorName(error), effect: 'serving uncached' })
      return { ok: false }
    }
  }

  const readShared = async (key: string): Promise<CachedBody | null | 'down'> => {
    const result = await tryStore('get', () => store.get(key))
    if (!result.ok) return 'down'
    if (result.value === null) return null
    try {
      const entry = JSON.parse(result.value) as CachedBody
      return typeof entry.body === 'string' && typeof entry.etag === 'string' && typeof entry.expiresAt === 'number' ? entry : null
    } catch {
      return null
    }
  }

  const produce = async ({ key, ttlMs, refresh }: ReadParameters, save: boolean): Promise<CachedBody> => {
    const body = await refresh()
    const entry: CachedBody = { body, etag: etagOf(body), expiresAt: now() + ttlMs }
    if (save) await tryStore('set', () => store.set(key, JSON.stringify(entry), ttlMs))
    return entry
  }

  const refreshShared = async (parameters: ReadParameters): Promise<CachedBody> => {
    const { key } = parameters
    const lockKey = `${key}:refresh-lock`
    const deadline = Date.now() + lockTtlMs
    for (;;) {
      const shared = await readShared(key)
      if (shared === 'down') return produce(parameters, false)
      if (isFresh(shared)) return shared
      const lock = await tryStore('lock', () => store.acquireLock(lockKey, lockTtlMs))
      if (!lock.ok) return produce(parameters, false)
      if (lock.value !== null) {
        try {
          // Another instance may have finished between our read and our lock.
          const again = await readShared(key)
          if (again !== 'down' && isFresh(again)) return again
          return await produce(parameters, true)
        } finally {
          const owner = lock.value
          await tryStore('unlock', () => store.releaseLock(lockKey, owner))
        }
      }
      // Someone else is refreshing: wait for their result, but never past the lock's lease.
      if (Date.now() >= deadline) return produce(parameters, true)
      await sleep(pollIntervalMs)
    }
  }

  return {
    async read(parameters) {
      const cached = local.get(parameters.key)
      if (isFresh(cached)) return cached
      let flight = inFlight.get(parameters.key)
      if (!flight) {
        flight = refreshShared(parameters)
          .then((shared): LocalCachedBody => {
            const entry = { ...shared, bytes: Buffer.from(shared.body, 'utf8') }
            // Bounded: search terms are open-ended, so the oldest entry makes room.
            if (local.size >= LOCAL_ENTRIES_MAX) local.delete(local.keys().next().value!)
            local.set(parameters.key, entry)
            return entry
          })
          .finally(() => inFlight.delete(parameters.key))
        inFlight.set(parameters.key, flight)
      }
      return flight
    },
  }
}
