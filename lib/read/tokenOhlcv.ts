import {
  type CandlePlan,
  type CandleSeries,
  candleSeriesSchema,
  holdsOpenCandle,
  OPEN_CANDLE_TTL_MS,
  planCandles,
  rowsOfSeries,
  seriesAfter,
} from '../market/candleSeries.js'
import { chainMarketOf, chainOhlcvRows } from '../market/chainCandles.js'
import { type ChainMarketState, chainMarketStateSchema } from '../market/chainMarketState.js'
import { type ChartedPool, chartedPoolSchema, mostLiquidPool, poolsOfRoom } from '../market/chartedPool.js'
import { isHexAddress } from '../market/normalize.js'
import { candleSeconds, type OhlcvQuery } from '../market/ohlcvQuery.js'
import { NAME_MAX_LENGTH, SYMBOL_MAX_LENGTH, sanitizeText } from '../market/sanitize.js'
import { controlRoomSchema, type TokenOhlcv } from '../market/types.js'
import { errorName } from '../platform/log.js'
import { parseRecord } from '../store/records.js'
import { StoreError, type WriteEntry } from '../store/types.js'
import type { OhlcvToken, PoolOhlcv } from '../upstream/geckoOhlcv.js'
import { UpstreamError } from '../upstream/jsonGetter.js'
import type { CacheReadReturnType, RefreshResult } from './cache/cachedBody.js'
import { parseCachedBody } from './cache/cachedBody.js'
import { ReadNotFoundError } from './errors.js'
import { chainMarketKey } from './keys.js'
import type { ReadMemory } from './readMemory.js'
import { wethUsdOfRoomBody } from './roomWethPrice.js'
import type { ReadServices } from './services.js'
import { backOffGeckoAfter429 } from './universe/discovery.js'

/** How long the pool chosen for a token outside the top 100 is kept: pools change rank slowly, and a lookup costs a call. */
export const CHARTED_POOL_TTL_MS = 6 * 3_600_000
/** How long a token with no Base pool is remembered, in the store and by the instance: asking again costs no call. */
export const NO_POOL_TTL_MS = 10 * 60_000
/** How long a pool's kept closed candles, and an answer of closed candles only, live: they never change. */
export const CLOSED_CANDLES_TTL_MS = 3_600_000

/** The one answer for a token without a known pool: the same words whichever instance, store record or memory says it. */
const unknownToken = (address: string) =>
  new ReadNotFoundError(
    'UNKNOWN_TOKEN',
    `No Base pool is known in which ${address} is the base token (none in the top 100, none on DexScreener, or none GeckoTerminal charts); candles exist per pool only.`,
  )

/**
 * A token's candles as `GET /api/token-ohlcv` answers them, from the instance's copy, the shared cache, or one refresh:
 * an answer that may hold the candle still open is kept 30 s, one of closed candles only an hour. A token found to have
 * no Base pool is answered 404 from memory for 10 minutes.
 */
export async function readTokenOhlcv(services: ReadServices, query: OhlcvQuery): Promise<CacheReadReturnType> {
  const { address, timeframe, aggregate, currency, before, limit } = query
  const memoryKey = `ohlcv:${address}`
  if (services.memory.unknownTokens.has(memoryKey)) throw unknownToken(address)
  const seconds = candleSeconds(timeframe, aggregate)
  const request = `${timeframe}:${aggregate}:${currency}:${before ?? 'latest'}:${limit}`
  try {
    return await services.cache.read({
      key: services.keys.tokenOhlcv(address, request),
      ttlMs: holdsOpenCandle(before, seconds, services.now()) ? OPEN_CANDLE_TTL_MS : CLOSED_CANDLES_TTL_MS,
      refresh: () => refreshOhlcv(services, query, seconds),
    })
  } catch (error) {
    if (error instanceof ReadNotFoundError) services.memory.unknownTokens.set(memoryKey, true, { ttl: NO_POOL_TTL_MS })
    throw error
  }
}

/** The pools of a control-room body (its JSON text), by its ETag, parsed once per body the services see. */
export function poolsOfRoomBody(roomPools: ReadMemory['roomPools'], etag: string, body: string): Map<string, ChartedPool> {
  let pools = roomPools.get(etag)
  if (!pools) {
    const room = parseRecord(controlRoomSchema.pick({ liveActivity: true }), body)
    pools = room ? poolsOfRoom(room) : new Map()
    if (roomPools.size >= 4) roomPools.clear()
    roomPools.set(etag, pools)
  }
  return pools
}

