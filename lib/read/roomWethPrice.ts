import { z } from 'zod'
import { wethUsdAmong } from '../market/wethPrice.js'
import { parseRecord } from '../store/records.js'
import type { Store } from '../store/types.js'
import { parseCachedBody } from './cache/cachedBody.js'
import type { ReadCache } from './cache/readCache.js'
import { readKeys } from './keys.js'

// WETH's current USD price, from the control room as the shared store holds it: what a dry run, the launches feed and
// a launched token's candles turn ETH into USD with. No refresh of its own: the tick and the readers keep the room fresh.

/** The room's tokens, as far as their prices go: parsed from the body, every other field skipped. */
const roomPricesSchema = z.object({ liveActivity: z.array(z.object({ address: z.string(), priceUsd: z.string().nullable() })) })

/** WETH's USD price in a control-room body (its JSON text), or null. */
export function wethUsdOfRoomBody(body: string): string | null {
  return wethUsdAmong(parseRecord(roomPricesSchema, body)?.liveActivity)
}

/** Parameters of {@link readWethUsd}. */
export type ReadWethUsdParameters = {
  store: Store
  /** `STORE_KEY_PREFIX`: where the control room is kept. */
  keyPrefix: string
  /** The instance's own copy of the read cache, looked at first: a warm instance spends no store command. */
  cache?: Pick<ReadCache, 'peek'>
}

/**
 * WETH's USD price in the control room now: the instance's fresh copy, else the shared body (one store read, however
 * old: the last good room is the best price known), null when neither lists it.
 */
export async function readWethUsd({ store, keyPrefix, cache }: ReadWethUsdParameters): Promise<string | null> {
  const key = readKeys(keyPrefix).controlRoom
  const body = cache?.peek(key)?.entry.body ?? parseCachedBody(await store.get(key))?.body
  return body ? wethUsdOfRoomBody(body) : null
}
