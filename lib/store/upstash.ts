import { randomUUID } from 'node:crypto'
import { Ratelimit } from '@upstash/ratelimit'
import { Redis } from '@upstash/redis'
import {
  CLAIM_DUE_SCRIPT,
  CLAIM_NEXT_NONCE_SCRIPT,
  PUT_INDEXED_SCRIPT,
  RELEASE_LOCK_SCRIPT,
  RELEASE_NONCE_SCRIPT,
  RESERVE_WINDOW_SLOT_SCRIPT,
  RESERVE_WINDOW_SLOTS_SCRIPT,
  WRITE_MANY_SCRIPT,
} from './scripts.js'
import { type Store, StoreError } from './types.js'

/** Parameters of {@link createUpstashStore}. */
export type CreateUpstashStoreParameters = {
  url: string
  token: string
  /** Longest a single store call may take before it counts as failed (default 2000 ms). */
  timeoutMs?: number
}

/** The Upstash Redis store (REST protocol), shared by every instance of the service. */
export function createUpstashStore(parameters: CreateUpstashStoreParameters): Store {
  const { url, token, timeoutMs = 2000 } = parameters
  const redis = new Redis({
    url,
    token,
    automaticDeserialization: false,
    enableTelemetry: false,
    // The client retries network errors 5 times over ~4 s by default; a cache in front of live data must not wait that long.
    retry: { retries: 1, backoff: () => 100 },
  })
  // Upstash errors quote the whole command; callers only ever see which operation failed.
  const call = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined
    try {
      return await Promise.race([
        run(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new StoreError(`store ${operation} timed out after ${timeoutMs} ms`)), timeoutMs)
        }),
      ])
    } catch (error) {
      if (error instanceof StoreError) throw error
      throw new StoreError(`store ${operation} failed`)
    } finally {
      clearTimeout(timer)
    }
  }
  // One limiter per (limit, window): @upstash/ratelimit's sliding window, the user's stack for throttling.
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
    kind: 'upstash',
    get: (key) =>
      call('get', async () => {
        const value = await redis.get<string>(key)
        return typeof value === 'string' ? value : null
      }),
    getMany: (keys) =>
      call('get', async () => {
        if (keys.length === 0) return []
        const values = await redis.mget<(string | null)[]>(...keys)
        return values.map((v) => (typeof v === 'string' ? v : null))
      }),
    set: (key, value, ttlMs) =>
      call('set', async () => {
        await redis.set(key, value, { px: Math.max(1, Math.round(ttlMs)) })
      }),
    acquireLock: (key, ttlMs) =>
      call('lock', async () => {
        const owner = randomUUID()
        const result = await redis.set(key, owner, { nx: true, px: Math.max(1, Math.round(ttlMs)) })
        return result === 'OK' ? owner : null
      }),
    releaseLock: (key, owner) =>
      call('unlock', async () => {
        const deleted = await redis.eval<[string], number>(RELEASE_LOCK_SCRIPT, [key], [owner])
        return Number(deleted) === 1
      }),
    setIfAbsent: (key, value, ttlMs) =>
      call('set', async () => {
        return (await redis.set(key, value, { nx: true, px: Math.max(1, Math.round(ttlMs)) })) === 'OK'
      }),
    delete: (key) =>
      call('delete', async () => {
        await redis.del(key)
      }),
    writeMany: ({ entries, releaseLock }) =>
      call('set', async () => {
        if (entries.length === 0 && !releaseLock) return
        const keys = [...entries.map((e) => e.key), ...(releaseLock ? [releaseLock.key] : [])]
        const args = [
          String(entries.length),
          ...entries.flatMap((e) => [e.value, String(Math.max(1, Math.round(e.ttlMs))), e.ifAbsent ? 'nx' : '-']),
        ]
        if (releaseLock) args.push(releaseLock.token)
        await redis.eval(WRITE_MANY_SCRIPT, keys, args)
      }),
    reserveWindowSlot: ({ key, member, limit, windowMs, now }) =>
      call('window', async () => {
        const reply = await redis.eval<string[], (number | string)[]>(
          RESERVE_WINDOW_SLOT_SCRIPT,
          [key],
          [String(Math.round(now)), String(Math.round(windowMs)), String(limit), member],
        )
        const [added, used, oldest] = reply.map(Number) as [number, number, number | undefined]
        return added === 1 ? { ok: true as const, used } : { ok: false as const, used, freesAt: (oldest ?? now) + windowMs }
      }),
    countWindow: ({ key, windowMs, now }) =>
      call('window', async () => {
        return Number(await redis.zcount(key, `(${Math.round(now - windowMs)}`, '+inf'))
      }),
    releaseWindowSlot: (key, member) =>
      call('window', async () => {
        await redis.zrem(key, member)
      }),
    reserveWindowSlots: ({ key, count, limit, windowMs, now }) =>
      call('window', async () => {
        const args = [String(Math.round(now)), String(Math.round(windowMs)), String(limit), String(count), randomUUID()]
        return Number(await redis.eval<string[], number>(RESERVE_WINDOW_SLOTS_SCRIPT, [key], args))
      }),
    throttle: ({ key, limit, windowMs }) =>
      call('throttle', async () => {
        const result = await limiterFor(limit, windowMs).limit(key)
        // Its timeout answers success with reason "timeout": a throttle may fail open, never a read.
        return result.success ? { ok: true as const } : { ok: false as const, retryAfterMs: Math.max(0, result.reset - Date.now()) }
      }),
    oldestInIndex: (indexKey) =>
      call('index', async () => {
        const [, score] = await redis.zrange<(string | number)[]>(indexKey, 0, 0, { withScores: true })
        return score === undefined ? null : Number(score)
      }),
    claimNextNonce: ({ counterKey, lockKey, lockToken, floor, fencePrefix, fenceTtlMs, counterTtlMs }) =>
      call('nonce', async () => {
        const reply = await redis.eval<string[], number[]>(
          CLAIM_NEXT_NONCE_SCRIPT,
          [counterKey, lockKey, `${counterKey}:floor`],
          [lockToken, String(floor), fencePrefix, String(Math.round(fenceTtlMs)), String(Math.round(counterTtlMs))],
        )
        const [outcome, nonce] = reply.map(Number) as [number, number]
        if (outcome === -1) return { kind: 'lock-lost' as const }
        return { kind: outcome === 1 ? ('claimed' as const) : ('held' as const), nonce }
      }),
    releaseNonce: ({ counterKey, fencePrefix, nonce }) =>
      call('nonce', async () => {
        await redis.eval(RELEASE_NONCE_SCRIPT, [counterKey, fencePrefix + nonce], [String(nonce)])
      }),
    putIndexed: ({ recordKey, value, ttlMs, member, score, indexKeys, maxEntries }) =>
      call('index', async () => {
        await redis.eval(
          PUT_INDEXED_SCRIPT,
          [recordKey, ...indexKeys],
          [value, String(Math.max(1, Math.round(ttlMs))), member, String(Math.round(score)), String(maxEntries)],
        )
      }),
    claimDue: ({ indexKey, now, until, limit }) =>
      call('index', async () => {
        const args = [String(Math.round(now)), String(Math.round(until)), String(limit)]
        const due = await redis.eval<string[], string[]>(CLAIM_DUE_SCRIPT, [indexKey], args)
        return due.map(String)
      }),
    removeFromIndex: (indexKey, member) =>
      call('index', async () => {
        await redis.zrem(indexKey, member)
      }),
    listIndexed: ({ indexKey, recordPrefix, limit }) =>
      call('index', async () => {
        const members = await redis.zrange<string[]>(indexKey, 0, Math.max(0, limit - 1), { rev: true })
        if (members.length === 0) return []
        // A record that expired or was removed since is skipped.
        const values = await redis.mget<(string | null)[]>(...members.map((m) => recordPrefix + m))
        return values.filter((v): v is string => typeof v === 'string')
      }),
  }
}
