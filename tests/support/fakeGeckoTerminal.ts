import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Fault } from './fakeDexScreener.js'
import { geckoDexIdOf, geckoNumber, shapeDraw } from './realShapes.js'
import type { RawPair } from './syntheticMarket.js'

/** A local GeckoTerminal-shaped server: Base pools by 24h volume (JSON:API), with GeckoTerminal's 30 calls a minute. */
export type FakeGeckoTerminal = {
  url: string
  /** Paths (with query) of every request received, in order, the `Accept` header each carried and when (its clock). */
  requests: { path: string; accept: string | undefined; status: number; at: number }[]
  setPairs(pairs: RawPair[]): void
  /** Answers every request with `fault` until {@link clearFaults}. */
  failAlways(fault: Fault): void
  clearFaults(): void
  close(): Promise<void>
}

/** Parameters of {@link startFakeGeckoTerminal}. */
export type StartFakeGeckoTerminalParameters = {
  /** Calls allowed in any rolling minute before 429 (default 30, as the real API). */
  perMinute?: number
  /** The clock of the rolling minute (tests move it instead of sleeping). */
  now?: () => number
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : null)
const volumeOf = (pair: RawPair) => Number((pair.volume as { h24?: unknown } | undefined)?.h24 ?? 0) || 0

/** Native ETH as GeckoTerminal names it when it is a v4 pool's quote token. */
export const GECKO_NATIVE_ETH = { address: '0x0000000000000000000000000000000000000000', name: 'Ether', symbol: 'ETH' } as const
const WETH = '0x4200000000000000000000000000000000000006'
const FEES = ['0.01', '0.05', '0.3', '1'] as const

/**
 * One raw DexScreener pair as a GeckoTerminal pool in the real body's shape: lower-case `base_0x…` ids and addresses
 * (v4 pools keep their 32-byte id), the name `SYM / QUOTE 0.3%`, numbers as strings in windows m5 to h24,
 * `market_cap_usd` a string on every pool (on some above `fdv_usd`), `fdv_usd` and `pool_created_at` null where the
 * pair lacks them, `reserve_in_usd` `"0.0"` where it lacks liquidity, GeckoTerminal's own dex ids, native ETH as the
 * quote of some v4 pools, and `included` that lacks the base token of about one pool in ten. Answers the pool, the
 * tokens and the dex for `included`.
 */
export function toGeckoPool(pair: RawPair): { pool: unknown; tokens: unknown[] } {
  const address = String(pair.pairAddress).toLowerCase()
  const draw = (salt: number) => shapeDraw(address, salt)
  const volume = (pair.volume ?? {}) as Record<string, number>
  const change = (pair.priceChange ?? {}) as Record<string, number>
  const txns = (pair.txns ?? {}) as Record<string, { buys: number; sells: number }>
  const v4 = /^0x[0-9a-f]{64}$/.test(address)
  const quote = v4 && pair.quoteToken.address.toLowerCase() === WETH && draw(30) < 0.4 ? GECKO_NATIVE_ETH : pair.quoteToken
  const token = (t: { address: string; name: string; symbol: string }) => ({
    id: `base_${t.address.toLowerCase()}`,
    type: 'token',
    attributes: {
      address: t.address.toLowerCase(),
      name: t.name,
      symbol: t.symbol,
      decimals: 18,
      image_url: draw(31) < 0.5 ? 'missing.png' : `https://coin-images.coingecko.com/coins/images/1/small/${t.symbol}.png`,
      coingecko_coin_id: null,
    },
  })
  const dexId = geckoDexIdOf(pair)
  const fdv = typeof pair.fdv === 'number' ? pair.fdv : null
  const marketCap = typeof pair.marketCap === 'number' ? pair.marketCap : (fdv ?? volumeOf(pair) * 5)
  const liquidity = (pair.liquidity as { usd?: number } | undefined)?.usd
  const h1 = Number(volume.h1 ?? 0)
  const windows = (values: Record<string, unknown>) =>
    Object.fromEntries(['m5', 'm15', 'm30', 'h1', 'h6', 'h24'].map((k) => [k, num(values[k]) ?? '0']))
  return {
    pool: {
      id: `base_${address}`,
      type: 'pool',
      attributes: {
        address,
        name: `${pair.baseToken.symbol} / ${quote.symbol} ${FEES[Math.floor(draw(32) * FEES.length)]}%`,
        pool_created_at: typeof pair.pairCreatedAt === 'number' ? new Date(pair.pairCreatedAt).toISOString().replace('.000Z', 'Z') : null,
        base_token_price_usd: typeof pair.priceUsd === 'string' ? pair.priceUsd : null,
        base_token_price_native_currency: '0.0000001',
        quote_token_price_usd: '1.0',
        fdv_usd: num(fdv),
        // A string on every Base pool, on some above fdv (circulating supply counted differently).
        market_cap_usd: num(draw(33) < 0.2 && fdv !== null ? fdv * 1.08 : marketCap),
        reserve_in_usd: num(liquidity) ?? '0.0',
        price_change_percentage: windows({ ...change, m15: change.m5, m30: change.h1 }),
        volume_usd: windows({ ...volume, m15: h1 / 4, m30: h1 / 2 }),
        transactions: Object.fromEntries(
          ['m5', 'm15', 'm30', 'h1', 'h6', 'h24'].map((k) => [
            k,
            { buys: txns[k]?.buys ?? 0, sells: txns[k]?.sells ?? 0, buyers: txns[k]?.buys ?? 0, sellers: txns[k]?.sells ?? 0 },
          ]),
        ),
      },
      relationships: {
        base_token: { data: { id: `base_${pair.baseToken.address.toLowerCase()}`, type: 'token' } },
        quote_token: { data: { id: `base_${quote.address.toLowerCase()}`, type: 'token' } },
        dex: { data: { id: dexId, type: 'dex' } },
      },
    },
    tokens: [...(draw(34) < 0.1 ? [] : [token(pair.baseToken)]), token(quote), { id: dexId, type: 'dex', attributes: { name: dexId } }],
  }
}

