/** The shared state port: the read cache and locks now, the deploy counters later. Same semantics in every adapter. */
export type Store = {
  /** What backs the store, for the start-up line and health output. */
  readonly kind: 'upstash' | 'memory'
  /** The string at `key`, or null when absent or expired. */
  get(key: string): Promise<string | null>
  /** The strings at `keys`, in order (null where absent); one round trip. */
  getMany(keys: readonly string[]): Promise<(string | null)[]>
  /** Stores `value` at `key` for `ttlMs` milliseconds. */
  set(key: string, value: string, ttlMs: number): Promise<void>
  /** Takes the lock `key` for `ttlMs` when free; answers the owner token, or null when someone else holds it. */
  acquireLock(key: string, ttlMs: number): Promise<string | null>
  /** Releases the lock when `token` still owns it; answers whether it did. */
  releaseLock(key: string, token: string): Promise<boolean>
  /** Stores `value` only when `key` is absent; answers whether it did. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>
  /** Removes `key`. */
  delete(key: string): Promise<void>
  /**
   * Writes several keys in one step (one billed command on Upstash), each with its TTL, those marked `ifAbsent` only
   * when absent; then releases `releaseLock` if its token still owns it.
   */
  writeMany(parameters: WriteManyParameters): Promise<void>
  /**
   * Takes a slot in a strict rolling window, atomically: drops entries at or before `now - windowMs`, and adds
   * `member` at `now` only while fewer than `limit` remain. When full, answers when the oldest entry leaves.
   */
  reserveWindowSlot(parameters: ReserveWindowSlotParameters): Promise<ReserveWindowSlotReturnType>
  /** How many slots of a rolling window are taken at `now` (entries after `now - windowMs`). */
  countWindow(parameters: CountWindowParameters): Promise<number>
  /** Gives a reserved slot back (the deploy it was for did not go out). */
  releaseWindowSlot(key: string, member: string): Promise<void>
  /**
   * Takes up to `count` slots of a strict rolling window at once (a shared request budget): trims, counts and adds
   * atomically, so instances together never pass `limit`. Answers how many it took.
   */
  reserveWindowSlots(parameters: ReserveWindowSlotsParameters): Promise<number>
  /**
   * Throttles one client: `limit` requests per `windowMs`, an approximate sliding window (right for throttling, not
   * for a spending cap). Answers whether this request may pass and, when not, in how many ms to retry.
   */
  throttle(parameters: ThrottleParameters): Promise<ThrottleReturnType>
  /**
   * Writes a record at `recordKey` for `ttlMs` and files `member` (scored by `score`, epoch ms) in every index, in
   * one atomic step. Each index keeps its newest `maxEntries` members and none older than `ttlMs`.
   */
  putIndexed(parameters: PutIndexedParameters): Promise<void>
  /** The score (epoch ms) of the oldest member of an index, or null when it is empty. */
  oldestInIndex(indexKey: string): Promise<number | null>
  /**
   * Takes up to `limit` members of an index whose score (epoch ms) is at or before `now`, earliest first, and moves
   * each to `until` in the same atomic step: a lease, so no other caller takes them before then. Answers them.
   */
  claimDue(parameters: ClaimDueParameters): Promise<string[]>
  /** Removes `member` from the index `indexKey` (the record stays). */
  removeFromIndex(indexKey: string, member: string): Promise<void>
  /** The records of the newest `limit` members of an index, newest first, each read at `recordPrefix + member`. */
  listIndexed(parameters: ListIndexedParameters): Promise<string[]>
  /**
   * Takes the next nonce of a signer for the holder of its lock, atomically: checks the lock is the caller's, takes
   * the lowest nonce from `floor` up to the counter whose fence is gone (given back, or claimed long ago and never
   * sent: a gap), else the larger of the counter and `floor`; claims that nonce's fence and moves the counter past it.
   */
  claimNextNonce(parameters: ClaimNextNonceParameters): Promise<ClaimNextNonceReturnType>
  /** Gives back a claimed nonce that was never sent: the counter returns to it if nothing came after, its fence goes. */
  releaseNonce(parameters: ReleaseNonceParameters): Promise<void>
}

/** Parameters of {@link Store.claimNextNonce}. */
export type ClaimNextNonceParameters = {
  counterKey: string
  lockKey: string
  lockToken: string
  /** The least nonce that may be taken (the node's pending count). */
  floor: number
  /** Fence key of nonce n: `fencePrefix + n`. */
  fencePrefix: string
  fenceTtlMs: number
  counterTtlMs: number
}

/** Result of {@link Store.claimNextNonce}. */
export type ClaimNextNonceReturnType = { kind: 'claimed'; nonce: number } | { kind: 'held'; nonce: number } | { kind: 'lock-lost' }

/** Parameters of {@link Store.releaseNonce}. */
export type ReleaseNonceParameters = { counterKey: string; fencePrefix: string; nonce: number }

/** Parameters of {@link Store.countWindow}. */
export type CountWindowParameters = { key: string; windowMs: number; now: number }

/** Parameters of {@link Store.putIndexed}. */
export type PutIndexedParameters = {
  recordKey: string
  value: string
  ttlMs: number
  member: string
  score: number
  indexKeys: readonly string[]
  maxEntries: number
}

/** Parameters of {@link Store.claimDue}. */
export type ClaimDueParameters = { indexKey: string; now: number; until: number; limit: number }

/** Parameters of {@link Store.listIndexed}. */
export type ListIndexedParameters = { indexKey: string; recordPrefix: string; limit: number }

/** Parameters of {@link Store.reserveWindowSlots}. */
export type ReserveWindowSlotsParameters = { key: string; count: number; limit: number; windowMs: number; now: number }

/** Parameters of {@link Store.throttle}. */
export type ThrottleParameters = { key: string; limit: number; windowMs: number }

/** Result of {@link Store.throttle}. */
export type ThrottleReturnType = { ok: true } | { ok: false; retryAfterMs: number }

/** Parameters of {@link Store.reserveWindowSlot}. */
export type ReserveWindowSlotParameters = { key: string; member: string; limit: number; windowMs: number; now: number }

/** Result of {@link Store.reserveWindowSlot}: the slot, or when one frees up (epoch ms). */
export type ReserveWindowSlotReturnType = { ok: true; used: number } | { ok: false; used: number; freesAt: number }

/** A store call failed (unreachable, refused, timed out). The message never carries the command. */
export class StoreError extends Error {
  override name = 'StoreError'
}

/** One value of {@link Store.writeMany}. */
export type WriteEntry = { key: string; value: string; ttlMs: number; ifAbsent?: boolean }

/** Parameters of {@link Store.writeMany}. */
export type WriteManyParameters = { entries: readonly WriteEntry[]; releaseLock?: { key: string; token: string } }
