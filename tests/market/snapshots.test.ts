import { describe, expect, it } from 'vitest'
import {
  describeHourChanges,
  HISTORY_WEEK_MS,
  HISTORY_WINDOW_MS,
  historyMarks,
  hourChanges,
  marketHistory,
  type PriceLine,
  parseHistoryRange,
  priceLineSchema,
  SNAPSHOT_INTERVAL_MS,
  type Snapshot,
  snapshotSchema,
  snapshotTime,
  snapshotTtlMs,
  THINNED_INTERVAL_MS,
  takeSnapshot,
  tokenSeries,
} from '../../lib/market/snapshots.js'
import type { Token } from '../../lib/market/types.js'
import { parseRecord } from '../../lib/store/records.js'
import { parseCandlesBody } from '../../lib/upstream/geckoterminal.js'

const token = (rank: number, symbol: string, over: Partial<Token> = {}): Token =>
  ({
    rank,
    address: `0x${rank.toString(16).padStart(40, '0')}`,
    symbol,
    name: symbol,
    priceUsd: '1.5',
    volume24h: 1000 * (200 - rank),
    liquidity: 50_000,
    ...over,
  }) as Token
const T0 = Date.UTC(2026, 10, 23, 10, 0, 0)

describe('history snapshots', () => {
  it('takes a compact snapshot at the 5-minute mark: address, price, volume, liquidity, rank', () => {
    const snapshot = takeSnapshot(
      [token(1, 'AAA'), token(2, 'BBB', { priceUsd: null }), token(3, 'CCC', { priceUsd: 'garbage' })],
      T0 + 4 * 60_000 + 59_000,
    )
    expect(snapshot.t).toBe(T0)
    expect(snapshot.rows).toEqual([
      [token(1, 'A').address, 1.5, 199_000, 50_000, 1],
      [token(2, 'B').address, null, 198_000, 50_000, 2],
      [token(3, 'C').address, null, 197_000, 50_000, 3],
    ])
    expect(snapshotTime(T0 + SNAPSHOT_INTERVAL_MS)).toBe(T0 + SNAPSHOT_INTERVAL_MS)
    // 100 tokens stay small: 288 of them a day is a bounded store.
    expect(
      JSON.stringify(
        takeSnapshot(
          Array.from({ length: 100 }, (_, i) => token(i + 1, `T${i}`)),
          T0,
        ),
      ).length,
    ).toBeLessThan(10_000)
  })

  it('parses what it wrote and refuses what it did not', () => {
    const snapshot = takeSnapshot([token(1, 'AAA')], T0)
    expect(parseRecord(snapshotSchema, JSON.stringify(snapshot))).toEqual(snapshot)
    for (const bad of [null, '', '{', '[]', '{"t":"x","rows":[]}', '{"t":1}']) expect(parseRecord(snapshotSchema, bad)).toBeNull()
    expect(parseRecord(snapshotSchema, '{"t":1,"rows":[["0xabc",1,2,3,4],["bad"],[1,2,3,4,5]]}')).toEqual({
      t: 1,
      rows: [['0xabc', 1, 2, 3, 4]],
    })
  })

  it('gives a token’s series oldest first, only where it was listed, whatever the case of the address', () => {
    const a = token(1, 'AAA')
    const snapshots: Snapshot[] = [
      takeSnapshot([token(5, 'X'), { ...a, rank: 2, volume24h: 5 }], T0 + 2 * SNAPSHOT_INTERVAL_MS),
      takeSnapshot([a], T0),
      takeSnapshot([token(5, 'X')], T0 + SNAPSHOT_INTERVAL_MS),
    ]
    expect(tokenSeries(snapshots, a.address.toUpperCase().replace('0X', '0x'))).toEqual([
      { t: new Date(T0).toISOString(), priceUsd: 1.5, volume24h: 199_000, liquidityUsd: 50_000, rank: 1 },
      { t: new Date(T0 + 2 * SNAPSHOT_INTERVAL_MS).toISOString(), priceUsd: 1.5, volume24h: 5, liquidityUsd: 50_000, rank: 2 },
    ])
    expect(tokenSeries(snapshots, `0x${'f'.repeat(40)}`)).toBeNull()
    expect(tokenSeries([], a.address)).toBeNull()
  })

  it('names new entrants and the biggest climber of the last hour, and nothing else', () => {
    const hourAgo = takeSnapshot(
      [token(1, 'AAA'), token(2, 'BBB'), { ...token(9, 'CLIMB'), rank: 30 }, { ...token(10, 'SMALL'), rank: 12 }],
      T0,
    )
    const now = [
      token(1, 'AAA'),
      { ...token(9, 'CLIMB'), rank: 3 },
      { ...token(10, 'SMALL'), rank: 9 },
      token(50, 'NEW1'),
      token(51, 'NEW2'),
    ]
    const changes = hourChanges(now, hourAgo)
    expect(changes).toEqual({ newEntrants: ['NEW1', 'NEW2'], climbers: [{ symbol: 'CLIMB', from: 30, to: 3 }] })
    expect(describeHourChanges(changes)).toBe(
      'In the last hour: 2 new entrants to the top 100 (NEW1, NEW2); the biggest climb is CLIMB, from #30 to #3.',
    )
    expect(describeHourChanges({ newEntrants: ['A', 'B', 'C', 'D'], climbers: [] })).toBe(
      'In the last hour: 4 new entrants to the top 100 (A, B, C, …).',
    )
    expect(describeHourChanges(hourChanges([token(1, 'AAA')], takeSnapshot([token(1, 'AAA')], T0)))).toBeNull()
  })
})

