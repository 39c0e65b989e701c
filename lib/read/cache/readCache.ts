import { LRUCache } from 'lru-cache'
import type { Sleep } from '../../platform/clock.js'
import { errorName, type Logger, publicErrorMessage } from '../../platform/log.js'
import { accepted, refused } from '../../platform/result.js'
import type { Store } from '../../store/types.js'
import { type CachedBody, type CacheReadReturnType, type LocalCachedBody, parseCachedBody, type ReadParameters } from './cachedBody.js'
import { createSharedRefresh, REFRESH_LOCK_MS, type TryStore } from './sharedRefresh.js'

/** Parameters of {@link createReadCache}. */
export type CreateReadCacheParameters = {
  store: Store
  logger: Logger
  /** The clock that stamps the bodies... */
  now: () => number
  /** ...and the one every wait of the cache runs on. */
  sleep: Sleep
  /** Up to what age a body may still be served past its window (stale-while-revalidate and stale-if-error; default 600 s). */
  staleForMs?: number
  /** Keeps the instance alive for a background refresh (Vercel's `waitUntil`); the refresh runs either way. */
  waitUntil?: (promise: Promise<unknown>) => void
  /** Lease of the cross-instance refresh lock; longer than a whole refresh may take (default 12 s). */
  lockTtlMs?: number
  /** How often a waiter looks for the lock holder's result (default 50 ms). */
  pollIntervalMs?: number
  /** After a background refresh failed, how long before the next one is tried (default 5 s). */
  retryFailedAfterMs?: number
  /**
   * The few bodies read all the time (the control room, the market history): kept apart from the bounded copy of
   * everything else, so no number of distinct search terms can push them out.
   */
  hotKeys?: readonly string[]
  /** Most entries of that bounded copy (default {@link LOCAL_ENTRIES_MAX}). */
  localEntriesMax?: number
}

/**
 * A read-through cache. Fresh bodies are served from the instance or the shared store. Once a body is past its window
 * it is still served at once while younger than `staleForMs`, while one refresh runs in the background (single-flight in the
 * instance, a lock across instances); if that refresh fails, the body keeps being served until it is too old. With
 * no body young enough, the caller waits for the refresh, and its failure is the caller's.
 */
export type ReadCache = {
  read(parameters: ReadParameters): Promise<CacheReadReturnType>
  /** The instance's own fresh copy of `key`, or null: no store call, no refresh, nothing left running. */
  peek(key: string): CacheReadReturnType | null
  /**
   * Refreshes the key now when the shared body is older than `olderThanMs` (or absent), through the same single flight
   * as a read (one refresh across instances), and waits for it: the scheduled tick keeps bodies warm this way.
   */
  refreshIfOlder(parameters: ReadParameters & { olderThanMs: number }): Promise<RefreshIfOlderReturnType>
  /**
   * Calls `listener` each time the instance's own copy of `key` becomes a different body, whoever made it (a read, the
   * tick, another instance's refresh read back); answers the function that stops it. No store call of its own.
   */
  onChange(key: string, listener: (entry: LocalCachedBody) => void): () => void
}

/** What {@link ReadCache.refreshIfOlder} answers: the body now held, and whether this call had it made. */
export type RefreshIfOlderReturnType = { entry: LocalCachedBody; refreshed: boolean }

/**
 * Most entries kept in the instance's own copy of the shared cache besides the hot bodies: the least recently read goes
 * first, so a flood of distinct search terms costs bounded memory.
 */
export const LOCAL_ENTRIES_MAX = 1000

/** The instance's own copy: the hot bodies each in a place of their own, everything else in a bounded LRU. */
type LocalCopies = { get(key: string): LocalCachedBody | undefined; set(key: string, entry: LocalCachedBody): void }