/** A candle request as the fake reads it from the path and query (GeckoTerminal's terms). */
export type FakeOhlcvQuery = {
  timeframe: 'minute' | 'hour' | 'day'
  aggregate: number
  limit: number
  before?: number
  currency: 'usd' | 'token'
}

const TIMEFRAME_SECONDS = { minute: 60, hour: 3600, day: 86_400 } as const
const AGGREGATES = { minute: [1, 5, 15], hour: [1, 4, 12], day: [1] } as const

/** The candle request of a query string, or why GeckoTerminal would refuse it. */
export function readOhlcvQuery(
  timeframe: string,
  q: URLSearchParams,
): { ok: true; query: FakeOhlcvQuery } | { ok: false; refused: string } {
  if (!(timeframe in AGGREGATES)) return { ok: false, refused: 'timeframe' }
  const frame = timeframe as FakeOhlcvQuery['timeframe']
  const aggregate = Number(q.get('aggregate') ?? '1')
  if (!(AGGREGATES[frame] as readonly number[]).includes(aggregate)) return { ok: false, refused: 'aggregate' }
  const limit = Number(q.get('limit') ?? '100')
  if (!Number.isInteger(limit) || limit < 1) return { ok: false, refused: 'limit' }
  const currency = q.get('currency') ?? 'usd'
  if (currency !== 'usd' && currency !== 'token') return { ok: false, refused: 'currency' }
  if ((q.get('token') ?? 'base') !== 'base') return { ok: false, refused: 'token (this fake charts the base token)' }
  const before = q.get('before_timestamp')
  if (before !== null && !/^\d+$/.test(before)) return { ok: false, refused: 'before_timestamp' }
  // GeckoTerminal answers at most 1000 candles, whatever the limit says.
  const query: FakeOhlcvQuery = { timeframe: frame, aggregate, limit: Math.min(limit, 1000), currency }
  return { ok: true, query: before === null ? query : { ...query, before: Number(before) } }
}

/**
 * A pool's candles as GeckoTerminal answers them, newest first. A closed candle is the same in every answer (drawn
 * from the pool, the size and its start, never from the clock): a wave around the pair's price, with no candle where
 * nobody traded (shallow pools, liquidity under a tenth of their volume, trade in about half the intervals, deep ones
 * in nearly all) and none before the pool was created. The candle still open closes at the pair's current price. As in
 * real bodies, the oldest row comes twice and small numbers come in exponent notation (`1.61e-05`); with
 * `currency=token` prices are in the quote token. Answers the body's JSON text.
 */
