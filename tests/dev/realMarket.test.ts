import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ControlRoom, Token, TokenHistory, TokenSearchResult } from '../../lib/market/types.js'
import { type FakeDexScreener, startFakeDexScreener } from '../support/fakeDexScreener.js'
import { type FakeGeckoTerminal, startFakeGeckoTerminal } from '../support/fakeGeckoTerminal.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { fetchChecked } from '../support/openapiCheck.js'
import { geckoDexIdOf } from '../support/realShapes.js'
import { createLongTailMarket, HUBS, makePair, type RawPair, trueTopTokens } from '../support/syntheticMarket.js'

const V4 = /^0x[0-9a-f]{64}$/

/** Rows real bodies carry now and then: a pool id that is neither 20 nor 32 bytes, a token address that is no address. */
const BROKEN: RawPair[] = [
  makePair({
    base: { address: '0x7a8B9c0D1e2F3a4B5c6D7e8F9a0B1c2D3e4F5a6B', name: 'Broken Pool', symbol: 'BRKN' },
    quote: HUBS.WETH,
    pairAddress: '0x1234',
    volume24h: 90_000_000,
  }),
  makePair({
    base: { address: '0xnot-an-address', name: 'No Address', symbol: 'NOADDR' },
    quote: HUBS.WETH,
    pairAddress: '0x00000000000000000000000000000000000bad01',
    volume24h: 80_000_000,
  }),
]

/** Every listed token's name, symbol and pair name: none of them `?`. */
const labels = (rows: readonly Token[]) => rows.flatMap((t) => [t.name, t.symbol, t.pairName])

/**
 * `npm start` on a market shaped like Base's (young tokens with unguessable names, a third of their pools Uniswap v4
 * with 32-byte ids, the real bodies' missing windows and fields, GeckoTerminal's own dex ids and untidy `included`):
 * v4 pools are first-class in the room, the price lines and the failover, and `dexId` does not depend on the source.
 */