describe('market history (the dashboard’s charts)', () => {
  it('is empty before the first snapshot', () => {
    expect(marketHistory([])).toEqual({
      volume: { intervalSeconds: 300, points: [] },
      sparklines: { intervalSeconds: 1800, times: [], prices: {} },
    })
  })

  it('sums each snapshot’s volume and keeps the last price of each half-hour slot for the latest snapshot’s tokens', () => {
    const a = token(1, 'AAA')
    const b = token(2, 'BBB')
    const gone = token(3, 'GONE')
    const latestT = T0 + 23 * 60 * 60_000 + 40 * 60_000 // 23:40 after T0: the slot of 23:30
    const snapshots: Snapshot[] = [
      takeSnapshot([{ ...a, priceUsd: '1.23456' }, gone], T0 + 23 * 60 * 60_000), // 23:00
      takeSnapshot([{ ...a, priceUsd: '2' }, gone], T0 + 23 * 60 * 60_000 + 30 * 60_000), // 23:30
      takeSnapshot(
        [
          { ...a, priceUsd: '3' },
          { ...b, priceUsd: null },
        ],
        T0 + 23 * 60 * 60_000 + 35 * 60_000,
      ),
      takeSnapshot([{ ...a, priceUsd: '4' }, b], latestT),
      takeSnapshot([{ ...a, priceUsd: '99' }], T0 - 60 * 60_000), // older than the 48 slots: only in the volume series
    ]
    const history = marketHistory(snapshots)
    expect(history.volume.points.map((p) => p.t)).toEqual(
      [T0 - 60 * 60_000, T0 + 23 * 60 * 60_000, T0 + 23 * 60 * 60_000 + 30 * 60_000, T0 + 23 * 60 * 60_000 + 35 * 60_000, latestT].map(
        (t) => new Date(t).toISOString(),
      ),
    )
    expect(history.volume.points[1]).toEqual({
      t: new Date(T0 + 23 * 60 * 60_000).toISOString(),
      totalVolume24h: 199_000 + 197_000,
      tokens: 2,
    })
    const { times, prices } = history.sparklines
    expect(times).toHaveLength(48)
    expect(times.at(-1)).toBe(new Date(T0 + 23 * 60 * 60_000 + 30 * 60_000).toISOString())
    expect(times[0]).toBe(new Date(T0 + 23 * 60 * 60_000 + 30 * 60_000 - 47 * 30 * 60_000).toISOString())
    expect(Object.keys(prices).sort()).toEqual([a.address, b.address].sort())
    expect(prices[a.address]!.slice(-2)).toEqual([1.235, 4]) // 4 significant digits; the slot's last price wins
    expect(prices[a.address]!.slice(0, 46).every((p) => p === null)).toBe(true)
    expect(prices[b.address]!.slice(-2)).toEqual([null, 1.5]) // no price in its first snapshot: not a zero
  })
})