export function ohlcvBodyOf(pair: RawPair, query: FakeOhlcvQuery, now: number): string {
  const pool = String(pair.pairAddress).toLowerCase()
  const interval = TIMEFRAME_SECONDS[query.timeframe] * query.aggregate
  const price = Number(pair.priceUsd) || 1
  const quoteUsd = price / (Number(pair.priceNative) || 1)
  const scale = query.currency === 'token' ? 1 / quoteUsd : 1
  const volume = Number((pair.volume as { h24?: number } | undefined)?.h24 ?? 0)
  const liquidity = Number((pair.liquidity as { usd?: number } | undefined)?.usd ?? 0)
  const tradeChance = liquidity < volume / 10 ? 0.5 : 0.95
  const created = Math.floor(Number(pair.pairCreatedAt ?? 1_700_000_000_000) / 1000)
  const open = Math.floor(now / 1000 / interval) * interval
  const draw = (t: number, salt: number) => shapeDraw(`${pool}:${interval}:${t}`, salt)
  const closeAt = (t: number) =>
    t >= open ? price : price * Math.exp(0.05 * Math.sin(t / (interval * 37))) * (1 + (draw(t, 41) - 0.5) / 50)
  const rows: string[] = []
  let t = query.before === undefined ? open : Math.floor((query.before - 1) / interval) * interval
  for (let looked = 0; rows.length < query.limit && t >= created && looked < query.limit * 20; looked++, t -= interval) {
    if (t > open || draw(t, 40) >= tradeChance) continue
    const close = closeAt(t)
    const first = closeAt(t - interval)
    const high = Math.max(first, close) * (1 + draw(t, 42) / 250)
    const low = Math.min(first, close) * (1 - draw(t, 43) / 250)
    const traded = (volume / (86_400 / interval)) * (0.5 + draw(t, 44))
    rows.push(`[${[t, first * scale, high * scale, low * scale, close * scale, traded * scale].map(geckoNumber).join(',')}]`)
  }
  if (rows.length > 0) rows.push(rows.at(-1)!)
  const token = (x: { address: string; name: string; symbol: string }, coin: string | null) => ({
    address: x.address.toLowerCase(),
    name: x.name,
    symbol: x.symbol,
    coingecko_coin_id: coin,
  })
  const meta = { base: token(pair.baseToken, null), quote: token(pair.quoteToken, 'weth') }
  return `{"data":{"id":"${pool.slice(2, 10)}-ohlcv","type":"ohlcv_request_response","attributes":{"ohlcv_list":[${rows.join(',')}]}},"meta":${JSON.stringify(meta)}}`
}

/** Starts the fake GeckoTerminal on a free loopback port, over the same raw pairs as the fake DexScreener. */
export async function startFakeGeckoTerminal(
  initialPairs: RawPair[],
  parameters: StartFakeGeckoTerminalParameters = {},
): Promise<FakeGeckoTerminal> {
  const { perMinute = 30, now = Date.now } = parameters
  let pairs = initialPairs
  let fault: Fault | null = null
  const served: number[] = []
  const requests: FakeGeckoTerminal['requests'] = []

  const server = createServer((req, res) => {
    const path = req.url ?? '/'
    const t = now()
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      requests.push({ path, accept: req.headers.accept, status, at: t })
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end(typeof body === 'string' ? body : JSON.stringify(body))
    }
    while (served.length && served[0]! <= t - 60_000) served.shift()
    if (served.length >= perMinute)
      return reply(
        429,
        { status: { error_code: 429, error_message: "You've exceeded the Rate Limit." } },
        { 'retry-after': String(Math.ceil((served[0]! + 60_000 - t) / 1000)) },
      )
    served.push(t)
    if (fault?.kind === 'status') return reply(fault.status, fault.body ?? { errors: [{ status: String(fault.status) }] }, fault.headers)
    if (fault?.kind === 'reset') return void req.socket.destroy()
    if (fault?.kind === 'html')
      return reply(fault.status ?? 200, '<!DOCTYPE html><html><body>Just a moment...</body></html>', { 'content-type': 'text/html' })
    const url = new URL(path, 'http://fake')
    const ohlcv = /^\/networks\/base\/pools\/(0x[0-9a-fA-F]{40}|0x[0-9a-fA-F]{64})\/ohlcv\/(day|hour|minute)$/.exec(url.pathname)
    if (ohlcv) {
      const asked = readOhlcvQuery(ohlcv[2]!, url.searchParams)
      if (!asked.ok) return reply(400, { errors: [{ status: '400', title: `Invalid ${asked.refused}` }] })
      const pair = pairs.find((p) => p.chainId === 'base' && String(p.pairAddress).toLowerCase() === ohlcv[1]!.toLowerCase())
      if (!pair) return reply(404, { errors: [{ status: '404', title: 'Not Found' }] })
      return reply(200, ohlcvBodyOf(pair, asked.query, t))
    }
    if (url.pathname !== '/networks/base/pools') return reply(404, { errors: [{ status: '404', title: 'Not Found' }] })
    const page = Number(url.searchParams.get('page') ?? '1')
    if (url.searchParams.get('sort') !== 'h24_volume_usd_desc' || !Number.isInteger(page) || page < 1 || page > 10)
      return reply(200, { data: [] })
    const ranked = pairs
      .filter((p) => p.chainId === 'base')
      .sort((a, b) => volumeOf(b) - volumeOf(a))
      .slice((page - 1) * 20, page * 20)
    const pools = ranked.map(toGeckoPool)
    const included = new Map<string, unknown>()
    for (const { tokens } of pools) for (const token of tokens) included.set((token as { id: string }).id, token)
    reply(200, { data: pools.map((p) => p.pool), included: [...included.values()] })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    setPairs: (next) => {
      pairs = next
    },
    failAlways: (next) => {
      fault = next
    },
    clearFaults: () => {
      fault = null
    },
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}
