import { randomUUID } from 'node:crypto'
import type { Store } from './types.js'

/** Clients tracked by the in-process throttle before idle ones are swept. */
const THROTTLED_CLIENTS_MAX = 10_000

/** Entries the in-process store holds at most; past that the least recently written goes first. */
export const MEMORY_STORE_ENTRIES_MAX = 100_000
/** Entries the sweep looks at per store call: bounded work, yet ahead of any stream of new keys. */
const SWEEP_STEPS = 4

/** Parameters of {@link createMemoryStore}. */
export type CreateMemoryStoreParameters = { now?: () => number; maxEntries?: number }

/** The in-process store, with how many values it holds (expired ones not yet swept included). */
export type MemoryStore = Store & { size(): number }

/**
 * The in-process store: the embedded default when no Redis is configured; one instance only. It forgets what has
 * expired as it goes (a sweep of a few entries per call, resuming where the last left off), and holds at most
 * `maxEntries` values, so a stream of distinct keys (search terms) leaves its memory flat.
 */
export function createMemoryStore(parameters: CreateMemoryStoreParameters = {}): MemoryStore {
  const { now = Date.now, maxEntries = MEMORY_STORE_ENTRIES_MAX } = parameters
  const values = new Map<string, { value: string; expiresAt: number }>()
  let cursor = values.entries()
  const sweep = () => {
    const at = now()
    for (let i = 0; i < SWEEP_STEPS; i++) {
      let next = cursor.next()
      if (next.done) {
        cursor = values.entries()
        next = cursor.next()
        if (next.done) return
      }
      if (next.value[1].expiresAt <= at) values.delete(next.value[0])
    }
  }
  /** Writes a value as the most recent, sweeping and keeping within the bound. */
  const write = (key: string, value: string, ttlMs: number) => {
    sweep()
    values.delete(key)
    if (values.size >= maxEntries) values.delete(values.keys().next().value!)
    values.set(key, { value, expiresAt: now() + ttlMs })
  }
  const windows = new Map<string, Map<string, number>>()
  const throttles = new Map<string, number[]>()
  const indexes = new Map<string, Map<string, number>>()
  const read = (key: string): string | null => {
    sweep()
    const entry = values.get(key)
    if (!entry) return null
    if (entry.expiresAt <= now()) {
      values.delete(key)
      return null
    }
    return entry.value
  }
  return {
    kind: 'memory',
    size: () => values.size,
    async get(key) {
      return read(key)
    },
    async getMany(keys) {
      return keys.map(read)
    },
    async set(key, value, ttlMs) {
      write(key, value, ttlMs)
    },
    async acquireLock(key, ttlMs) {
      if (read(key) !== null) return null
      const token = randomUUID()
      write(key, token, ttlMs)
      return token
    },
    async releaseLock(key, token) {
      if (read(key) !== token) return false
      values.delete(key)
      return true
    },
    async setIfAbsent(key, value, ttlMs) {
      if (read(key) !== null) return false
      write(key, value, ttlMs)
      return true
    },
    async delete(key) {
      values.delete(key)
    },
    async writeMany({ entries, releaseLock }) {
      for (const { key, value, ttlMs, ifAbsent } of entries) if (!ifAbsent || read(key) === null) write(key, value, ttlMs)
      if (releaseLock && read(releaseLock.key) === releaseLock.token) values.delete(releaseLock.key)
    },
    async reserveWindowSlot({ key, member, limit, windowMs, now: at }) {
      const window = windows.get(key) ?? new Map<string, number>()
      windows.set(key, window)
      for (const [m, t] of window) if (t <= at - windowMs) window.delete(m)
      if (window.size >= limit) {
        const oldest = Math.min(...window.values(), at)
        return { ok: false, used: window.size, freesAt: oldest + windowMs }
      }
      window.set(member, at)
      return { ok: true, used: window.size }
    },
    async countWindow({ key, windowMs, now: at }) {
      return [...(windows.get(key)?.values() ?? [])].filter((t) => t > at - windowMs).length
    },
    async releaseWindowSlot(key, member) {
      windows.get(key)?.delete(member)
    },
    async reserveWindowSlots({ key, count, limit, windowMs, now: at }) {
      const window = windows.get(key) ?? new Map<string, number>()
      windows.set(key, window)
      for (const [m, t] of window) if (t <= at - windowMs) window.delete(m)
      const take = Math.min(Math.max(limit - window.size, 0), count)
      for (let i = 0; i < take; i++) window.set(randomUUID(), at)
      return take
    },
    async throttle({ key, limit, windowMs }) {
      // A sliding log per client; entries older than the window are dropped, and idle clients with them.
      const at = now()
      const log = (throttles.get(key) ?? []).filter((t) => t > at - windowMs)
      if (log.length >= limit) {
        throttles.set(key, log)
        return { ok: false, retryAfterMs: log[0]! + windowMs - at }
      }
      log.push(at)
      throttles.set(key, log)
      if (throttles.size > THROTTLED_CLIENTS_MAX)
        for (const [k, l] of throttles) if (l.every((t) => t <= at - windowMs)) throttles.delete(k)
      return { ok: true }
    },
    async putIndexed({ recordKey, value, ttlMs, member, score, indexKeys, maxEntries }) {
      write(recordKey, value, ttlMs)
      for (const key of indexKeys) {
        const index = indexes.get(key) ?? new Map<string, number>()
        indexes.set(key, index)
        index.set(member, score)
        for (const [m, s] of index) if (s <= score - ttlMs) index.delete(m)
        const newestFirst = [...index].sort((a, b) => b[1] - a[1])
        for (const [m] of newestFirst.slice(maxEntries)) index.delete(m)
      }
    },
    async claimDue({ indexKey, now, until, limit }) {
      const index = indexes.get(indexKey)
      if (!index) return []
      const due = [...index]
        .filter(([, score]) => score <= now)
        .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, limit)
      for (const [member] of due) index.set(member, until)
      return due.map(([member]) => member)
    },
    async removeFromIndex(indexKey, member) {
      indexes.get(indexKey)?.delete(member)
    },
    async listIndexed({ indexKey, recordPrefix, limit }) {
      const newestFirst = [...(indexes.get(indexKey) ?? [])].sort((a, b) => b[1] - a[1]).slice(0, limit)
      return newestFirst.map(([m]) => read(recordPrefix + m)).filter((v): v is string => v !== null)
    },
    async oldestInIndex(indexKey) {
      const scores = [...(indexes.get(indexKey)?.values() ?? [])]
      return scores.length > 0 ? Math.min(...scores) : null
    },
    async claimNextNonce({ counterKey, lockKey, lockToken, floor, fencePrefix, fenceTtlMs, counterTtlMs }) {
      if (read(lockKey) !== lockToken) return { kind: 'lock-lost' }
      const counter = Number(read(counterKey) ?? '0')
      const seen = Math.max(floor, Number(read(`${counterKey}:floor`) ?? '0'))
      write(`${counterKey}:floor`, String(seen), counterTtlMs)
      floor = seen
      let nonce = Math.max(counter, floor)
      for (let i = floor; i < Math.min(counter, floor + 256); i++)
        if (read(fencePrefix + i) === null) {
          nonce = i
          break
        }
      if (read(fencePrefix + nonce) !== null) return { kind: 'held', nonce }
      write(fencePrefix + nonce, lockToken, fenceTtlMs)
      write(counterKey, String(Math.max(counter, nonce + 1)), counterTtlMs)
      return { kind: 'claimed', nonce }
    },
    async releaseNonce({ counterKey, fencePrefix, nonce }) {
      const counter = values.get(counterKey)
      if (counter && read(counterKey) === String(nonce + 1)) counter.value = String(nonce)
      values.delete(fencePrefix + nonce)
    },
  }
}