describe('price lines from candles', () => {
  const A = `0x${'a'.repeat(40)}`
  const HOUR = 3_600_000
  const now = T0 + 24 * HOUR
  const line = (points: [number, number][], fetchedAt = now): PriceLine => ({ pool: `0x${'b'.repeat(40)}`, fetchedAt, points })

  it('parses OHLCV answers into candles oldest first: strings as numbers, bad rows dropped, one per time', () => {
    const body = {
      data: {
        attributes: {
          ohlcv_list: [
            [1_763_900_100, '1', '1', '1', '2.5', '10'],
            [1_763_899_800, 1, 1, 1, 2, 10],
            [1_763_899_800, 1, 1, 1, 9, 10], // the same start again: one candle per time, the first in the list
            [1_763_899_500, 1, 1, 1, 0, 10], // no price
            [1_763_899_200, 1, 1, 1, Number.NaN, 10],
            ['soon', 1, 1, 1, 3, 10],
            'junk',
            [1_763_898_900, 1, 1, 1, 1.5, 0],
            [1_763_898_600, 1, 1, 1, 1.5], // no volume: not a candle
          ],
        },
      },
    }
    expect(parseCandlesBody(body)).toEqual([
      { t: 1_763_898_900_000, close: 1.5 },
      { t: 1_763_899_800_000, close: 2 },
      { t: 1_763_900_100_000, close: 2.5 },
    ])
    expect(parseCandlesBody({ data: { attributes: { ohlcv_list: [] } } })).toEqual([])
    expect(parseCandlesBody({ data: [] })).toBeNull()
    expect(parseCandlesBody('<html>')).toBeNull()
  })

  it('parses a stored line, dropping stray points, and refuses what is not one', () => {
    const stored = JSON.stringify({ pool: '0xp', fetchedAt: 5, points: [[1, 2], [2, 'x'], [3, -1], 'junk', [4, 5]] })
    expect(parseRecord(priceLineSchema, stored)).toEqual({
      pool: '0xp',
      fetchedAt: 5,
      points: [
        [1, 2],
        [4, 5],
      ],
    })
    expect(parseRecord(priceLineSchema, '{"pool":1}')).toBeNull()
    expect(parseRecord(priceLineSchema, 'not json')).toBeNull()
    expect(parseRecord(priceLineSchema, null)).toBeNull()
  })

  it('token-history: candle closes at the marks no snapshot holds (price only), snapshots everywhere else, nothing invented', () => {
    const snapshot: Snapshot = { t: now - 10 * 60_000, rows: [[A, 3, 500, 40, 7]] }
    const points = tokenSeries(
      [snapshot],
      A,
      line([
        [now - 25 * HOUR, 0.5], // older than the day: left out
        [now - 2 * HOUR, 1],
        [now - 2 * HOUR + 120_000, 1.1], // inside the same 5-minute mark: the later close
        [now - 10 * 60_000, 2], // a snapshot holds this mark: the snapshot wins
      ]),
      now,
    )
    expect(points).toEqual([
      { t: new Date(now - 2 * HOUR).toISOString(), priceUsd: 1.1, volume24h: null, liquidityUsd: null, rank: null },
      { t: new Date(now - 10 * 60_000).toISOString(), priceUsd: 3, volume24h: 500, liquidityUsd: 40, rank: 7 },
    ])
    expect(tokenSeries([], A, line([]), now)).toBeNull()
    expect(tokenSeries([], A, null, now)).toBeNull()
  })

  it('market-history: a line fills the empty slots, carrying the last close from its first candle to its fetch, never before', () => {
    const latest: Snapshot = { t: snapshotTime(now), rows: [[A, 4, 500, 40, 1]] }
    const firstCandle = now - 20 * HOUR
    const history = marketHistory(
      [latest],
      new Map([
        [
          A,
          line([
            [firstCandle, 1],
            [firstCandle + 10 * HOUR, 2], // then ten quiet hours: the close of 2 carries
          ]),
        ],
      ]),
    )
    const prices = history.sparklines.prices[A]!
    expect(prices).toHaveLength(48)
    const filled = prices.map((p, i) => [history.sparklines.times[i], p])
    const slotOf = (t: number) => filled.findIndex(([start]) => Date.parse(start as string) > t) - 1
    expect(prices.slice(0, slotOf(firstCandle))).toEqual(new Array(slotOf(firstCandle)).fill(null))
    expect(prices[slotOf(firstCandle)]).toBe(1)
    expect(prices[slotOf(firstCandle + 10 * HOUR)]).toBe(2)
    expect(prices[46]).toBe(2)
    expect(prices[47]).toBe(4) // the snapshot's own price wins in its slot
    // A token with no line keeps the snapshots' nulls; no line without trades gives a price.
    expect(marketHistory([latest], new Map([[A, line([])]])).sparklines.prices[A]!.filter((p) => p !== null)).toEqual([4])
  })
})

