import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { ControlRoom } from '../../lib/market/types.js'
import { type ReadStack, readUntilFresh, startReadStack } from '../support/readStack.js'
import { openRespConnection } from '../support/resp.js'
import { createSyntheticMarket, HUBS, makePair, type RawPair } from '../support/syntheticMarket.js'

const NEWCOMER = { address: '0x00000000000000000000000000000000000c0ffe', name: 'Newcomer', symbol: 'NEWB' }
const history = (address: string) => new Request(`https://svc.test/api/token-history?address=${address}`)

describe('history kept by the service: snapshots every 5 minutes, token-history, the hourly commentary (Upstash over redis-server)', () => {
  let stack: ReadStack
  let first: ControlRoom
  let last: ControlRoom
  const market: RawPair[] = createSyntheticMarket()
  let climber: { address: string; symbol: string; rankBefore: number }

  beforeAll(async () => {
    stack = await startReadStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), market })
    stack.clock.now = Math.floor(Date.now() / 300_000) * 300_000 + 1000 // just past a 5-minute mark
    first = (await (await stack.controlRoom(new Request('https://svc.test/api/control-room'))).json()) as ControlRoom
    const low = first.liveActivity[60]!
    climber = { address: low.address, symbol: low.symbol, rankBefore: low.rank }
    // 13 refreshes, 5 minutes apart: a bit over an hour. Half-way, a newcomer arrives and a token climbs.
    for (let step = 1; step <= 13; step++) {
      stack.clock.now += 300_000
      if (step === 6) {
        const boosted = market.map((p) =>
          String((p.baseToken as { address: string }).address).toLowerCase() === climber.address
            ? { ...p, volume: { ...(p.volume as object), h24: 150_000_000 } }
            : p,
        )
        stack.upstream.setPairs([
          ...boosted,
          makePair({
            base: NEWCOMER,
            quote: HUBS.WETH,
            pairAddress: '0x00000000000000000000000000000000000c0fff',
            volume24h: 120_000_000,
            liquidityUsd: 900_000,
          }),
        ])
      }
      last = await readUntilFresh(stack)
    }
  }, 60_000)
  afterAll(() => stack.close())

  it('answers a token’s last 24 h at 5-minute resolution, oldest first, with price, volume, liquidity and rank', async () => {
    const leader = first.liveActivity[0]!
    const response = await stack.tokenHistory(history(leader.address.toUpperCase().replace('0X', '0x')))
    expect(response.status).toBe(200)
    expect(response.headers.get('etag')).toBeTruthy()
    const body = (await response.json()) as {
      address: string
      intervalSeconds: number
      points: { t: string; priceUsd: number; volume24h: number; liquidityUsd: number; rank: number }[]
    }
    expect(body.address).toBe(leader.address)
    expect(body.intervalSeconds).toBe(300)
    expect(body.points).toHaveLength(14)
    const times = body.points.map((p) => Date.parse(p.t))
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(300_000)
    expect(body.points[0]).toEqual({
      t: expect.any(String),
      priceUsd: Number(leader.priceUsd),
      volume24h: leader.volume24h,
      liquidityUsd: leader.liquidity,
      rank: 1,
    })
  })

  it('reads the stored snapshots once per instance: another token’s history asks the store only for its price line', async () => {
    const mgets = () => stack.upstash!.commands.filter((c) => c === 'MGET').length
    const before = mgets()
    const response = await stack.tokenHistory(history(first.liveActivity[1]!.address))
    expect(response.status).toBe(200)
    expect(((await response.json()) as { points: unknown[] }).points).toHaveLength(14)
    expect(mgets()).toBe(before + 1)
  })

  it('follows a climber: its rank series shows the climb', async () => {
    const body = (await (await stack.tokenHistory(history(climber.address))).json()) as { points: { rank: number }[] }
    expect(body.points[0]!.rank).toBe(climber.rankBefore)
    expect(body.points.at(-1)!.rank).toBeLessThanOrEqual(3)
  })

  it('says in the commentary what changed over the last hour, from the snapshots only', () => {
    expect(last.commentary).toContain('In the last hour:')
    expect(last.commentary).toContain('new entrant')
    expect(last.commentary).toContain('NEWB')
    const climb = new RegExp(`biggest climb is ${climber.symbol}, from #(\\d+) to #(\\d+)\\.`).exec(last.commentary)
    expect(climb).not.toBeNull()
    // From where the snapshot of an hour ago had it (around #60) to the top 3.
    expect(Number(climb![1])).toBeGreaterThan(50)
    expect(Number(climb![2])).toBeLessThanOrEqual(3)
    // The first refresh had no history an hour back: no such sentence.
    expect(first.commentary).not.toContain('In the last hour')
  })

  it('answers 404 UNKNOWN_TOKEN for a token never in the top 100, 400 INVALID_ADDRESS for a malformed one', async () => {
    const unknown = await stack.tokenHistory(history(`0x${'ab'.repeat(20)}`))
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ code: 'UNKNOWN_TOKEN' })
    for (const bad of ['', '0x123', `0x${'g'.repeat(40)}`, `${'a'.repeat(42)}`]) {
      const response = await stack.tokenHistory(history(bad))
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({ code: 'INVALID_ADDRESS' })
    }
  })

  it('answers the whole top 100’s charts in one request: total volume every 5 minutes and a sparkline per current token', async () => {
    const response = await stack.marketHistory(new Request('https://svc.test/api/market-history'))
    expect(response.status).toBe(200)
    expect(response.headers.get('etag')).toBeTruthy()
    expect(response.headers.get('x-data-state')).toBe('fresh')
    const body = (await response.json()) as {
      volume: { intervalSeconds: number; points: { t: string; totalVolume24h: number; tokens: number }[] }
      sparklines: { intervalSeconds: number; times: string[]; prices: Record<string, (number | null)[]> }
    }
    expect(body.volume.intervalSeconds).toBe(300)
    expect(body.volume.points).toHaveLength(14)
    // The first point is the first control room's own total.
    expect(body.volume.points[0]!.totalVolume24h).toBe(Math.round(first.liveActivity.reduce((sum, t) => sum + t.volume24h, 0)))
    expect(body.volume.points[0]!.tokens).toBe(100)
    expect(body.sparklines.intervalSeconds).toBe(1800)
    expect(body.sparklines.times).toHaveLength(48)
    // One line per token of the latest room, and only those: the newcomer has one, a token that fell out has none.
    expect(Object.keys(body.sparklines.prices).sort()).toEqual(last.liveActivity.map((t) => t.address).sort())
    const newcomer = body.sparklines.prices[NEWCOMER.address]!
    expect(newcomer).toHaveLength(48)
    const leader = body.sparklines.prices[last.liveActivity[0]!.address]!
    expect(leader.at(-1)).toBe(Number(Number(last.liveActivity[0]!.priceUsd).toPrecision(4)))
    // The newcomer arrived half-way through the hour: it has fewer priced slots than the leader, which was there throughout.
    expect(newcomer.filter((p) => p !== null).length).toBeLessThan(leader.filter((p) => p !== null).length)
    // Small enough for a phone: 100 lines of 48 points.
    expect(JSON.stringify(body).length).toBeLessThan(60_000)
  })

  it('keeps one snapshot per 5-minute mark across instances, for 24 hours, or 7 days on a 30-minute mark', async () => {
    // A stack of its own: the shared one's marks stay as the other cases read them.
    const own = await startReadStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), market })
    const other = own.newInstance()
    own.clock.now = Math.floor(Date.now() / 300_000) * 300_000 + 1000
    const redis = await openRespConnection(inject('redisSocket'))
    try {
      await Promise.all([readUntilFresh(own), readUntilFresh(other)])
      own.clock.now += 300_000
      await Promise.all([readUntilFresh(own), readUntilFresh(other)])
      const keys = (await redis.send(['KEYS', `${own.services.keyPrefix}history:v1:*`])) as string[]
      expect(keys).toHaveLength(2)
      for (const key of keys) {
        const kept = Number(key.split(':').at(-1)) % 1_800_000 === 0 ? 7 * 24 * 3_600_000 : 24 * 3_600_000
        const ttl = (await redis.send(['PTTL', key])) as number
        expect(ttl).toBeGreaterThan(kept)
        expect(ttl).toBeLessThanOrEqual(kept + 300_000)
      }
    } finally {
      redis.close()
      await own.close()
    }
  })

  it('answers 503 STORE_UNAVAILABLE with Retry-After when Redis is unreachable, where the history lives: never a 500', async () => {
    // A fresh instance holds nothing of its own: the history is all in the store.
    const instance = stack.newInstance()
    const leader = first.liveActivity[0]!
    stack.upstash!.setUnreachable(true)
    try {
      for (const response of [
        await instance.tokenHistory(new Request(`https://svc.test/api/token-history?address=${leader.address}`)),
        await instance.marketHistory(new Request('https://svc.test/api/market-history?range=7d')),
      ]) {
        expect(response.status).toBe(503)
        expect(response.headers.get('retry-after')).toBe('10')
        expect(response.headers.get('cache-control')).toBe('no-store')
        // A sentence a client can show, not the store's own message, which names the command that failed.
        expect(await response.json()).toEqual({
          error: 'The shared store (Redis), where the history lives, cannot be read right now; retry after Retry-After.',
          code: 'STORE_UNAVAILABLE',
          retryAfterSeconds: 10,
        })
      }
      const events = instance.logs.map((line) => JSON.parse(line) as { event: string; operation?: string })
      expect(events.filter((e) => e.event === 'store_unavailable').map((e) => e.operation)).toEqual(
        expect.arrayContaining(['token_history', 'market_history']),
      )
      expect(events.filter((e) => e.event.endsWith('_failed'))).toEqual([])
    } finally {
      stack.upstash!.setUnreachable(false)
    }
  })
})
