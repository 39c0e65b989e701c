/** The shared state port: the read cache and locks now, the deploy counters later. Same semantics in every adapter. */
export type Store = {
  /** What backs the store, for the start-up line and health output. */
  readonly kind: 'upstash' | 'memory'
  /** The string at `key`, or null when absent or expired. */
  get(key: string): Promise<string | null>
  /** Stores `value` at `key` for `ttlMs` milliseconds. */
  set(key: string, value: string, ttlMs: number): Promise<void>
  /** Takes the lock `key` for `ttlMs` when free; answers the owner token, or null when someone else holds it. */
  acquireLock(key: string, ttlMs: number): Promise<string | null>
  /** Releases the lock when `token` still owns it; answers whether it did. */
  releaseLock(key: string, token: string): Promise<boolean>
}

/** A store call failed (unreachable, refused, timed out). The message never carries the command. */
export class StoreError extends Error {
  override name = 'StoreError'
}
