import { BaseError, type BaseErrorParameters } from '../platform/errors.js'

/**
 * The shared-state port: what a key-value store is (get, set, many at once, a lock), running a script, and a channel
 * to publish on and subscribe to. Every atomic algorithm (the nonce fence, the cap windows, the budgets, the due
 * claims) is a {@link StoreScript} kept beside the code that owns it, so a new one changes no adapter. Same semantics
 * in every adapter.
 */
export type Store = {
  /** What backs the store, for the start-up line and health output. */
  readonly kind: 'upstash' | 'memory'
  /** The string at `key`, or null when absent or expired. */
  get(key: string): Promise<string | null>
  /** The strings at `keys`, in order (null where absent); one round trip. */
  getMany(keys: readonly string[]): Promise<(string | null)[]>
  /** Stores `value` at `key` for `ttlMs` milliseconds. */
  set(key: string, value: string, ttlMs: number): Promise<void>
  /** Stores `value` only when `key` is absent; answers whether it did. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>
  /** Removes `key`. */
  delete(key: string): Promise<void>
  /**
   * Writes several keys in one step (one billed command on Upstash), each with its TTL, those marked `ifAbsent` only
   * when absent; then releases `releaseLock` if its token still owns it.
   */
  writeMany(parameters: WriteManyParameters): Promise<void>
  /** Takes the lock `key` for `ttlMs` when free; answers the owner token, or null when someone else holds it. */
  acquireLock(key: string, ttlMs: number): Promise<string | null>
  /** Releases the lock when `token` still owns it; answers whether it did. */
  releaseLock(key: string, token: string): Promise<boolean>
  /** Runs `script` atomically over `keys` with `args`, and answers its reply as Redis would send it. */
  run<TReply>(script: StoreScript<TReply>, keys: readonly string[], args: readonly (string | number)[]): Promise<TReply>
  /**
   * Sends `message` (one line: Upstash frames it as the rest of one line) to every subscription of `channel` open now,
   * on any instance (one command). Nothing is kept: a subscription that opens later never sees it (what must survive a
   * gap is written to a key beside the message).
   */
  publish(channel: string, message: string): Promise<void>
  /** Subscribes to `channel` (a name without commas) until closed or dropped: {@link ChannelSubscription}. */
  subscribe(channel: string, listener: ChannelListener): ChannelSubscription
}

/**
 * What a subscription tells its listener, the same in every adapter: `onOpen` once it is live (every message published
 * after that reaches `onMessage`, once, in order, byte for byte); `onDrop` when it ended without being closed (the
 * store refused or lost it), after which it calls nothing more: the listener subscribes again. No call comes
 * synchronously from `subscribe`, and none after `close`. A store that never answers calls neither `onOpen` nor `onDrop`:
 * the listener bounds that wait on its clock. On Upstash a stream that ends quietly is not seen by the client library
 * either: a listener that must know checks it with a message of its own (lib/launches/watch.ts).
 */
export type ChannelListener = {
  onOpen(): void
  onMessage(message: string): void
  onDrop(error: StoreError): void
}

/** An open subscription; `close` ends it and silences its listener (idempotent). */
export type ChannelSubscription = { close(): void }

/**
 * An atomic algorithm over the store: its Lua for Redis, and the same steps over the in-process store's data for
 * {@link Store.run} on the memory adapter. Both answer the same reply shape (integers as numbers, strings, arrays).
 */
export type StoreScript<TReply> = {
  /** Names the operation in errors and logs (`store <name> failed`); never the script or its arguments. */
  readonly name: string
  /** The Lua that Redis runs (called by its SHA-1, sent whole only when Redis does not know it yet). */
  readonly lua: string
  /** The same algorithm over the in-process store's data, step for step. */
  readonly inProcess: (data: ScriptData, keys: readonly string[], args: readonly string[]) => TReply
}

/** Defines a {@link StoreScript}: a typed identity, so a script reads as a declaration beside its owner. */
export function defineScript<TReply>(script: StoreScript<TReply>): StoreScript<TReply> {
  return script
}

/** Options of {@link ScriptData.set}, as Redis's SET takes them. */
export type ScriptSetOptions = { px?: number; nx?: boolean; keepTtl?: boolean }

/**
 * The in-process store's data as a script sees it: the Redis commands the project's scripts use, synchronous, with
 * Redis's semantics (sorted sets ordered by score, then member; ranges inclusive; negative ranks from the end).
 */
export type ScriptData = {
  get(key: string): string | null
  /** SET with PX, NX or KEEPTTL; answers false when NX found the key. */
  set(key: string, value: string, options?: ScriptSetOptions): boolean
  del(key: string): void
  exists(key: string): boolean
  pexpire(key: string, ttlMs: number): void
  zadd(key: string, score: number, member: string): void
  zrem(key: string, member: string): void
  zcard(key: string): number
  /** A member's score, or null when it is not in the set. */
  zscore(key: string, member: string): number | null
  /** Members scored from `min` to `max` (inclusive), lowest first, at most `limit`. */
  zrangeByScore(key: string, min: number, max: number, limit?: number): { member: string; score: number }[]
  /** Members from rank `start` to `stop` (inclusive; negative counts from the end), lowest first unless `reverse`. */
  zrange(key: string, start: number, stop: number, reverse?: boolean): { member: string; score: number }[]
  zremRangeByScore(key: string, min: number, max: number): void
  zremRangeByRank(key: string, start: number, stop: number): void
}

/**
 * A script touched a key it did not name in KEYS. Redis Cluster refuses such a script (it routes a script by its
 * keys); the in-process store refuses it too, so the contract test that runs every script on it catches one.
 */
export class UndeclaredKeyError extends BaseError<'INTERNAL'> {
  override name = 'UndeclaredKeyError'
  constructor(message: string) {
    super(message, { code: 'INTERNAL' })
  }
}

/** A store call failed (unreachable, refused, timed out). The message names the operation, never its keys or values. */
export class StoreError extends BaseError<'STORE_UNAVAILABLE'> {
  override name = 'StoreError'
  constructor(message: string, { cause }: Pick<BaseErrorParameters, 'cause'> = {}) {
    super(message, { code: 'STORE_UNAVAILABLE', httpStatus: 503, details: { retryAfterSeconds: 10 }, cause })
  }
}

/** One value of {@link Store.writeMany}. */
export type WriteEntry = { key: string; value: string; ttlMs: number; ifAbsent?: boolean }

/** Parameters of {@link Store.writeMany}. */
export type WriteManyParameters = { entries: readonly WriteEntry[]; releaseLock?: { key: string; token: string } }
