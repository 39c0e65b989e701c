import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { ControlRoom, TokenOhlcv } from '../../lib/market/types.js'
import { backfillPriceLines } from '../../lib/read/history/priceBackfill.js'
import { readKeys } from '../../lib/read/keys.js'
import { type ReadStack, startReadStack } from '../support/readStack.js'
import { createLongTailMarket, createSyntheticMarket, HUBS, makePair, type RawPair } from '../support/syntheticMarket.js'

/** A token far outside the top 100 with three pools: two in which it is the base token (the v4 one deeper), one as the quote. */
const OUTSIDER = { address: '0x00000000000000000000000000000000000a0a0a', name: 'Outsider <i>', symbol: 'OUTS' }
const OUTSIDER_V4 = `0x${'ab'.repeat(32)}`
const OUTSIDER_SHALLOW = '0x00000000000000000000000000000000000a0a0b'
const NOBODY = '0x00000000000000000000000000000000000b0b0b'
const outsiderPools: RawPair[] = [
  makePair({ base: OUTSIDER, quote: HUBS.WETH, pairAddress: OUTSIDER_SHALLOW, volume24h: 900, liquidityUsd: 20_000, priceUsd: '0.00002' }),
  makePair({ base: OUTSIDER, quote: HUBS.USDC, pairAddress: OUTSIDER_V4, volume24h: 800, liquidityUsd: 90_000, priceUsd: '0.0000201' }),
  makePair({
    base: HUBS.WETH,
    quote: OUTSIDER,
    pairAddress: '0x00000000000000000000000000000000000a0a0c',
    volume24h: 1000,
    liquidityUsd: 5_000_000,
    priceUsd: '3120.55',
  }),
]

const ohlcv = (query: string, ip = '198.51.100.1') =>
  new Request(`https://svc.test/api/token-ohlcv?${query}`, { headers: { 'x-real-ip': ip } })

