import { createHash } from 'node:crypto'
import type { Sleep } from '../../platform/clock.js'
import type { Result } from '../../platform/result.js'
import type { Store } from '../../store/types.js'
import type { CachedBody, ReadParameters } from './cachedBody.js'

/** Runs a store call; a failing store answers `STORE_UNAVAILABLE` (with a log line) instead of failing the read. */
export type TryStore = <T>(operation: string, run: () => Promise<T>) => Promise<Result<{ value: T }, 'STORE_UNAVAILABLE'>>

/** Parameters of {@link createSharedRefresh}: the cache's store, clock and bounds, and its two store readers. */
export type CreateSharedRefreshParameters = {
  store: Store
  now: () => number
  /** Waits on the same clock as `now`. */
  sleep: Sleep
  /** How long a body is kept past its window (stale-while-revalidate and stale-if-error). */
  staleForMs: number
  lockTtlMs: number
  pollIntervalMs: number
  tryStore: TryStore
  readShared: (key: string) => Promise<CachedBody | null | 'down'>
  isFresh: (entry: CachedBody | null | undefined) => boolean
}

/** Lease of a refresh's store lock: longer than a whole refresh may take. */
export const REFRESH_LOCK_MS = 12_000

/**
 * The store lock of a cached body's refresh, held from before the refresh reads what it needs until its writes land:
 * other work that rewrites what a refresh writes (the universe) takes the same lock.
 */
export function refreshLockKey(key: string): string {
  return `${key}:refresh-lock`
}

/** Computes the strong ETag of a body. */
export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
}

/**
 * The refresh of a cached body across instances: one instance takes a short store lock, refreshes, and writes the
 * body with the refresh's other writes and the lock's release in one store call; the others wait for its result,
 * never past the lock's lease. Without the store, every caller refreshes on its own (uncached).
 */
export function createSharedRefresh(parameters: CreateSharedRefreshParameters) {
  const { store, now, sleep, staleForMs, lockTtlMs, pollIntervalMs, tryStore, readShared, isFresh } = parameters
  /**
   * Runs the refresh; when `save`, writes its body (kept past its window, for as long as it may be served stale) with
   * the refresh's other writes and the release of `lock`, all in one store call.
   */
  const produce = async (
    { key, ttlMs, refresh }: ReadParameters,
    save: boolean,
    lock?: { key: string; token: string },
  ): Promise<CachedBody> => {
    const { body, source, writes = [] } = await refresh()
    const fetchedAt = now()
    const entry: CachedBody = { body, etag: etagOf(body), fetchedAt, expiresAt: fetchedAt + ttlMs, ...(source ? { source } : {}) }
    if (save) {
      const entries = [{ key, value: JSON.stringify(entry), ttlMs: Math.max(ttlMs, staleForMs) }, ...writes]
      await tryStore('set', () => store.writeMany({ entries, ...(lock ? { releaseLock: lock } : {}) }))
    }
    return entry
  }

  /**
   * A refresh that the caller waits for: single-flight across instances through a short lock. `firstRead` is the
   * shared entry the caller has just read, so it is not read again before the lock.
   */
  const refreshShared = async (parameters: ReadParameters, firstRead?: CachedBody | null | 'down'): Promise<CachedBody> => {
    const { key } = parameters
    const lockKey = refreshLockKey(key)
    const deadline = now() + lockTtlMs
    for (let pending = firstRead; ; pending = undefined) {
      const shared = pending !== undefined ? pending : await readShared(key)
      if (shared === 'down') return produce(parameters, false)
      if (shared && isFresh(shared)) return shared
      const lock = await tryStore('lock', () => store.acquireLock(lockKey, lockTtlMs))
      if (!lock.ok) return produce(parameters, false)
      if (lock.value !== null) {
        const owner = { key: lockKey, token: lock.value }
        let released = false
        try {
          // Another instance may have finished between our read and our lock.
          const again = await readShared(key)
          if (again !== 'down' && again && isFresh(again)) return again
          const produced = await produce(parameters, true, owner)
          released = true // with the body, in the same store call
          return produced
        } finally {
          if (!released) await tryStore('unlock', () => store.releaseLock(lockKey, owner.token))
        }
      }
      // Someone else is refreshing: wait for their result, but never past the lock's lease.
      if (now() >= deadline) return produce(parameters, true)
      await sleep(pollIntervalMs)
    }
  }
  return refreshShared
}