/** What a refresh reads in its one store round trip: the token's remembered pool, its kept candles, the back-off, the room. */
type Known = {
  remembered: { pool: string | null; dexId: string } | null
  series: CandleSeries | null
  backingOff: boolean
  pools: Map<string, ChartedPool>
  /** The token's launch pool as the tick read it from the chain, when the service launched it with one. */
  chain: ChainMarketState | null
  /** The control room's body (its JSON text), when known: WETH's price now is in it. */
  roomBody: string | null
}

/**
 * A store call of a candle read: a store that fails reads as nothing kept, with one log line, and the read goes on
 * from the upstreams, as the cache's own store calls do (readCache.ts), instead of failing with a 500.
 */
async function unlessStoreDown<T>(services: ReadServices, operation: string, run: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (!(error instanceof StoreError)) throw error
    services.logger.warn('store_unavailable', {
      operation,
      store: services.store.kind,
      error: errorName(error),
      effect: 'charting uncached',
    })
    return fallback
  }
}

/** Reads what a refresh needs in one store call (the control room only when the instance holds no fresh copy). */
async function readKnown(services: ReadServices, address: string, seriesKey: string): Promise<Known> {
  const keys = services.keys
  const local = services.cache.peek(keys.controlRoom)
  const chainKey = chainMarketKey(services.keyPrefix, services.chainId, address)
  const wanted = [keys.chartedPool(address), seriesKey, keys.geckoBackoff, chainKey, ...(local ? [] : [keys.controlRoom])]
  const nothing = wanted.map(() => null)
  const [pool, series, backoff, chain, room] = await unlessStoreDown(services, 'getMany', () => services.store.getMany(wanted), nothing)
  const shared = local ? local.entry : parseCachedBody(room ?? null)
  return {
    remembered: parseRecord(chartedPoolSchema, pool),
    series: parseRecord(candleSeriesSchema, series),
    backingOff: backoff !== null && backoff !== undefined,
    pools: shared ? poolsOfRoomBody(services.memory.roomPools, shared.etag, shared.body) : new Map(),
    chain: parseRecord(chainMarketStateSchema, chain ?? null),
    roomBody: shared?.body ?? null,
  }
}

/**
 * The pool a token is charted from: the control room's while it is in the top 100, else the one remembered, else its
 * most liquid Base pool as DexScreener lists its pairs (one call, in the anonymous requests' share), remembered 6 hours;
 * none found is remembered 10 minutes and answered 404.
 */
async function chartedPool(services: ReadServices, address: string, known: Known): Promise<{ pool: ChartedPool; write?: WriteEntry }> {
  const inRoom = known.pools.get(address)
  if (inRoom) return { pool: inRoom }
  if (known.remembered) {
    if (known.remembered.pool === null) throw unknownToken(address)
    return { pool: { pool: known.remembered.pool, dexId: known.remembered.dexId } }
  }
  const found = mostLiquidPool(address, await services.searchUpstream.tokens([address]))
  const key = services.keys.chartedPool(address)
  if (!found) {
    await unlessStoreDown(
      services,
      'set',
      () => services.store.set(key, JSON.stringify({ pool: null, dexId: '' }), NO_POOL_TTL_MS),
      undefined,
    )
    throw unknownToken(address)
  }
  return { pool: found, write: { key, value: JSON.stringify(found), ttlMs: CHARTED_POOL_TTL_MS } }
}

/** Fetches what `plan` needs of GeckoTerminal, in the candle requests' share; a 429 backs every instance off. */
async function fetchCandles(services: ReadServices, pool: string, query: OhlcvQuery, plan: CandlePlan): Promise<PoolOhlcv> {
  const { candles } = services
  if (!candles) throw new UpstreamError('candles come from GeckoTerminal, which GECKOTERMINAL_BASE_URL turns off here', 'status')
  const { timeframe, aggregate, currency } = query
  const asked = plan.kind === 'page' ? { before: plan.before, limit: plan.limit } : { limit: plan.kind === 'kept' ? 1 : plan.limit }
  try {
    return await candles.poolOhlcv(pool, { timeframe, aggregate, currency, ...asked }, { signal: services.deadline(10_000) })
  } catch (error) {
    if (!(error instanceof UpstreamError) || error.status !== 429) throw error
    await backOffGeckoAfter429([error], services)
    throw new UpstreamError('GeckoTerminal answered 429: every instance leaves it alone for a while', 'throttled', 429)
  }
}

