import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { HISTORY_WEEK_MS, snapshotTime, THINNED_INTERVAL_MS } from '../../lib/market/snapshots.js'
import type { ControlRoom, TokenHistory } from '../../lib/market/types.js'
import { readKeys } from '../../lib/read/keys.js'
import { ohlcvBodyOf } from '../support/fakeGeckoTerminal.js'
import { type ReadInstance, type ReadStack, readUntilFresh, startReadStack } from '../support/readStack.js'
import { createSyntheticMarket, type RawPair } from '../support/syntheticMarket.js'

const HOUR = 3_600_000
const week = (address: string, ip = '198.51.100.7') =>
  new Request(`https://svc.test/api/token-history?address=${address}&range=7d`, { headers: { 'x-real-ip': ip } })
const day = (address: string) => new Request(`https://svc.test/api/token-history?address=${address}`)

/** The next whole hour of the machine's clock, plus `minutes`: where a stack's injected clock starts. */
const hourAhead = (minutes: number) => Math.floor(Date.now() / HOUR) * HOUR + HOUR + minutes * 60_000 + 1000

/**
 * What GeckoTerminal-shaped candles say of a pool's last week of hours at `now`, as the fake serves them (its own
 * body, read with JSON.parse: each start in ms, its close), the oldest row's repeat dropped.
 */
function hourlyCloses(pair: RawPair, now: number): Map<number, number> {
  const body = JSON.parse(ohlcvBodyOf(pair, { timeframe: 'hour', aggregate: 1, limit: 169, currency: 'usd' }, now)) as {
    data: { attributes: { ohlcv_list: (string | number)[][] } }
  }
  const closes = new Map<number, number>()
  for (const row of body.data.attributes.ohlcv_list)
    if (!closes.has(Number(row[0]) * 1000)) closes.set(Number(row[0]) * 1000, Number(row[4]))
  return closes
}

/** The marks on the hour a week's answer at `now` may take from candles: after the window's start, before the current mark. */
function weekHours(now: number): number[] {
  const latest = snapshotTime(now)
  const hours: number[] = []
  for (let t = Math.floor((latest - HISTORY_WEEK_MS) / HOUR + 1) * HOUR; t < latest; t += HOUR) hours.push(t)
  return hours
}

const candlePoint = (t: number, close: number) => ({
  t: new Date(t).toISOString(),
  priceUsd: close,
  volume24h: null,
  liquidityUsd: null,
  rank: null,
})