describe('npm start on the real shapes of the Base market', () => {
  const market = [...createLongTailMarket({ tokens: 500 }), ...BROKEN]
  const rawByPool = new Map(market.map((p) => [String(p.pairAddress).toLowerCase(), p]))
  let dexscreener: FakeDexScreener
  let gecko: FakeGeckoTerminal
  let server: NpmStart
  let room: ControlRoom

  beforeAll(async () => {
    dexscreener = await startFakeDexScreener(market)
    gecko = await startFakeGeckoTerminal(market)
    server = await startNpmStart({ DEXSCREENER_BASE_URL: dexscreener.url, GECKOTERMINAL_BASE_URL: gecko.url, TICK_INTERVAL_SECONDS: '1' })
    const response = await fetchChecked(`${server.url}/api/control-room`) // every answer here is checked against the OpenAPI
    expect(response.headers.get('x-data-source')).toBe('dexscreener')
    room = (await response.json()) as ControlRoom
  }, 30_000)
  afterAll(async () => {
    await server.stop()
    await Promise.all([dexscreener.close(), gecko.close()])
  })

  it('lists v4 pools beside the others, drops and counts the rows it cannot show, and never shows `?`', () => {
    expect(room.liveActivity).toHaveLength(100)
    const truth = trueTopTokens(market.filter((p) => !BROKEN.includes(p)))
    for (const row of room.liveActivity) expect(row.pairAddress).toBe(String(truth.get(row.address)?.pairAddress).toLowerCase())
    expect(room.liveActivity.filter((t) => V4.test(t.pairAddress ?? '')).length).toBeGreaterThan(20)
    expect(labels(room.liveActivity)).not.toContain('?')
    expect(room.commentary).not.toContain('?')
    expect(room.liveActivity.map((t) => t.symbol)).not.toContain('BRKN')
    const refreshed = server.lines.map((l) => JSON.parse(l)).find((l) => l.event === 'control_room_refreshed')
    expect(refreshed).toMatchObject({ source: 'dexscreener', droppedPoolId: expect.any(Number), droppedTokenAddress: expect.any(Number) })
    expect(refreshed.droppedPoolId).toBeGreaterThanOrEqual(1)
  })

  it('fills a v4 token’s price line from its pool’s candles (the 32-byte id in the OHLCV path)', async () => {
    const v4Leader = room.liveActivity.slice(0, 20).find((t) => V4.test(t.pairAddress ?? ''))!
    expect(v4Leader).toBeDefined()
    // The tick backfills the leaders' lines within seconds of the first refresh; token-history is read once it has.
    const ohlcv = `/networks/base/pools/${v4Leader.pairAddress}/ohlcv/minute`
    await expect
      .poll(() => gecko.requests.some((r) => r.path.startsWith(ohlcv) && r.status === 200), { timeout: 10_000, interval: 100 })
      .toBe(true)
    // npm start stores the line in its own process after the answer, and a read before that would be cached for 30 s:
    // the event to wait for is the end of the tick that asked for the candles, which npm start logs once all its parts
    // (the backfill's writes included) are done.
    const askedAt = gecko.requests.find((r) => r.path.startsWith(ohlcv))!.at
    await expect
      .poll(() => server.lines.some((l) => l.includes('"event":"tick"') && Date.parse((JSON.parse(l) as { ts: string }).ts) >= askedAt), {
        timeout: 10_000,
        interval: 100,
      })
      .toBe(true)
    const history = (await (await fetchChecked(`${server.url}/api/token-history?address=${v4Leader.address}`)).json()) as TokenHistory
    const candles = history.points.filter((p) => p.rank === null)
    expect(candles.length).toBeGreaterThan(100) // a day at 5 minutes, less the intervals nobody traded in
    const market = (await (await fetchChecked(`${server.url}/api/market-history`)).json()) as {
      sparklines: { prices: Record<string, unknown[]> }
    }
    expect(market.sparklines.prices[v4Leader.address]!.filter((p) => p !== null).length).toBeGreaterThan(10)
  })

  it('finds v4 pairs by search, each in the answer’s schema', async () => {
    const v4Token = room.liveActivity.find((t) => V4.test(t.pairAddress ?? ''))!
    const found = (await (
      await fetchChecked(`${server.url}/api/token-search?q=${encodeURIComponent(v4Token.symbol)}`)
    ).json()) as TokenSearchResult
    expect(found.tokens.map((t) => t.pairAddress)).toContain(v4Token.pairAddress)
    expect(labels(found.tokens)).not.toContain('?')
  })

  it('fails over to GeckoTerminal with the same tokens, GeckoTerminal links, no `?`, and the same dexId per pool', async () => {
    const down = await startFakeDexScreener(market)
    down.failAlways('/', { kind: 'status', status: 503 })
    const freshGecko = await startFakeGeckoTerminal(market)
    const failover = await startNpmStart({ DEXSCREENER_BASE_URL: down.url, GECKOTERMINAL_BASE_URL: freshGecko.url })
    try {
      const response = await fetchChecked(`${failover.url}/api/control-room`)
      expect(response.status).toBe(200)
      expect(response.headers.get('x-data-source')).toBe('geckoterminal')
      const fallback = (await response.json()) as ControlRoom
      expect(fallback.liveActivity.length).toBeGreaterThanOrEqual(90)
      expect(labels(fallback.liveActivity)).not.toContain('?')
      expect(fallback.commentary).not.toContain('?')
      for (const row of fallback.liveActivity) expect(row.pairUrl).toBe(`https://www.geckoterminal.com/base/pools/${row.pairAddress}`)
      expect(fallback.liveActivity.filter((t) => V4.test(t.pairAddress ?? '')).length).toBeGreaterThan(20)

      // One pool, two sources, one dexId, though GeckoTerminal named many of these pools otherwise.
      const primary = new Map(room.liveActivity.map((t) => [t.pairAddress, t]))
      const both = fallback.liveActivity.filter((t) => primary.has(t.pairAddress))
      expect(both.length).toBeGreaterThan(80)
      for (const row of both) expect(row.dexId, row.symbol).toBe(primary.get(row.pairAddress)!.dexId)
      const geckoIds = new Set(both.map((t) => geckoDexIdOf(rawByPool.get(t.pairAddress!)!)))
      for (const id of ['uniswap-v4-base', 'bankr', 'aerodrome-base']) expect(geckoIds).toContain(id)
      expect(new Set(both.map((t) => t.dexId))).toEqual(new Set(['uniswap', 'aerodrome']))
      // GeckoTerminal's `included` lacked some base tokens: their names come from the pool name, and are the DexScreener symbols.
      for (const row of both) expect(row.symbol).toBe(primary.get(row.pairAddress)!.symbol)
    } finally {
      await failover.stop()
      await Promise.all([down.close(), freshGecko.close()])
    }
  }, 30_000)
})
