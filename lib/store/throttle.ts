import { Ratelimit } from '@upstash/ratelimit'
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

/** Clients tracked by the in-process throttle before idle ones are swept. */
const THROTTLED_CLIENTS_MAX = 10_000

/**
 * The throttle of a store: `@upstash/ratelimit`'s sliding window over an Upstash store's client, shared by every
 * instance; a sliding log in this process over the in-process store.
 */
export function createThrottle(store: Store): Throttle {
  return store.kind === 'upstash' ? createUpstashThrottle(store as UpstashStore) : createLocalThrottle()
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
      // Its timeout answers success with reason "timeout": a throttle may fail open, never a read.
      return { ok: result.success, remaining: Math.max(0, result.remaining), resetAfterMs: Math.max(0, result.reset - Date.now()) }
    },
  }
}

/** A sliding log per client in this process; entries older than the window are dropped, and idle clients with them. */
export function createLocalThrottle(now: () => number = Date.now): Throttle {
  const logs = new Map<string, number[]>()
  return {
    async limit({ key, limit, windowMs }) {
      const at = now()
      const log = (logs.get(key) ?? []).filter((t) => t > at - windowMs)
      logs.set(key, log)
      if (log.length >= limit) return { ok: false, remaining: 0, resetAfterMs: log[0]! + windowMs - at }
      log.push(at)
      if (logs.size > THROTTLED_CLIENTS_MAX) for (const [k, l] of logs) if (l.every((t) => t <= at - windowMs)) logs.delete(k)
      return { ok: true, remaining: limit - log.length, resetAfterMs: log[0]! + windowMs - at }
    },
  }
}
