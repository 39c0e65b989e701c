import { Ratelimit } from '@upstash/ratelimit'
import { systemClock } from '../platform/clock.js'
import { createSlidingLogStore, takeSlots } from './slidingLog.js'
import { type Store, StoreError } from './types.js'
import type { UpstashStore } from './upstash.js'

/** Parameters of {@link Throttle.limit}: `limit` requests of the client `key` per `windowMs`. */
export type ThrottleParameters = { key: string; limit: number; windowMs: number }

/**
 * Result of {@link Throttle.limit}: whether this request may pass, how many the client has left in the window after
 * it, and in how many ms the window frees a request again (when refused: when to retry).
 */
export type ThrottleReturnType = { ok: boolean; remaining: number; resetAfterMs: number }

/** Per-client throttling: an approximate sliding window (right for throttling, not for a spending cap). */
export type Throttle = { limit(parameters: ThrottleParameters): Promise<ThrottleReturnType> }

/**
 * The throttle of a store: `@upstash/ratelimit`'s sliding window over an Upstash store's client, shared by every
 * instance; the service's sliding log (`slidingLog.ts`) in this process over the in-process store, on `now`.
 */
export function createThrottle(store: Store, now: () => number): Throttle {
  return store.kind === 'upstash' ? createUpstashThrottle(store as UpstashStore) : createLocalThrottle(now)
}

function createUpstashThrottle({ redis, timeoutMs }: UpstashStore): Throttle {
  // One limiter per (limit, window).
  const limiters = new Map<string, Ratelimit>()
  const limiterFor = (limit: number, windowMs: number) => {
    const id = `${limit}/${windowMs}`
    let limiter = limiters.get(id)
    if (!limiter) {
      limiter = new Ratelimit({
        redis,
        limiter: Ratelimit.slidingWindow(limit, `${Math.round(windowMs)} ms`),
        prefix: '',
        analytics: false,
        ephemeralCache: false,
        timeout: timeoutMs,
      })
      limiters.set(id, limiter)
    }
    return limiter
  }
  return {
    async limit({ key, limit, windowMs }) {
      const result = await limiterFor(limit, windowMs)
        .limit(key)
        .catch(() => {
          // The library's own message quotes the command; the caller only needs to know the store failed.
          throw new StoreError('store throttle failed')
        })
      // Its timeout answers success with reason "timeout": a throttle may fail open, never a read. Its `reset` is on
      // the real clock, the one the library keeps its windows on, so it is read against that clock.
      return {
        ok: result.success,
        remaining: Math.max(0, result.remaining),
        resetAfterMs: Math.max(0, result.reset - systemClock.now()),
      }
    },
  }
}

/**
 * A sliding log per client in this process: the service's one sliding log (`slidingLog.ts`) over a store of its own.
 * Idle clients' logs expire with their window, and at most the in-process store's bound of clients is kept (the
 * least recently admitted goes first).
 */
export function createLocalThrottle(now: () => number): Throttle {
  const logs = createSlidingLogStore(now)
  let requests = 0
  return {
    async limit({ key, limit, windowMs }) {
      const at = now()
      const { taken, windows } = await takeSlots(logs, { windows: [{ key, limit, windowMs }], member: `${at}:${++requests}`, now: at })
      const { used, oldestAt } = windows[0]!
      return { ok: taken === 1, remaining: Math.max(0, limit - used), resetAfterMs: oldestAt + windowMs - at }
    },
  }
}
