import { randomUUID } from 'node:crypto'
import { systemClock } from '../platform/clock.js'
import { perInstance } from '../platform/perInstance.js'
import { releaseLockScript, writeManyArguments, writeManyScript } from './storeScripts.js'
import { type ChannelListener, type ScriptData, type Store, UndeclaredKeyError } from './types.js'

/** Entries the in-process store holds at most; past that the least recently written goes first. */
export const MEMORY_STORE_ENTRIES_MAX = 100_000
/** Entries the sweep looks at per store call: bounded work, yet ahead of any stream of new keys. */
const SWEEP_STEPS = 4

/**
 * This instance's own in-process store, the one the read side and the deploy side both use when no Redis is configured:
 * `npm start` and `npm run sandbox` are one service, whose launches feed, stream and tick see the deploys it made.
 */
export const instanceMemoryStore: () => MemoryStore = perInstance(() => createMemoryStore())

/** Parameters of {@link createMemoryStore}. */
export type CreateMemoryStoreParameters = { now?: () => number; maxEntries?: number }

/** The in-process store, with how many values it holds (expired ones not yet swept included). */
export type MemoryStore = Store & { size(): number }

/** A value: a string, or a sorted set (member -> score); `expiresAt` is Infinity for a key without a TTL. */
type Entry = { value: string | Map<string, number>; expiresAt: number }

/**
 * The in-process store: the embedded default when no Redis is configured; one instance only. Scripts run their
 * `inProcess` steps over {@link ScriptData}, the Redis commands implemented once here. It forgets what has expired as
 * it goes (a sweep of a few entries per call, resuming where the last left off), and holds at most `maxEntries`
 * values, so a stream of distinct keys (search terms) leaves its memory flat. Its channels reach this process's
 * subscriptions, and never drop one.
 */
export function createMemoryStore(parameters: CreateMemoryStoreParameters = {}): MemoryStore {
  const { now = systemClock.now, maxEntries = MEMORY_STORE_ENTRIES_MAX } = parameters
  const values = new Map<string, Entry>()
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
  const { data, text } = createScriptData(values, now, maxEntries)
  /** The open subscriptions of each channel: what `publish` reaches. */
  const channels = new Map<string, Set<{ listener: ChannelListener; live: boolean }>>()

  return {
    kind: 'memory',
    size: () => values.size,
    async get(key) {
      sweep()
      return text(key)
    },
    async getMany(keys) {
      sweep()
      return keys.map(text)
    },
    async set(key, value, ttlMs) {
      sweep()
      data.set(key, value, { px: ttlMs })
    },
    async setIfAbsent(key, value, ttlMs) {
      sweep()
      return data.set(key, value, { px: ttlMs, nx: true })
    },
    async delete(key) {
      values.delete(key)
    },
    async writeMany(parameters) {
      sweep()
      const { keys, args } = writeManyArguments(parameters)
      writeManyScript.inProcess(data, keys, args)
    },
    async acquireLock(key, ttlMs) {
      sweep()
      const token = randomUUID()
      return data.set(key, token, { px: ttlMs, nx: true }) ? token : null
    },
    async releaseLock(key, token) {
      return releaseLockScript.inProcess(data, [key], [token]) === 1
    },
    async run(script, keys, args) {
      sweep()
      return script.inProcess(
        onlyKeys(data, keys, script.name),
        keys,
        args.map((a) => String(a)),
      )
    },
    // Delivered as a task of its own, as over a network: a listener never runs inside the publisher's call.
    async publish(channel, message) {
      for (const entry of channels.get(channel) ?? []) queueMicrotask(() => entry.live && entry.listener.onMessage(message))
    },
    subscribe(channel, listener) {
      const entry = { listener, live: true }
      const open = channels.get(channel) ?? new Set()
      channels.set(channel, open.add(entry))
      queueMicrotask(() => entry.live && listener.onOpen())
      return {
        close() {
          entry.live = false
          open.delete(entry)
          if (open.size === 0 && channels.get(channel) === open) channels.delete(channel)
        },
      }
    },
  }
}