describe('GET /api/token-ohlcv (Upstash over redis-server, the DexScreener- and GeckoTerminal-shaped upstreams)', () => {
  let stack: ReadStack
  let room: ControlRoom
  const market = [...createSyntheticMarket(), ...outsiderPools]
  const candleCalls = () => stack.gecko!.requests.filter((r) => r.path.includes('/ohlcv/'))

  beforeAll(async () => {
    stack = await startReadStack({
      storeKind: 'upstash',
      redisSocket: inject('redisSocket'),
      market,
      withGecko: true,
      searchShare: true,
      env: { TOKEN_OHLCV_RATE_LIMIT_PER_MINUTE: '1000' },
    })
    room = (await (await stack.controlRoom(new Request('https://svc.test/api/control-room'))).json()) as ControlRoom
  })
  afterAll(() => stack?.close())

  it('names the wrong field of every bad parameter in a 400, and tells the client its quota', async () => {
    const token = room.liveActivity[0]!.address
    const cases: [string, string][] = [
      ['', 'address'],
      ['address=0x12', 'address'],
      [`address=${token}&timeframe=week`, 'timeframe'],
      [`address=${token}&timeframe=minute&aggregate=4`, 'aggregate'],
      [`address=${token}&before_timestamp=-5`, 'before_timestamp'],
      [`address=${token}&limit=1001`, 'limit'],
      [`address=${token}&currency=eur`, 'currency'],
      [`address=${token}&limit=5&limit=6`, 'limit'],
    ]
    for (const [query, field] of cases) {
      const response = await stack.tokenOhlcv(ohlcv(query))
      expect(response.status, query).toBe(400)
      const body = (await response.json()) as { code: string; field: string; error: string }
      expect(body, query).toMatchObject({ code: 'INVALID_PARAMETER', field })
      expect(body.error).toContain(field)
      expect(response.headers.get('ratelimit-policy')).toBe('"ohlcv";q=1000;w=60')
    }
    expect(candleCalls()).toHaveLength(0)
  })

  it('charts a top-100 token from the control room’s pool, a Uniswap v4 pool id included: newest first, one row per t, gaps left out', async () => {
    const v4 = room.liveActivity.find((t) => t.pairAddress?.length === 66)!
    expect(v4).toBeDefined()
    const response = await stack.tokenOhlcv(ohlcv(`address=${v4.address}&timeframe=minute&aggregate=5&limit=288`))
    expect(response.status).toBe(200)
    expect(response.headers.get('x-data-source')).toBe('geckoterminal')
    expect(response.headers.get('cache-control')).toMatch(/max-age=(30|29),/)
    const body = (await response.json()) as TokenOhlcv
    expect(body).toMatchObject({
      address: v4.address,
      pairAddress: v4.pairAddress,
      dexId: v4.dexId,
      timeframe: 'minute',
      aggregate: 5,
      currency: 'usd',
    })
    expect(body.meta.base).toEqual({ address: v4.address, name: v4.name, symbol: v4.symbol })
    expect(candleCalls().at(-1)!.path).toContain(`/pools/${v4.pairAddress}/ohlcv/minute?aggregate=5&limit=289`) // one more than asked: the series keeps 288 closed
    const times = body.ohlcv.map((row) => row[0])
    expect(new Set(times).size).toBe(times.length) // the fake repeats its oldest row, as GeckoTerminal does
    for (let i = 1; i < times.length; i++) expect(times[i - 1]! - times[i]!).toBeGreaterThanOrEqual(300)
    expect(body.ohlcv.every((row) => row.length === 6 && row.every((n) => typeof n === 'number'))).toBe(true)
    expect(body.ohlcv.length).toBeLessThanOrEqual(288)
    // Its pool is shallow: nobody traded in some 5-minute intervals, and no candle stands in for them.
    const span = (times[0]! - times.at(-1)!) / 300 + 1
    if (v4.liquidity < v4.volume24h / 10) expect(body.ohlcv.length).toBeLessThan(span)
  })

  it('answers a repeated request with no upstream call, and another instance with one store read', async () => {
    const token = room.liveActivity[3]!
    const query = `address=${token.address}&timeframe=hour&limit=48`
    expect((await stack.tokenOhlcv(ohlcv(query))).status).toBe(200)
    const calls = candleCalls().length
    const commands = stack.upstash!.commands.length
    const again = await stack.tokenOhlcv(ohlcv(query))
    expect(again.status).toBe(200)
    expect(candleCalls()).toHaveLength(calls)
    // The instance's own copy: the per-client throttle's script is the only store command.
    expect(stack.upstash!.commands.slice(commands).filter((c) => c !== 'EVALSHA' && c !== 'EVAL')).toEqual([])
    const other = stack.newInstance()
    const fromOther = stack.upstash!.commands.length
    const shared = await other.tokenOhlcv(ohlcv(query))
    expect(shared.status).toBe(200)
    expect(await shared.text()).toBe(await again.text())
    expect(candleCalls()).toHaveLength(calls)
    expect(stack.upstash!.commands.slice(fromOther).filter((c) => c !== 'EVALSHA' && c !== 'EVAL')).toEqual(['GET'])
  })

  it('keeps closed candles long and the open one 30 s: another limit costs no call, and later only the new candles are fetched', async () => {
    const token = room.liveActivity[4]!
    const first = (await (
      await stack.tokenOhlcv(ohlcv(`address=${token.address}&timeframe=minute&aggregate=15&limit=100`))
    ).json()) as TokenOhlcv
    const calls = candleCalls().length
    const fewer = (await (
      await stack.tokenOhlcv(ohlcv(`address=${token.address}&timeframe=minute&aggregate=15&limit=10`))
    ).json()) as TokenOhlcv
    expect(fewer.ohlcv).toEqual(first.ohlcv.slice(0, 10))
    const older = first.ohlcv[20]![0]
    const page = (await (
      await stack.tokenOhlcv(ohlcv(`address=${token.address}&timeframe=minute&aggregate=15&limit=20&before_timestamp=${older}`))
    ).json()) as TokenOhlcv
    expect(page.ohlcv).toEqual(first.ohlcv.slice(21, 41))
    expect(candleCalls()).toHaveLength(calls)
    // 45 minutes later: three candles have closed since; one call for what happened since, not the 100 again.
    stack.clock.now += 45 * 60_000
    const later = (await (
      await stack.tokenOhlcv(ohlcv(`address=${token.address}&timeframe=minute&aggregate=15&limit=100`))
    ).json()) as TokenOhlcv
    await stack.drain()
    const fresh = (await (
      await stack.tokenOhlcv(ohlcv(`address=${token.address}&timeframe=minute&aggregate=15&limit=100`))
    ).json()) as TokenOhlcv
    expect(candleCalls().length).toBe(calls + 1)
    expect(candleCalls().at(-1)!.path).toMatch(/limit=4(&|$)/)
    expect(later.ohlcv.length + fresh.ohlcv.length).toBeGreaterThan(0)
    // Closed candles kept from the first answer are the same in the new one.
    const kept = new Map(first.ohlcv.slice(1).map((row) => [row[0], row]))
    for (const row of fresh.ohlcv) if (kept.has(row[0])) expect(row).toEqual(kept.get(row[0]))
    expect(fresh.ohlcv[0]![0]).toBeGreaterThan(first.ohlcv[0]![0])
  })

  it('charts a token outside the top 100 from its most liquid Base pool in which it is the base token, remembered for the next size', async () => {
    const lookups = () => stack.upstream.requests.filter((p) => p.startsWith(`/tokens/v1/base/${OUTSIDER.address}`)).length
    const response = await stack.tokenOhlcv(ohlcv(`address=${OUTSIDER.address}&timeframe=day`))
    expect(response.status).toBe(200)
    const body = (await response.json()) as TokenOhlcv
    expect(body.pairAddress).toBe(OUTSIDER_V4)
    expect(body.meta.base).toEqual({ address: OUTSIDER.address, name: 'Outsider <i>', symbol: 'OUTS' })
    expect(lookups()).toBe(1)
    expect((await stack.tokenOhlcv(ohlcv(`address=${OUTSIDER.address}&timeframe=hour&currency=token`))).status).toBe(200)
    expect(lookups()).toBe(1)
    const remembered = await stack.store.get(readKeys(stack.services.keyPrefix).chartedPool(OUTSIDER.address))
    expect(JSON.parse(remembered!)).toEqual({ pool: OUTSIDER_V4, dexId: 'uniswap' })
  })

  it('answers 404 UNKNOWN_TOKEN for a token without a Base pool, and a repeat costs no upstream call and no store read', async () => {
    const first = await stack.tokenOhlcv(ohlcv(`address=${NOBODY}`))
    expect(first.status).toBe(404)
    expect(await first.json()).toMatchObject({ code: 'UNKNOWN_TOKEN' })
    const upstream = stack.upstream.requests.length + stack.gecko!.requests.length
    const commands = stack.upstash!.commands.length
    for (const timeframe of ['hour', 'day', 'minute'])
      expect((await stack.tokenOhlcv(ohlcv(`address=${NOBODY}&timeframe=${timeframe}`))).status).toBe(404)
    expect(stack.upstream.requests.length + stack.gecko!.requests.length).toBe(upstream)
    expect(stack.upstash!.commands.slice(commands).filter((c) => c !== 'EVALSHA' && c !== 'EVAL')).toEqual([])
    // Another instance learns it from the store, not from DexScreener.
    expect((await stack.newInstance().tokenOhlcv(ohlcv(`address=${NOBODY}&timeframe=day`))).status).toBe(404)
    expect(stack.upstream.requests.length).toBe(upstream - stack.gecko!.requests.length)
  })

  it('still charts with Redis unreachable: from the upstreams, uncached, said in a log line, never a 500', async () => {
    // A fresh instance holds nothing of its own: the pool, the kept candles and the room are all in the store.
    const instance = stack.newInstance()
    const token = room.liveActivity[7]!
    stack.upstash!.setUnreachable(true)
    try {
      const response = await instance.tokenOhlcv(ohlcv(`address=${token.address}&timeframe=hour&aggregate=4&limit=5`, '198.51.100.77'))
      expect(response.status).toBe(200)
      expect((await response.json()) as TokenOhlcv).toMatchObject({ address: token.address, timeframe: 'hour', aggregate: 4 })
      const events = instance.logs.map((line) => JSON.parse(line) as { event: string })
      expect(events).toContainEqual(expect.objectContaining({ event: 'store_unavailable' }))
      expect(events.filter((e) => e.event.endsWith('_failed'))).toEqual([])
    } finally {
      stack.upstash!.setUnreachable(false)
    }
  })

  it('answers an empty list for a page before the pool’s first trade, cached long', async () => {
    const token = room.liveActivity[6]!
    const response = await stack.tokenOhlcv(ohlcv(`address=${token.address}&timeframe=day&before_timestamp=1600000000`))
    expect(response.status).toBe(200)
    expect(((await response.json()) as TokenOhlcv).ohlcv).toEqual([])
    expect(response.headers.get('cache-control')).toMatch(/max-age=3[56]\d\d,/)
  })

  it('passes GeckoTerminal’s 429 on as 429 with Retry-After and backs every instance off; its errors as 502', async () => {
    const token = room.liveActivity[7]!
    stack.gecko!.failAlways({ kind: 'status', status: 429, headers: { 'retry-after': '60' } })
    try {
      const limited = await stack.tokenOhlcv(ohlcv(`address=${token.address}&timeframe=day&limit=7`))
      expect(limited.status).toBe(429)
      expect(limited.headers.get('retry-after')).toBeTruthy()
      expect(await stack.store.get(readKeys(stack.services.keyPrefix).geckoBackoff)).not.toBeNull()
      const calls = stack.gecko!.requests.length
      expect((await stack.newInstance().tokenOhlcv(ohlcv(`address=${token.address}&timeframe=day&limit=8`))).status).toBe(429)
      expect(stack.gecko!.requests.length).toBe(calls) // backing off: not asked again
    } finally {
      stack.gecko!.clearFaults()
      await stack.store.delete(readKeys(stack.services.keyPrefix).geckoBackoff)
    }
    stack.gecko!.failAlways({ kind: 'status', status: 503 })
    try {
      const failed = await stack.tokenOhlcv(ohlcv(`address=${token.address}&timeframe=day&limit=9`))
      expect(failed.status).toBe(502)
      expect(await failed.json()).toMatchObject({ code: 'UPSTREAM_ERROR' })
    } finally {
      stack.gecko!.clearFaults()
    }
  })
})