describe('a week for a token the service has only just listed: the pool’s hourly candles (Upstash over redis-server, GeckoTerminal-shaped upstream)', () => {
  let stack: ReadStack
  let room: ControlRoom
  const market = createSyntheticMarket()
  const pairOf = (token: { pairAddress: string | null }) => market.find((p) => String(p.pairAddress).toLowerCase() === token.pairAddress)!
  const callsFor = (pool: string) => stack.gecko!.requests.filter((r) => r.path.includes(`/pools/${pool}/ohlcv/`)).length

  beforeAll(async () => {
    stack = await startReadStack({
      storeKind: 'upstash',
      redisSocket: inject('redisSocket'),
      market,
      withGecko: true,
      env: { TOKEN_HISTORY_RATE_LIMIT_PER_MINUTE: '1000' },
    })
    // 10 minutes past an hour: the room's first snapshot is on no 30-minute mark, so no snapshot holds a mark of the week.
    stack.clock.now = hourAhead(10)
    room = (await (await stack.controlRoom(new Request('https://svc.test/api/control-room'))).json()) as ControlRoom
  })
  afterAll(() => stack?.close())

  it('answers a week of hourly points from the candles (price only), where snapshots alone would answer 404', async () => {
    const now = stack.clock.now
    // A token whose pool traded in the open hour (the synthetic pools trade in about half their hours, by the clock).
    const token = room.liveActivity.slice(10).find((t) => hourlyCloses(pairOf(t), now).has(Math.floor(now / HOUR) * HOUR))!
    // 24 h: its one snapshot (5 minutes old), as before.
    const today = (await (await stack.tokenHistory(day(token.address))).json()) as TokenHistory
    expect(today.points).toHaveLength(1)
    expect(today.points[0]!.rank).toBe(token.rank)
    const commands = stack.upstash!.commands.length
    const response = await stack.tokenHistory(week(token.address))
    expect(response.status).toBe(200)
    const body = (await response.json()) as TokenHistory
    expect(body.intervalSeconds).toBe(1800)
    expect(response.headers.get('x-data-source')).toBeNull() // as the day's answer: the null fields mark the candles
    const closes = hourlyCloses(pairOf(token), now)
    const expected = weekHours(now)
      .filter((t) => closes.has(t))
      .map((t) => candlePoint(t, closes.get(t)!))
    expect(expected.length).toBeGreaterThan(60) // a shallow pool trades in about half its hours
    expect(body.points).toEqual(expected)
    // The open hour is there, at the pair's price now: the week reaches the snapshots that come next.
    expect(Date.parse(body.points.at(-1)!.t)).toBe(Math.floor(now / HOUR) * HOUR)
    expect(callsFor(token.pairAddress!)).toBe(1)
    // What the week cost the store, the room being in the instance's memory: the client's throttle, the body's read,
    // the lock and the read under it, the snapshots of the week's older marks, the price line, the kept series with the
    // back-off (the week's own), the candle share's slot (the week's own), and one write of the body with the series
    // and the lock's release.
    expect(stack.upstash!.commands.slice(commands)).toEqual(['EVALSHA', 'GET', 'SET', 'GET', 'MGET', 'MGET', 'MGET', 'EVALSHA', 'EVALSHA'])
  })

  it('asks GeckoTerminal once per 30 s window however many ask, on however many instances', async () => {
    const token = room.liveActivity[6]!
    const others = [stack.newInstance(), stack.newInstance()]
    const instances: ReadInstance[] = [stack, ...others]
    const ask = () =>
      Promise.all(
        instances.flatMap((instance, i) =>
          Array.from({ length: 30 }, (_, j) => instance.tokenHistory(week(token.address, `198.51.100.${i * 30 + j}`))),
        ),
      )
    const first = await ask()
    expect(first.map((r) => r.status)).toEqual(first.map(() => 200))
    const bodies = new Set(await Promise.all(first.map((r) => r.text())))
    expect(bodies.size).toBe(1)
    expect(callsFor(token.pairAddress!)).toBe(1)
    // The window ends: the next asks are answered at once, and one refresh behind them asks for the open hour again.
    stack.clock.now += 31_000
    expect((await ask()).every((r) => r.status === 200)).toBe(true)
    await Promise.all(instances.map((instance) => instance.drain()))
    expect(callsFor(token.pairAddress!)).toBe(2)
    expect((await ask()).every((r) => r.status === 200)).toBe(true)
    expect(callsFor(token.pairAddress!)).toBe(2)
  })

  it('costs GeckoTerminal nothing, and the store what a day costs, for a thousand addresses the room does not list (404 as before)', async () => {
    const calls = stack.gecko!.requests.length
    const addresses = Array.from({ length: 1000 }, (_, i) => `0x${(0xdead0000 + i).toString(16).padStart(40, '0')}`)
    /** The store commands a fresh instance (the room in its memory) spends answering every address over `range`. */
    const flood = async (range: '24h' | '7d') => {
      const instance = stack.newInstance()
      await instance.controlRoom(new Request('https://svc.test/api/control-room'))
      // One address first, so the range's snapshots are in the instance's memory whichever request of a batch runs first.
      expect(
        (await instance.tokenHistory(new Request(`https://svc.test/api/token-history?address=0x${'e'.repeat(40)}&range=${range}`))).status,
      ).toBe(404)
      const before = stack.upstash!.commands.length
      for (let i = 0; i < addresses.length; i += 100) {
        const answers = await Promise.all(
          addresses.slice(i, i + 100).map((a, j) =>
            instance.tokenHistory(
              new Request(`https://svc.test/api/token-history?address=${a}&range=${range}`, {
                headers: { 'x-real-ip': `203.0.113.${j}` },
              }),
            ),
          ),
        )
        expect(answers.every((r) => r.status === 404)).toBe(true)
      }
      const counts: Record<string, number> = {}
      // A script is one command whether sent whole (EVAL, the first time Redis meets it) or by its hash (EVALSHA).
      for (const c of stack.upstash!.commands.slice(before))
        counts[c === 'EVAL' ? 'EVALSHA' : c] = (counts[c === 'EVAL' ? 'EVALSHA' : c] ?? 0) + 1
      return counts
    }
    const weekCost = await flood('7d')
    expect(stack.gecko!.requests.length).toBe(calls)
    expect(weekCost).toEqual(await flood('24h'))
    // Per address: the throttle, the body's read, the lock and the read under it, the price line, the lock's release.
    expect(weekCost).toEqual({ EVALSHA: 2000, GET: 2000, SET: 1000, MGET: 1000 })
  })

  it('answers what the snapshots say when GeckoTerminal fails: 404 for a token no 30-minute snapshot holds yet, as before', async () => {
    const token = room.liveActivity[7]!
    stack.gecko!.failAlways({ kind: 'status', status: 503 })
    try {
      const response = await stack.tokenHistory(week(token.address))
      expect(response.status).toBe(404)
      expect(await response.json()).toMatchObject({ code: 'UNKNOWN_TOKEN' })
      expect(stack.logs.some((line) => line.includes('week_candles_failed') && line.includes(token.address))).toBe(true)
    } finally {
      stack.gecko!.clearFaults()
    }
  })

  it('leaves GeckoTerminal alone after its 429, on every instance, and answers as before', async () => {
    const [limited, next] = [room.liveActivity[8]!, room.liveActivity[9]!]
    stack.gecko!.failAlways({ kind: 'status', status: 429, headers: { 'retry-after': '60' } })
    try {
      expect((await stack.tokenHistory(week(limited.address))).status).toBe(404)
      expect(await stack.store.get(readKeys(stack.services.keyPrefix).geckoBackoff)).not.toBeNull()
      const calls = stack.gecko!.requests.length
      expect((await stack.newInstance().tokenHistory(week(next.address))).status).toBe(404)
      expect(stack.gecko!.requests.length).toBe(calls)
    } finally {
      stack.gecko!.clearFaults()
      await stack.store.delete(readKeys(stack.services.keyPrefix).geckoBackoff)
    }
  })
})