/** Creates the instance's {@link LocalCopies}, with a place kept for each of `hotKeys` and at most `max` others. */
function createLocalCopies(hotKeys: readonly string[], max: number): LocalCopies {
  const hot = new Map<string, LocalCachedBody | undefined>(hotKeys.map((key) => [key, undefined]))
  const others = new LRUCache<string, LocalCachedBody>({ max })
  return {
    get: (key) => (hot.has(key) ? hot.get(key) : others.get(key)),
    set: (key, entry) => {
      if (hot.has(key)) hot.set(key, entry)
      else others.set(key, entry)
    },
  }
}

/**
 * The shared store as the cache uses it: a failing store call degrades to "no cache" with one log line instead of
 * failing the read, and a body read back is parsed (`'down'` when the store did not answer).
 */
function sharedCacheAccess(store: Store, logger: Logger) {
  const tryStore: TryStore = async (operation, run) => {
    try {
      return accepted({ value: await run() })
    } catch (error) {
      logger.warn('store_unavailable', { operation, store: store.kind, error: errorName(error), effect: 'serving uncached' })
      return refused('STORE_UNAVAILABLE')
    }
  }
  const readShared = async (key: string): Promise<CachedBody | null | 'down'> => {
    const result = await tryStore('get', () => store.get(key))
    return result.ok ? parseCachedBody(result.value) : 'down'
  }
  return { tryStore, readShared }
}

/** A listener of the changes of one key. */
type ChangeListener = (entry: LocalCachedBody) => void

/**
 * Tells a key's listeners of its new body, each on its own: a listener that throws is logged (once per listener) and
 * never fails the refresh or the read that made the body, nor keeps the others from being told.
 */
function createChangeNotices(listeners: Map<string, Set<ChangeListener>>, logger: Logger) {
  const failed = new WeakSet<ChangeListener>()
  return (key: string, entry: LocalCachedBody): void => {
    for (const listener of listeners.get(key) ?? []) {
      try {
        listener(entry)
      } catch (error) {
        if (failed.has(listener)) continue
        failed.add(listener)
        logger.error('change_listener_failed', { key: key.split(':').slice(-2).join(':'), error: errorName(error) })
      }
    }
  }
}

/** Parameters of {@link createRefreshFlights}. */
type CreateRefreshFlightsParameters = {
  refreshShared: (parameters: ReadParameters, firstRead?: CachedBody | null | 'down') => Promise<CachedBody>
  keepLocal: (key: string, shared: CachedBody) => LocalCachedBody
  logger: Logger
  now: () => number
  waitUntil?: (promise: Promise<unknown>) => void
  retryFailedAfterMs: number
}

/**
 * The instance's refreshes: one per key at a time (single flight), its result kept as the instance's entry; and the
 * background refresh of a stale key, paused for a few seconds after one failed.
 */
function createRefreshFlights({ refreshShared, keepLocal, logger, now, waitUntil, retryFailedAfterMs }: CreateRefreshFlightsParameters) {
  const inFlight = new Map<string, Promise<LocalCachedBody>>()
  /** When (on the cache's clock) the last background refresh of a key failed. */
  const failedAt = new LRUCache<string, number>({ max: LOCAL_ENTRIES_MAX })

  const flight = (parameters: ReadParameters, firstRead?: CachedBody | null | 'down'): Promise<LocalCachedBody> => {
    let running = inFlight.get(parameters.key)
    if (!running) {
      running = refreshShared(parameters, firstRead)
        .then((shared) => {
          failedAt.delete(parameters.key) // a refresh that worked ends the pause after one that failed
          return keepLocal(parameters.key, shared)
        })
        .finally(() => inFlight.delete(parameters.key))
      inFlight.set(parameters.key, running)
    }
    return running
  }

  /** Starts a background refresh of a stale key (at most one per key in this instance); never throws. */
  const revalidate = (parameters: ReadParameters): void => {
    const { key } = parameters
    if (inFlight.has(key)) return
    // During an outage the stale body is served; the upstream is asked again at most every few seconds, not per request.
    if (now() - (failedAt.get(key) ?? -Infinity) < retryFailedAfterMs) return
    const running = flight(parameters).then(
      () => void failedAt.delete(key),
      (error: unknown) => {
        failedAt.set(key, now())
        logger.warn('background_refresh_failed', {
          key: key.split(':').slice(-2).join(':'),
          error: errorName(error),
          message: publicErrorMessage(error),
        })
      },
    )
    waitUntil?.(running)
  }

  return { flight, revalidate, isRunning: (key: string) => inFlight.has(key) }
}

