import { z } from 'zod'
import { type DroppedRows, isPoolId, looseNumber, loosePrice, looseString, looseTxnCount, looseWindows } from './fields.js'
import { GECKO_OHLCV_AGGREGATES, GECKO_OHLCV_LIMIT_MAX, type OhlcvRequest, type PoolOhlcv, parseOhlcvBody } from './geckoOhlcv.js'
import { type CallOptions, type CreateJsonGetterParameters, createJsonGetter } from './jsonGetter.js'
import { DEXSCREENER_BASE_SLUG, type Pair, toBasePair } from './pair.js'

/** Pages GeckoTerminal serves for a ranked pool list. */
export const GECKO_MAX_PAGES = 10
/** Web address of GeckoTerminal's Base pool pages. */
export const GECKO_POOL_PAGE_BASE_URL = 'https://www.geckoterminal.com/base/pools'
/** The API version GeckoTerminal asks clients to pin. */
export const GECKO_ACCEPT = 'application/json;version=20230302'

/** Client for GeckoTerminal's volume-ranked Base pools: the one per-chain ranking there is. */
export type GeckoTerminalClient = {
  /** Page `page` (1-10) of Base pools by 24h volume, descending, mapped to DexScreener's pair shape. */
  rankedPools(page: number, options?: CallOptions): Promise<Pair[]>
  /** A pool's (20-byte address or v4 32-byte id) last 24 h of 5-minute candles in USD for its base token (one call), oldest first. */
  poolCandles(pool: string, options?: CallOptions): Promise<Candle[]>
  /** A pool's candles of its base token as asked (one call), newest first, one per start time (`geckoOhlcv.ts`). */
  poolOhlcv(pool: string, request: OhlcvRequest, options?: CallOptions): Promise<PoolOhlcv>
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
  const poolOhlcv = (pool: string, request: OhlcvRequest, options?: CallOptions): Promise<PoolOhlcv> =>
    get(ohlcvPath(pool, request), parseOhlcvBody, options)
  return {
    rankedPools: (page, options) => {
      if (!Number.isInteger(page) || page < 1 || page > GECKO_MAX_PAGES) throw new RangeError(`page must be 1-${GECKO_MAX_PAGES}`)
      return get(
        `/networks/base/pools?sort=h24_volume_usd_desc&page=${page}&include=base_token,quote_token,dex`,
        (body) => parseGeckoPoolsBody(body, options?.dropped),
        options,
      )
    },
    poolCandles: async (pool, options) =>
      candlesOldestFirst(await poolOhlcv(pool, { timeframe: 'minute', aggregate: 5, limit: CANDLES_PER_DAY, currency: 'usd' }, options)),
    poolOhlcv,
  }
}

/** The OHLCV path of a pool's base-token candles as asked; throws a RangeError for a request GeckoTerminal would refuse. */
export function ohlcvPath(pool: string, { timeframe, aggregate, limit, currency, before }: OhlcvRequest): string {
  if (!isPoolId(pool)) throw new RangeError('pool must be a 20-byte address or a 32-byte pool id')
  if (!(GECKO_OHLCV_AGGREGATES[timeframe] as readonly number[]).includes(aggregate)) throw new RangeError('aggregate not offered')
  if (!Number.isInteger(limit) || limit < 1 || limit > GECKO_OHLCV_LIMIT_MAX) throw new RangeError('limit must be 1-1000')
  const query = new URLSearchParams({ aggregate: String(aggregate), limit: String(limit), currency, token: 'base' })
  if (before !== undefined) query.set('before_timestamp', String(before))
  return `/networks/base/pools/${pool.toLowerCase()}/ohlcv/${timeframe}?${query}`
}

/** Candles as a price line wants them: oldest first, start in epoch ms, the close. */
const candlesOldestFirst = ({ rows }: PoolOhlcv): Candle[] => rows.map(([t, , , , close]) => ({ t: t * 1000, close })).reverse()

/**
 * Reads an OHLCV answer into candles oldest first, one per start time (`normalizeOhlcvRows`: the first row of a time in
 * the newest-first list wins, a row that is not a candle is left out). Null: the body is not an OHLCV answer.
 */
export function parseCandlesBody(body: unknown): Candle[] | null {
  const parsed = parseOhlcvBody(body)
  return parsed ? candlesOldestFirst(parsed) : null
}

/** The id of a JSON:API relationship (`{ data: { id } }`), null when absent or reshaped. */
const relation = z
  .object({ data: z.object({ id: z.string() }).nullable() })
  .transform((r) => r.data?.id ?? null)
  .catch(null)

/** The windows GeckoTerminal reports price changes, volumes and transactions in. */
const GECKO_WINDOWS = ['m5', 'm15', 'm30', 'h1', 'h6', 'h24'] as const

/** The attributes of a GeckoTerminal pool that the service reads, each tolerant. */
const geckoPoolAttributesSchema = z.object({
  address: looseString,
  name: looseString,
  pool_created_at: looseString,
  base_token_price_usd: loosePrice,
  fdv_usd: looseNumber,
  market_cap_usd: looseNumber,
  reserve_in_usd: looseNumber,
  price_change_percentage: looseWindows(GECKO_WINDOWS),
  volume_usd: looseWindows(GECKO_WINDOWS),
  transactions: z
    .object({ h1: looseTxnCount, h24: looseTxnCount })
    .catch({ h1: { buys: null, sells: null }, h24: { buys: null, sells: null } }),
})