describe('a flood of candle requests leaves GeckoTerminal to discovery and the failover (Upstash over redis-server)', () => {
  let stack: ReadStack
  beforeAll(async () => {
    stack = await startReadStack({
      storeKind: 'upstash',
      redisSocket: inject('redisSocket'),
      withGecko: true,
      searchShare: true,
      env: { TOKEN_OHLCV_RATE_LIMIT_PER_MINUTE: '100' },
    })
    await stack.controlRoom(new Request('https://svc.test/api/control-room'))
  })
  afterAll(() => stack?.close())

  it('1,000 distinct addresses from 10 clients take at most their share; discovery then gets its 10 pages and the failover builds the room', async () => {
    // A minute after the first refresh, whose discovery pages have left GeckoTerminal's rolling minute.
    stack.clock.now += 61_000
    const room = (await (await stack.controlRoom(new Request('https://svc.test/api/control-room'))).json()) as ControlRoom
    const known = room.liveActivity.map((t) => t.address)
    const addresses = Array.from({ length: 1000 }, (_, i) => known[i] ?? `0x${(0xf100d0000000 + i).toString(16).padStart(40, '0')}`)
    const statuses = (
      await Promise.all(
        Array.from({ length: 10 }, async (_, client) => {
          const mine: number[] = []
          for (let i = client; i < addresses.length; i += 10)
            mine.push((await stack.tokenOhlcv(ohlcv(`address=${addresses[i]}&timeframe=hour`, `203.0.113.${client + 1}`))).status)
          return mine
        }),
      )
    ).flat()
    expect(statuses).toHaveLength(1000)
    expect(statuses.filter((s) => ![200, 404, 429].includes(s))).toEqual([])
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(800)
    const candleCalls = stack.gecko!.requests.filter((r) => r.path.includes('/ohlcv/'))
    expect(candleCalls.length).toBeGreaterThan(0)
    expect(candleCalls.length).toBeLessThanOrEqual(10) // OHLCV_UPSTREAM_REQUESTS_PER_MINUTE, of GeckoTerminal's 30
    expect(stack.gecko!.requests.filter((r) => r.status === 429)).toEqual([]) // GeckoTerminal never had to refuse one
    const lookups = stack.upstream.requests.filter((p) => p.startsWith('/tokens/v1/base/0x0000000000000000000000000000f100d')).length
    expect(lookups).toBeLessThanOrEqual(100) // the anonymous share of DexScreener, as searches

    // Within the same minute: discovery comes due (its 5-minute claim, made by the first refresh, is over; Redis keeps
    // that claim on its own clock, so the test ends it) and gets every page it asks for…
    await stack.store.delete(readKeys(stack.services.keyPrefix).geckoDiscovery)
    const { discoverIfDue } = await import('../../lib/read/universe/discovery.js')
    expect(await discoverIfDue(stack.services)).toMatchObject({ due: true, pages: 10, failedPages: 0 })
    // …and when DexScreener fails, the failover still builds the room from GeckoTerminal.
    stack.upstream.failAlways('/', { kind: 'status', status: 503 })
    try {
      stack.clock.now += 31_000
      let response = await stack.controlRoom(new Request('https://svc.test/api/control-room'))
      await stack.drain()
      response = await stack.controlRoom(new Request('https://svc.test/api/control-room'))
      expect(response.headers.get('x-data-source')).toBe('geckoterminal')
      expect(response.headers.get('x-data-state')).toBe('fresh')
      expect(((await response.json()) as ControlRoom).liveActivity.length).toBeGreaterThan(50)
    } finally {
      stack.upstream.clearFaults()
    }
    expect(stack.gecko!.requests.filter((r) => r.status === 429)).toEqual([])
  }, 60_000)
})