/** The in-process store's data as scripts see it ({@link ScriptData}), and a string reader for the port's reads. */
function createScriptData(values: Map<string, Entry>, now: () => number, maxEntries: number) {
  const live = (key: string): Entry | null => {
    const entry = values.get(key)
    if (!entry) return null
    if (entry.expiresAt > now()) return entry
    values.delete(key)
    return null
  }
  /** Writes an entry as the most recent, keeping within the bound. */
  const put = (key: string, entry: Entry) => {
    values.delete(key)
    if (values.size >= maxEntries) values.delete(values.keys().next().value!)
    values.set(key, entry)
  }
  const text = (key: string): string | null => {
    const value = live(key)?.value
    return typeof value === 'string' ? value : null
  }
  const sortedSet = (key: string): Map<string, number> | null => {
    const value = live(key)?.value
    return value instanceof Map ? value : null
  }
  /** As Redis does, a sorted set left empty is no key at all. */
  const dropIfEmpty = (key: string, set: Map<string, number>) => {
    if (set.size === 0) values.delete(key)
  }
  /** A sorted set's members in Redis's order: by score, then by member. */
  const ordered = (set: Map<string, number> | null) =>
    [...(set ?? [])].map(([member, score]) => ({ member, score })).sort((a, b) => a.score - b.score || (a.member < b.member ? -1 : 1))
  /** Redis's inclusive rank range, negative ranks counting from the end. */
  const rankSlice = <T>(items: T[], start: number, stop: number) => {
    const from = start < 0 ? Math.max(0, items.length + start) : start
    const to = stop < 0 ? items.length + stop : stop
    return to < from ? [] : items.slice(from, to + 1)
  }

  const data: ScriptData = {
    get: text,
    set(key, value, { px, nx, keepTtl } = {}) {
      const existing = live(key)
      if (nx && existing) return false
      const expiresAt = keepTtl && existing ? existing.expiresAt : px === undefined ? Number.POSITIVE_INFINITY : now() + px
      put(key, { value, expiresAt })
      return true
    },
    del: (key) => void values.delete(key),
    exists: (key) => live(key) !== null,
    pexpire(key, ttlMs) {
      const entry = live(key)
      if (entry) entry.expiresAt = now() + ttlMs
    },
    zadd(key, score, member) {
      const entry = live(key)
      const set = entry?.value instanceof Map ? entry.value : new Map<string, number>()
      set.set(member, score)
      put(key, { value: set, expiresAt: entry?.value instanceof Map ? entry.expiresAt : Number.POSITIVE_INFINITY })
    },
    zrem(key, member) {
      const set = sortedSet(key)
      if (!set) return
      set.delete(member)
      dropIfEmpty(key, set)
    },
    zcard: (key) => sortedSet(key)?.size ?? 0,
    zscore: (key, member) => sortedSet(key)?.get(member) ?? null,
    zrangeByScore: (key, min, max, limit = Number.POSITIVE_INFINITY) =>
      ordered(sortedSet(key))
        .filter(({ score }) => score >= min && score <= max)
        .slice(0, limit),
    zrange(key, start, stop, reverse = false) {
      const items = ordered(sortedSet(key))
      return rankSlice(reverse ? items.reverse() : items, start, stop)
    },
    zremRangeByScore(key, min, max) {
      const set = sortedSet(key)
      if (!set) return
      for (const [member, score] of set) if (score >= min && score <= max) set.delete(member)
      dropIfEmpty(key, set)
    },
    zremRangeByRank(key, start, stop) {
      const set = sortedSet(key)
      if (!set) return
      for (const { member } of rankSlice(ordered(set), start, stop)) set.delete(member)
      dropIfEmpty(key, set)
    },
  }

  return { data, text }
}

/** `data` as a script named `script` may use it: only the keys it named in KEYS ({@link UndeclaredKeyError} for any other). */
function onlyKeys(data: ScriptData, keys: readonly string[], script: string): ScriptData {
  const named = (key: string): string => {
    if (!keys.includes(key)) throw new UndeclaredKeyError(`store ${script} touched a key it did not name in KEYS`)
    return key
  }
  return {
    get: (key) => data.get(named(key)),
    set: (key, value, options) => data.set(named(key), value, options),
    del: (key) => data.del(named(key)),
    exists: (key) => data.exists(named(key)),
    pexpire: (key, ttlMs) => data.pexpire(named(key), ttlMs),
    zadd: (key, score, member) => data.zadd(named(key), score, member),
    zrem: (key, member) => data.zrem(named(key), member),
    zcard: (key) => data.zcard(named(key)),
    zscore: (key, member) => data.zscore(named(key), member),
    zrangeByScore: (key, min, max, limit) => data.zrangeByScore(named(key), min, max, limit),
    zrange: (key, start, stop, reverse) => data.zrange(named(key), start, stop, reverse),
    zremRangeByScore: (key, min, max) => data.zremRangeByScore(named(key), min, max),
    zremRangeByRank: (key, start, stop) => data.zremRangeByRank(named(key), start, stop),
  }
}
