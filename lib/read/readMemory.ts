import { LRUCache } from 'lru-cache'
import type { ChartedPool } from '../market/chartedPool.js'
import type { PriceLine, Snapshot } from '../market/snapshots.js'
import type { ReadParameters } from './cache/cachedBody.js'

/** Most tokens an instance remembers as unknown (the least recently asked for is forgotten first). */
const UNKNOWN_TOKENS_MAX = 20_000

/**
 * What one set of read services remembers between requests, beside its cache: built with the services, so two sets
 * (two instances, or two tests) never share it.
 */
export type ReadMemory = {
  /**
   * Questions found to have no answer (`history:<range>:<address>`, an address with no history; `ohlcv:<address>`, a
   * token with no Base pool), each until its own time runs out on the services' clock: asking again costs nothing.
   */
  unknownTokens: LRUCache<string, true>
  /** Price lines already read, by address: a line never changes until the next day's backfill. */
  priceLines: Map<string, PriceLine>
  /**
   * Snapshots already read, by mark (null: none was written there): a written snapshot never changes and a past mark
   * never gets one later. Bounded by what the store keeps: a week of 30-minute marks and a day of the others.
   */
  snapshots: Map<number, Snapshot | null>
  /** The control room's pools, parsed once per body the instance sees, by its ETag (the last 4 kept). */
  roomPools: Map<string, Map<string, ChartedPool>>
  /** The control-room read, made once: a warm read allocates nothing to ask the cache. Filled on first use. */
  controlRoomRead: ReadParameters | null
}

/** An empty {@link ReadMemory} whose expiries run on `now`. */
export function createReadMemory(now: () => number): ReadMemory {
  return {
    // ttlResolution 0: every expiry is judged on `now` itself, with no timer of the cache's own.
    unknownTokens: new LRUCache<string, true>({ max: UNKNOWN_TOKENS_MAX, ttlResolution: 0, perf: { now } }),
    priceLines: new Map(),
    snapshots: new Map(),
    roomPools: new Map(),
    controlRoomRead: null,
  }
}