/** Creates the read-through cache used by the read endpoints. */
export function createReadCache(parameters: CreateReadCacheParameters): ReadCache {
  const {
    store,
    logger,
    now,
    sleep,
    staleForMs = 600_000,
    waitUntil,
    lockTtlMs = REFRESH_LOCK_MS,
    pollIntervalMs = 50,
    retryFailedAfterMs = 5000,
    hotKeys = [],
    localEntriesMax = LOCAL_ENTRIES_MAX,
  } = parameters
  const local = createLocalCopies(hotKeys, localEntriesMax)
  const listeners = new Map<string, Set<ChangeListener>>()

  const isFresh = (entry: CachedBody | null | undefined): boolean => !!entry && entry.expiresAt > now()
  const isServable = (entry: CachedBody | null | undefined): boolean => !!entry && now() - entry.fetchedAt < staleForMs

  const { tryStore, readShared } = sharedCacheAccess(store, logger)
  const tell = createChangeNotices(listeners, logger)

  const keepLocal = (key: string, shared: CachedBody): LocalCachedBody => {
    const current = local.get(key)
    if (current && current.etag === shared.etag && current.expiresAt === shared.expiresAt) return current
    const entry = { ...shared, bytes: Buffer.from(shared.body, 'utf8') }
    local.set(key, entry)
    if (current?.etag !== entry.etag) tell(key, entry)
    return entry
  }

  const refreshShared = createSharedRefresh({ store, now, sleep, staleForMs, lockTtlMs, pollIntervalMs, tryStore, readShared, isFresh })

  const { flight, revalidate, isRunning } = createRefreshFlights({ refreshShared, keepLocal, logger, now, waitUntil, retryFailedAfterMs })

  return {
    async refreshIfOlder({ olderThanMs, ...parameters }) {
      const shared = await readShared(parameters.key)
      const known = shared === 'down' ? null : shared
      if (known && now() - known.fetchedAt < olderThanMs) return { entry: keepLocal(parameters.key, known), refreshed: false }
      const entry = await flight(parameters, shared)
      return { entry, refreshed: entry.fetchedAt !== known?.fetchedAt }
    },
    async read(parameters) {
      const cached = local.get(parameters.key)
      if (cached && isFresh(cached)) return { entry: cached, stale: false }
      return readPastWindow(parameters, cached)
    },
    peek(key) {
      const cached = local.get(key)
      return cached && isFresh(cached) ? { entry: cached, stale: false } : null
    },
    onChange(key, listener) {
      const forKey = listeners.get(key) ?? new Set()
      listeners.set(key, forKey.add(listener))
      return () => {
        forKey.delete(listener)
        if (forKey.size === 0) listeners.delete(key)
      }
    },
  }

  /** A read the instance's own copy cannot answer fresh: the shared store, a stale answer while refreshing, or a refresh. */
  async function readPastWindow(parameters: ReadParameters, cached: LocalCachedBody | undefined): Promise<CacheReadReturnType> {
    const { key } = parameters
    // Past the instance's window: another instance may have refreshed already.
    let best: LocalCachedBody | undefined = cached
    /** What this read found in the store: a refresh it starts does not ask the store the same again before its lock. */
    let firstRead: CachedBody | null | 'down' | undefined
    if (!isRunning(key)) {
      firstRead = await readShared(key)
      if (firstRead !== 'down' && firstRead && (!best || firstRead.fetchedAt > best.fetchedAt)) best = keepLocal(key, firstRead)
      if (best && isFresh(best)) return { entry: best, stale: false }
    }
    if (best && isServable(best)) {
      revalidate(parameters)
      return { entry: best, stale: true }
    }
    return { entry: await flight(parameters, firstRead), stale: false }
  }
}