describe('a week of history, thinned to 30 minutes past the last day', () => {
  const HOUR = 3_600_000
  /** A snapshot at `t` holding one token at `price`. */
  const at = (t: number, price = t / HOUR) => ({ t, rows: [[token(1, 'A').address, price, 1000, 50_000, 1]] }) as Snapshot

  it('keeps a 30-minute mark a week and any other mark a day, one interval to spare', () => {
    expect(snapshotTtlMs(T0)).toBe(HISTORY_WEEK_MS + SNAPSHOT_INTERVAL_MS)
    expect(snapshotTtlMs(T0 + THINNED_INTERVAL_MS)).toBe(HISTORY_WEEK_MS + SNAPSHOT_INTERVAL_MS)
    for (let minutes = 5; minutes < 30; minutes += 5)
      expect(snapshotTtlMs(T0 + minutes * 60_000)).toBe(HISTORY_WINDOW_MS + SNAPSHOT_INTERVAL_MS)
  })

  it('reads every 5-minute mark of the last day, and the 30-minute marks of the six days before', () => {
    const now = T0 + 7 * 60_000
    const day = historyMarks(now, '24h')
    expect(day).toHaveLength(288)
    expect(day.at(-1)).toBe(T0 + 5 * 60_000)
    const week = historyMarks(now, '7d')
    expect(week.slice(-288)).toEqual(day)
    const older = week.slice(0, -288)
    expect(older.every((t) => t % THINNED_INTERVAL_MS === 0)).toBe(true)
    expect(older[0]).toBeGreaterThan(snapshotTime(now) - HISTORY_WEEK_MS)
    expect(older[0]! - THINNED_INTERVAL_MS).toBeLessThanOrEqual(snapshotTime(now) - HISTORY_WEEK_MS)
    expect(older).toHaveLength(288)
    expect(new Set(week).size).toBe(week.length)
  })

  it('answers 7 d at the 30-minute marks only, and 24 h exactly as before', () => {
    const now = T0 + 2 * HOUR
    const snapshots = Array.from({ length: 24 }, (_, i) => at(T0 - 10 * HOUR + i * 5 * 60_000)).concat([at(T0 - 3 * 24 * HOUR)])
    const week = tokenSeries(snapshots, token(1, 'A').address, null, now, '7d')!
    expect(week.map((p) => Date.parse(p.t))).toEqual([T0 - 3 * 24 * HOUR, T0 - 10 * HOUR, T0 - 9.5 * HOUR, T0 - 9 * HOUR, T0 - 8.5 * HOUR])
    const day = tokenSeries(snapshots, token(1, 'A').address, null, now)!
    expect(day.map((p) => Date.parse(p.t))).toEqual(snapshots.map((s) => s.t).sort((a, b) => a - b)) // every mark given, as before
    const history = marketHistory(snapshots, new Map(), '7d')
    expect(history.volume.intervalSeconds).toBe(1800)
    expect(history.volume.points.map((p) => Date.parse(p.t))).toEqual([
      T0 - 3 * 24 * HOUR,
      T0 - 10 * HOUR,
      T0 - 9.5 * HOUR,
      T0 - 9 * HOUR,
      T0 - 8.5 * HOUR,
    ])
    expect(history.sparklines.intervalSeconds).toBe(10_800)
    expect(history.sparklines.times).toHaveLength(56)
    // The last price of each 3-hour slot, from every snapshot in it.
    const line = history.sparklines.prices[token(1, 'A').address]!
    expect(line.filter((p) => p !== null)).toHaveLength(2)
    expect(line.at(-1)).toBe(Number(((T0 - 10 * HOUR + 23 * 5 * 60_000) / HOUR).toPrecision(4)))
  })

  it('reads range as 24h (the default) or 7d, and nothing else', () => {
    const range = (query: string) => parseHistoryRange(new URLSearchParams(query))
    expect(range('')).toEqual({ ok: true, range: '24h' })
    expect(range('range=24h')).toEqual({ ok: true, range: '24h' })
    expect(range('range=7d')).toEqual({ ok: true, range: '7d' })
    for (const bad of ['range=1w', 'range=', 'range=7D', 'range=30d', 'range=24h&range=7d']) expect(range(bad)).toMatchObject({ ok: false })
  })
})