/**
 * The refresh of one token-ohlcv answer: one store read, at most one DexScreener and one GeckoTerminal call, one write
 * with the body. A token launched here with a pool is drawn from its pool's own swaps until the aggregators have it
 * (no pool known, or GeckoTerminal has no candles of it yet); GeckoTerminal's candles of the pool then start at its
 * first trade too, so the chart carries on without a gap.
 */
async function refreshOhlcv(services: ReadServices, query: OhlcvQuery, seconds: number): Promise<RefreshResult> {
  const seriesKey = services.keys.candleSeries(query.address, `${query.timeframe}:${query.aggregate}:${query.currency}`)
  const known = await readKnown(services, query.address, seriesKey)
  try {
    return await refreshFromAggregator(services, query, seconds, known, seriesKey)
  } catch (error) {
    // No pool known to the aggregators, or GeckoTerminal unable to chart it now (not indexed yet, off, throttled).
    if (known.chain && (error instanceof ReadNotFoundError || error instanceof UpstreamError))
      return chainAnswer(query, seconds, known.chain, known.roomBody ? wethUsdOfRoomBody(known.roomBody) : null, services.now())
    throw error
  }
}

/**
 * A launched token's candles from its pool's swaps, as the tick keeps them, and the pool as the service last read it
 * (pure): a pool born and not traded yet answers its price with no candle, not 404.
 */
function chainAnswer(query: OhlcvQuery, seconds: number, state: ChainMarketState, wethUsd: string | null, now: number): RefreshResult {
  const { address, timeframe, aggregate, currency, before, limit } = query
  const { priceEth, priceUsd, liquidity, marketCapEth } = chainMarketOf(state, Math.floor(now / 1000), wethUsd)
  const body: TokenOhlcv = {
    address,
    pairAddress: state.poolId,
    dexId: 'uniswap',
    timeframe,
    aggregate,
    currency,
    ohlcv: chainOhlcvRows({ state, seconds, currency, before, limit }),
    meta: {
      base: { address, name: null, symbol: null },
      quote: { address: null, name: 'Ether', symbol: 'ETH' },
      pool: { priceEth, priceUsd, liquidity, marketCapEth },
    },
  }
  return { body: JSON.stringify(body), source: 'chain', writes: [] }
}

/** The answer from the aggregators: the charted pool, its kept series, and GeckoTerminal's candles. */
async function refreshFromAggregator(
  services: ReadServices,
  query: OhlcvQuery,
  seconds: number,
  known: Known,
  seriesKey: string,
): Promise<RefreshResult> {
  const { address, timeframe, aggregate, currency, before, limit } = query
  const { pool, write } = await chartedPool(services, address, known)
  const now = services.now()
  const plan = planCandles({ series: known.series, pool: pool.pool, before, limit, seconds, now })
  const writes: WriteEntry[] = write ? [write] : []
  let rows = known.series ? rowsOfSeries(known.series, before, limit) : []
  let meta = known.series?.meta ?? { base: null, quote: null }
  if (plan.kind !== 'kept') {
    if (known.backingOff) throw new UpstreamError('GeckoTerminal is being left alone after a 429', 'throttled')
    let fetched: PoolOhlcv
    try {
      fetched = await fetchCandles(services, pool.pool, query, plan)
    } catch (error) {
      if (error instanceof UpstreamError && error.status === 404) throw unknownToken(address)
      throw error
    }
    meta = fetched.meta
    if (plan.kind === 'page') rows = fetched.rows.slice(0, limit)
    else {
      const series = seriesAfter({ kept: known.series, plan, fetched, pool: pool.pool, seconds, now })
      writes.push({ key: seriesKey, value: JSON.stringify(series), ttlMs: CLOSED_CANDLES_TTL_MS })
      rows = rowsOfSeries(series, before, limit)
    }
  }
  const body: TokenOhlcv = {
    address,
    pairAddress: pool.pool,
    dexId: pool.dexId,
    timeframe,
    aggregate,
    currency,
    ohlcv: rows,
    meta: { base: publicToken(meta.base), quote: publicToken(meta.quote) },
  }
  return { body: JSON.stringify(body), source: 'geckoterminal', writes }
}

/** A token of GeckoTerminal's `meta` as answered: a checked lower-case address, names made safe to show (untrusted text). */
function publicToken(token: OhlcvToken | null): TokenOhlcv['meta']['base'] {
  if (!token) return null
  return {
    address: isHexAddress(token.address) ? token.address.toLowerCase() : null,
    name: sanitizeText(token.name, NAME_MAX_LENGTH) || null,
    symbol: sanitizeText(token.symbol, SYMBOL_MAX_LENGTH) || null,
  }
}