describe('a week for a token listed two hours ago: its snapshots every 30 minutes, the candles before (Upstash over redis-server)', () => {
  let stack: ReadStack
  let room: ControlRoom
  let firstSnapshot: number
  const market = createSyntheticMarket()
  const pairOf = (token: { pairAddress: string | null }) => market.find((p) => String(p.pairAddress).toLowerCase() === token.pairAddress)!
  const callsFor = (pool: string) => stack.gecko!.requests.filter((r) => r.path.includes(`/pools/${pool}/ohlcv/`)).length

  beforeAll(async () => {
    stack = await startReadStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), market, withGecko: true })
    stack.clock.now = hourAhead(10)
    firstSnapshot = snapshotTime(stack.clock.now)
    // Two hours of refreshes, one every 5 minutes: each writes the snapshot of its mark.
    for (let step = 0; step <= 24; step++) {
      if (step > 0) stack.clock.now += 300_000
      room = await readUntilFresh(stack)
    }
  }, 60_000)
  afterAll(() => stack?.close())

  it('merges them: a point at each 30-minute mark a snapshot holds, a candle at every hour before, one point per mark', async () => {
    const token = room.liveActivity[3]!
    const now = stack.clock.now
    const response = await stack.tokenHistory(week(token.address))
    expect(response.status).toBe(200)
    const body = (await response.json()) as TokenHistory
    // The snapshot points are the 24 h answer's own, at its 30-minute marks: 12:30, 13:00, 13:30, 14:00 of a 12:10 start.
    const today = (await (await stack.tokenHistory(day(token.address))).json()) as TokenHistory
    const marks = today.points.filter((p) => Date.parse(p.t) % THINNED_INTERVAL_MS === 0)
    expect(marks.map((p) => Date.parse(p.t))).toEqual([1, 2, 3, 4].map((i) => firstSnapshot - 10 * 60_000 + i * THINNED_INTERVAL_MS))
    const closes = hourlyCloses(pairOf(token), now)
    const candles = weekHours(now)
      .filter((t) => t < firstSnapshot && closes.has(t))
      .map((t) => candlePoint(t, closes.get(t)!))
    expect(body.points).toEqual([...candles, ...marks])
    expect(marks.every((p) => p.rank !== null && p.volume24h !== null)).toBe(true)
    // No gap a reader would notice: an hour at most between two points, unless nobody traded in the hours between.
    const times = body.points.map((p) => Date.parse(p.t))
    for (let i = 1; i < times.length; i++)
      for (let t = times[i - 1]! + HOUR; t < times[i]!; t += HOUR) expect(closes.has(t), new Date(t).toISOString()).toBe(false)
    expect(callsFor(token.pairAddress!)).toBe(1)
  })

  it('never asks again for hours that have closed: the next window reads the kept candles', async () => {
    const token = room.liveActivity[4]!
    const first = await (await stack.tokenHistory(week(token.address))).text()
    expect(callsFor(token.pairAddress!)).toBe(1)
    stack.clock.now += 31_000
    await stack.tokenHistory(week(token.address))
    await stack.drain()
    const again = await stack.tokenHistory(week(token.address))
    expect(again.headers.get('x-data-state')).toBe('fresh')
    expect(await again.text()).toBe(first)
    expect(callsFor(token.pairAddress!)).toBe(1)
  })

  it('answers the snapshots alone when GeckoTerminal fails, as before', async () => {
    const token = room.liveActivity[5]!
    stack.gecko!.failAlways({ kind: 'status', status: 503 })
    try {
      const body = (await (await stack.tokenHistory(week(token.address))).json()) as TokenHistory
      expect(body.points).toHaveLength(4)
      expect(body.points.every((p) => p.rank !== null)).toBe(true)
    } finally {
      stack.gecko!.clearFaults()
    }
  })
})
