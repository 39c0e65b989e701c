import { type CallOptions, type CreateJsonGetterParameters, createJsonGetter } from './jsonGetter.js'
import { type Pair, parsePair } from './pair.js'

/** Pools per page of `/networks/base/pools`. */
export const GECKO_POOLS_PER_PAGE = 20
/** Pages GeckoTerminal serves for a ranked pool list. */
export const GECKO_MAX_PAGES = 10
/** The API version GeckoTerminal asks clients to pin. */
export const GECKO_ACCEPT = 'application/json;version=20230302'

/** Client for GeckoTerminal's volume-ranked Base pools: the one per-chain ranking there is. */
export type GeckoTerminalClient = {
  /** Page `page` (1-10) of Base pools by 24h volume, descending, mapped to DexScreener's pair shape. */
  rankedPools(page: number, options?: CallOptions): Promise<Pair[]>
  /** A pool's last 24 h of 5-minute candles in USD for its base token (one call), oldest first. */
  poolCandles(pool: string, options?: CallOptions): Promise<Candle[]>
}

/** One 5-minute candle: its start (epoch ms) and its closing price in USD. Only intervals with trades have one. */
export type Candle = { t: number; close: number }

/** Candles per call: 24 hours of 5-minute candles. */
export const CANDLES_PER_DAY = 288

/** Parameters of {@link createGeckoTerminalClient}: the base URL and the retry policy of the JSON getter. */
export type CreateGeckoTerminalClientParameters = Omit<CreateJsonGetterParameters, 'headers' | 'describePath'>

/** Creates a GeckoTerminal client (version-pinned `Accept`, timeouts, bounded retries honouring `Retry-After`). */
export function createGeckoTerminalClient(parameters: CreateGeckoTerminalClientParameters): GeckoTerminalClient {
  const get = createJsonGetter({ ...parameters, headers: { accept: GECKO_ACCEPT }, describePath: (path) => path.replace(/\?.*$/, '') })
  return {
    rankedPools: (page, options) => {
      if (!Number.isInteger(page) || page < 1 || page > GECKO_MAX_PAGES) throw new RangeError(`page must be 1-${GECKO_MAX_PAGES}`)
      return get(
        `/networks/base/pools?sort=h24_volume_usd_desc&page=${page}&include=base_token,quote_token,dex`,
        parseGeckoPoolsBody,
        options,
      )
    },
    poolCandles: (pool, options) => {
      if (!/^0x[0-9a-fA-F]{40}$/.test(pool)) throw new RangeError('pool must be a 0x address')
      return get(
        `/networks/base/pools/${pool.toLowerCase()}/ohlcv/minute?aggregate=5&limit=${CANDLES_PER_DAY}&currency=usd&token=base`,
        parseCandlesBody,
        options,
      )
    },
  }
}

/**
 * Reads an OHLCV answer (`data.attributes.ohlcv_list`: `[unix seconds, open, high, low, close, volume]`, newest first)
 * into candles oldest first, one per start time; a row without a positive finite close or time is skipped (numbers may
 * come as strings). Null: the body is not an OHLCV answer.
 */
export function parseCandlesBody(body: unknown): Candle[] | null {
  const list = field(field(field(body, 'data'), 'attributes'), 'ohlcv_list')
  if (!Array.isArray(list)) return null
  const byTime = new Map<number, number>()
  for (const row of list) {
    if (!Array.isArray(row)) continue
    const seconds = Number(row[0])
    const close = Number(row[4])
    if (!Number.isInteger(seconds) || seconds <= 0 || !Number.isFinite(close) || close <= 0) continue
    byTime.set(seconds * 1000, close)
  }
  return [...byTime].sort((a, b) => a[0] - b[0]).map(([t, close]) => ({ t, close }))
}

type JsonObject = Record<string, unknown>
const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v)
const field = (v: unknown, key: string): unknown => (isObject(v) ? v[key] : undefined)
const relationId = (pool: JsonObject, name: string): string | null => {
  const id = field(field(field(pool.relationships, name), 'data'), 'id')
  return typeof id === 'string' ? id : null
}
/** `base_0xabc…` -> `0xabc…` */
const addressOfId = (id: string | null): string | null => (id && /^base_0x[0-9a-fA-F]{40}$/.test(id) ? id.slice(5) : null)
const windows = (v: unknown, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, field(v, k)]))
const txns = (v: unknown, key: string) => ({ buys: field(field(v, key), 'buys'), sells: field(field(v, key), 'sells') })

/**
 * Reads `/networks/base/pools` (JSON:API) into DexScreener-shaped pairs, so one ranking and one Token mapping serve
 * both providers: the base and quote tokens come from `included`, numbers from strings, `pool_created_at` from ISO
 * time, `marketCap` from `market_cap_usd` (the Token falls back to fdv), `url` the pool on GeckoTerminal. Pools that
 * lack a base token address are dropped; a body without a `data` array is not this endpoint's (null).
 */
export function parseGeckoPoolsBody(body: unknown): Pair[] | null {
  const data = field(body, 'data')
  if (!Array.isArray(data)) return null
  const tokens = new Map<string, unknown>()
  const included = field(body, 'included')
  if (Array.isArray(included))
    for (const item of included)
      if (typeof field(item, 'id') === 'string') tokens.set(field(item, 'id') as string, field(item, 'attributes'))

  const pairs: Pair[] = []
  for (const pool of data) {
    if (!isObject(pool)) continue
    const attributes = pool.attributes
    const baseId = relationId(pool, 'base_token')
    const quoteId = relationId(pool, 'quote_token')
    const base = baseId ? tokens.get(baseId) : undefined
    const quote = quoteId ? tokens.get(quoteId) : undefined
    const baseAddress = field(base, 'address') ?? addressOfId(baseId)
    const address = field(attributes, 'address')
    const createdAt = field(attributes, 'pool_created_at')
    const created = typeof createdAt === 'string' ? Date.parse(createdAt) : NaN
    const pair = parsePair({
      chainId: 'base',
      dexId: relationId(pool, 'dex'),
      url:
        typeof address === 'string' && /^0x[0-9a-fA-F]{40}$/.test(address) ? `https://www.geckoterminal.com/base/pools/${address}` : null,
      pairAddress: address,
      baseToken: { address: baseAddress, name: field(base, 'name'), symbol: field(base, 'symbol') },
      quoteToken: { address: field(quote, 'address') ?? addressOfId(quoteId), name: field(quote, 'name'), symbol: field(quote, 'symbol') },
      priceUsd: field(attributes, 'base_token_price_usd'),
      txns: { h1: txns(field(attributes, 'transactions'), 'h1'), h24: txns(field(attributes, 'transactions'), 'h24') },
      volume: windows(field(attributes, 'volume_usd'), ['h1', 'h6', 'h24']),
      priceChange: windows(field(attributes, 'price_change_percentage'), ['m5', 'h1', 'h6', 'h24']),
      liquidity: { usd: field(attributes, 'reserve_in_usd') },
      fdv: field(attributes, 'fdv_usd'),
      marketCap: field(attributes, 'market_cap_usd'),
      pairCreatedAt: Number.isFinite(created) ? created : null,
    })
    if (pair) pairs.push(pair)
  }
  return pairs
}