/**
 * A pool of `/networks/base/pools` as GeckoTerminal really sends it: lower-case ids (`base_0x…`), a 20-byte address
 * or a v4 pool's 32-byte id, numbers as strings (`market_cap_usd` too, sometimes above `fdv_usd`), `fdv_usd` and
 * `pool_created_at` sometimes null, `reserve_in_usd` sometimes `"0.0"`, windows m5 to h24. Every field is tolerant.
 */
export const geckoPoolSchema = z.object({
  id: looseString,
  attributes: geckoPoolAttributesSchema.catch(() => geckoPoolAttributesSchema.parse({})),
  relationships: z
    .object({ base_token: relation, quote_token: relation, dex: relation })
    .catch({ base_token: null, quote_token: null, dex: null }),
})

/** An entry of `included`: a token (`{ address, name, symbol, decimals, … }`) or a dex (`{ name }`). */
export const geckoIncludedSchema = z.object({
  id: z.string(),
  type: looseString,
  attributes: z.object({ address: looseString, name: looseString, symbol: looseString }).catch({ address: null, name: null, symbol: null }),
})

/** A body of `/networks/base/pools` (JSON:API): `data` pools and, with `include=`, their tokens and dexes. */
export const geckoPoolsBodySchema = z.object({ data: z.array(z.unknown()), included: z.array(z.unknown()).catch([]) })

/** `base_0xabc…` -> `0xabc…` (a token address or a pool id), else null. */
const addressOfId = (id: string | null): string | null => (id && /^base_0x[0-9a-fA-F]+$/.test(id) ? id.slice(5) : null)

/** The two symbols of a pool name such as `XDP / USDC 0.01%` (the fee, when written, is not part of the quote). */
export function symbolsOfPoolName(name: string | null): { base: string | null; quote: string | null } {
  const match = name ? /^(.+?) \/ (.+?)(?: \d+(?:\.\d+)?%)?$/.exec(name.trim()) : null
  return match ? { base: match[1]!.trim() || null, quote: match[2]!.trim() || null } : { base: null, quote: null }
}

/**
 * Reads `/networks/base/pools` (JSON:API) into Base pairs, so one ranking and one Token mapping serve both providers:
 * tokens come from `included` or, when it lacks one, from the pool's name (`XDP / USDC 0.01%`: the symbol, used as
 * the name too); numbers from strings; `pool_created_at` from ISO time; `url` the pool's GeckoTerminal page (v4 pools
 * too). Pools without a usable token address, pool id or symbol are left out and counted in `dropped`. A body without
 * a `data` array is not this endpoint's (null).
 */
export function parseGeckoPoolsBody(body: unknown, dropped?: DroppedRows): Pair[] | null {
  const parsedBody = geckoPoolsBodySchema.safeParse(body)
  if (!parsedBody.success) return null
  const tokens = new Map<string, z.infer<typeof geckoIncludedSchema>['attributes']>()
  for (const item of parsedBody.data.included) {
    const entry = geckoIncludedSchema.safeParse(item)
    if (entry.success && entry.data.type !== 'dex') tokens.set(entry.data.id.toLowerCase(), entry.data.attributes)
  }
  const pairs: Pair[] = []
  for (const item of parsedBody.data.data) {
    const parsed = geckoPoolSchema.safeParse(item)
    if (!parsed.success) continue
    const { id, attributes: a, relationships: r } = parsed.data
    const base = r.base_token ? tokens.get(r.base_token.toLowerCase()) : undefined
    const quote = r.quote_token ? tokens.get(r.quote_token.toLowerCase()) : undefined
    const named = symbolsOfPoolName(a.name)
    const poolId = a.address ?? addressOfId(id)
    const created = a.pool_created_at ? Date.parse(a.pool_created_at) : Number.NaN
    const baseSymbol = base?.symbol ?? named.base
    const quoteSymbol = quote?.symbol ?? named.quote
    const pair = toBasePair(
      {
        chainId: DEXSCREENER_BASE_SLUG,
        dexId: r.dex,
        url: isPoolId(poolId) ? `${GECKO_POOL_PAGE_BASE_URL}/${poolId.toLowerCase()}` : null,
        pairAddress: poolId,
        baseToken: { address: base?.address ?? addressOfId(r.base_token) ?? '', name: base?.name ?? baseSymbol, symbol: baseSymbol },
        quoteToken: { address: quote?.address ?? addressOfId(r.quote_token), name: quote?.name ?? quoteSymbol, symbol: quoteSymbol },
        priceUsd: a.base_token_price_usd,
        txns: a.transactions,
        volume: { h1: a.volume_usd.h1, h6: a.volume_usd.h6, h24: a.volume_usd.h24 },
        priceChange: {
          m5: a.price_change_percentage.m5,
          h1: a.price_change_percentage.h1,
          h6: a.price_change_percentage.h6,
          h24: a.price_change_percentage.h24,
        },
        liquidity: { usd: a.reserve_in_usd },
        fdv: a.fdv_usd,
        marketCap: a.market_cap_usd,
        pairCreatedAt: Number.isFinite(created) ? created : null,
      },
      dropped,
    )
    if (pair) pairs.push(pair)
  }
  return pairs
}