describe('a fresh deployment’s backfill leaves readers their candles', () => {
  it('after discovery and the price backfill of 100 new tokens in one minute, a candle request still gets its call', async () => {
    const stack = await startReadStack({ storeKind: 'memory', market: createLongTailMarket(), withGecko: true })
    try {
      // A fresh deployment's first minute: the room's refresh runs discovery (10 pages), then the tick backfills a day
      // of prices for every top-100 token, none of which has a line yet.
      const room = (await (await stack.controlRoom(new Request('https://svc.test/api/control-room'))).json()) as ControlRoom
      const backfill = await backfillPriceLines({ services: stack.services, tokens: room.liveActivity })
      expect(backfill.fetched).toBeGreaterThan(0)
      expect(backfill.remaining).toBeGreaterThan(0) // the backfill stopped for the minute, with work left
      const before = stack.gecko!.requests.length
      const response = await stack.tokenOhlcv(ohlcv(`address=${room.liveActivity[0]!.address}&timeframe=minute&aggregate=15`))
      expect(response.status).toBe(200)
      expect(((await response.json()) as TokenOhlcv).ohlcv.length).toBeGreaterThan(0)
      expect(stack.gecko!.requests.length).toBe(before + 1)
    } finally {
      await stack.close()
    }
  })
})
