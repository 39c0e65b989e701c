import { describe, expect, it } from 'vitest'
import type { CandleSeries } from '../../lib/market/candleSeries.js'
import { HISTORY_WEEK_MS, type HistoryPoint, snapshotTime, THINNED_INTERVAL_MS, tokenSeries } from '../../lib/market/snapshots.js'
import { mergeWeekCandles, planWeekCandles, uncoveredHours, WEEK_CANDLE_COUNT, weekRowsOfSeries } from '../../lib/market/weekFill.js'
import type { OhlcvRow } from '../../lib/upstream/geckoOhlcv.js'

const HOUR = 3_600_000
/** A Monday, 12:40:20 UTC: the current 5-minute mark is 12:40, the open hourly candle 12:00. */
const NOW = Date.UTC(2026, 10, 23, 12, 40, 20)
const LATEST = snapshotTime(NOW)
const FROM = LATEST - HISTORY_WEEK_MS
const iso = (t: number) => new Date(t).toISOString()
/** Every mark on the hour a week's answer may fill, oldest first: after the window's start, before the current mark. */
const ALL_HOURS = Array.from({ length: WEEK_CANDLE_COUNT }, (_, i) => Math.ceil((FROM + 1) / HOUR) * HOUR + i * HOUR)
const snapshotPoint = (t: number, rank = 3): HistoryPoint => ({ t: iso(t), priceUsd: 2, volume24h: 1000, liquidityUsd: 500, rank })
const candle = (t: number, close = 1.5): OhlcvRow => [t / 1000, 1, 2, 0.5, close, 10]
const candlePoint = (t: number, close = 1.5): HistoryPoint => ({
  t: iso(t),
  priceUsd: close,
  volume24h: null,
  liquidityUsd: null,
  rank: null,
})

describe('the hours a week leaves empty', () => {
  it('are the marks on the hour after the window’s start and before the current 5-minute mark: a week of them', () => {
    expect(ALL_HOURS).toHaveLength(168)
    expect(ALL_HOURS[0]).toBe(Date.UTC(2026, 10, 16, 13))
    expect(ALL_HOURS.at(-1)).toBe(Date.UTC(2026, 10, 23, 12)) // the open candle's hour: no snapshot holds it
    expect(uncoveredHours([], NOW)).toEqual(ALL_HOURS)
  })

  it('leave out the current mark when it is on the hour (its snapshot may still be on its way), and the window’s first instant', () => {
    const onTheHour = Date.UTC(2026, 10, 23, 13, 0, 5)
    const hours = uncoveredHours([], onTheHour)
    expect(hours.at(-1)).toBe(Date.UTC(2026, 10, 23, 12))
    expect(hours[0]).toBe(Date.UTC(2026, 10, 16, 14)) // 13:00 a week ago is the window's start, which it excludes
    expect(hours).toHaveLength(167)
  })

  it('leave out every mark a point holds, whatever it came from; a :30 point holds no hour', () => {
    const held = [ALL_HOURS[0]!, ALL_HOURS[100]!, ALL_HOURS.at(-1)!]
    const points = [...held.map((t) => snapshotPoint(t)), snapshotPoint(ALL_HOURS[50]! + THINNED_INTERVAL_MS)]
    const hours = uncoveredHours(points, NOW)
    expect(hours).toHaveLength(168 - 3)
    for (const t of held) expect(hours).not.toContain(t)
    expect(hours).toContain(ALL_HOURS[50])
    expect(
      uncoveredHours(
        ALL_HOURS.map((t) => snapshotPoint(t)),
        NOW,
      ),
    ).toEqual([])
  })
})

describe('merging the hourly candles into a week (every pattern of the last four hours, then the edges)', () => {
  /** The last four hours' eight 30-minute marks, and those four hours' candles. */
  const MARKS = Array.from({ length: 8 }, (_, i) => ALL_HOURS.at(-4)! + i * THINNED_INTERVAL_MS)
  const HOURS = ALL_HOURS.slice(-4)

  it('keeps every snapshot point as it is, adds a candle only at an empty hour, one point per mark, oldest first', () => {
    let cases = 0
    for (let held = 0; held < 1 << MARKS.length; held++)
      for (let traded = 0; traded < 1 << HOURS.length; traded++) {
        const points = MARKS.filter((_, i) => held & (1 << i)).map((t, i) => snapshotPoint(t, i + 1))
        // Newest first, as the series hands them out; a close of its own per hour, to tell them apart.
        const candles = HOURS.filter((_, i) => traded & (1 << i))
          .map((t) => candle(t, t / HOUR))
          .reverse()
        const merged = mergeWeekCandles(points, candles, NOW)
        const expected = [
          ...points,
          ...candles.filter(([t]) => !points.some((p) => Date.parse(p.t) === t * 1000)).map(([t]) => candlePoint(t * 1000, t / 3600)),
        ].sort((a, b) => Date.parse(a.t) - Date.parse(b.t))
        expect(merged).toEqual(expected.length > 0 ? expected : null)
        cases++
      }
    expect(cases).toBe(4096)
  })

  it('fills a first-seen token’s whole week from its candles, and a token its snapshots cover all week from none', () => {
    const candles = ALL_HOURS.map((t) => candle(t)).reverse()
    expect(mergeWeekCandles([], candles, NOW)).toEqual(ALL_HOURS.map((t) => candlePoint(t)))
    const covered = tokenSeries(
      ALL_HOURS.map((t) => ({ t, rows: [['0xaa', 2, 1000, 500, 3]] })),
      '0xaa',
      null,
      NOW,
      '7d',
    )!
    expect(mergeWeekCandles(covered, candles, NOW)).toEqual(covered)
  })

  it('takes no candle outside the hours it fills: before the window, at its start, at the current mark, off the hour, or with a bad close', () => {
    const outside = [
      candle(FROM - HOUR),
      candle(Math.floor(FROM / HOUR) * HOUR), // at or before the window's start
      candle(ALL_HOURS[3]! + 5 * 60_000), // a candle of another size (off the hour)
      candle(ALL_HOURS[4]!, 0),
      candle(ALL_HOURS[5]!, Number.NaN),
      candle(ALL_HOURS[6]!, Number.POSITIVE_INFINITY),
    ]
    expect(mergeWeekCandles([], outside, NOW)).toBeNull()
    const atTheHour = Date.UTC(2026, 10, 23, 13, 0, 5)
    expect(mergeWeekCandles([], [candle(Date.UTC(2026, 10, 23, 13))], atTheHour)).toBeNull()
  })

  it('keeps the first of two candles of one start (the series hands out one per start, newest first)', () => {
    const t = ALL_HOURS[10]!
    expect(mergeWeekCandles([], [candle(t, 7), candle(t, 8)], NOW)).toEqual([candlePoint(t, 7)])
  })

  it('keeps a point of the price line at an hour as it is (a 5-minute close is closer than an hourly one)', () => {
    const t = ALL_HOURS.at(-2)!
    const fromLine = candlePoint(t, 9)
    expect(mergeWeekCandles([fromLine], [candle(t, 1)], NOW)).toEqual([fromLine])
  })
})

describe('what a week’s answer asks of GeckoTerminal', () => {
  const POOL = '0x00000000000000000000000000000000000000aa'
  const OPEN = Date.UTC(2026, 10, 23, 12) / 1000
  const series = (over: Partial<CandleSeries> = {}): CandleSeries => ({
    pool: POOL,
    closed: Array.from({ length: WEEK_CANDLE_COUNT }, (_, i): OhlcvRow => [OPEN - (i + 1) * 3600, 1, 1, 1, 1, 1]),
    closedBefore: OPEN,
    complete: false,
    open: [OPEN, 1, 1, 1, 1, 1],
    fetchedAt: NOW - 10_000,
    meta: { base: null, quote: null },
    ...over,
  })
  const older = ALL_HOURS.slice(0, -1) // every empty hour has closed
  const plan = (uncovered: number[], kept: CandleSeries | null, now = NOW) => planWeekCandles({ uncovered, series: kept, pool: POOL, now })

  it('asks nothing when no hour is empty, whatever is kept', () => {
    expect(plan([], null)).toEqual({ kind: 'none' })
    expect(plan([], series())).toEqual({ kind: 'none' })
  })

  it('asks a fresh week (169 rows: the open candle and a week closed) when nothing of this pool is kept, or too little', () => {
    expect(plan(older, null)).toEqual({ kind: 'fresh', limit: 169 })
    expect(plan(older, series({ pool: `0x${'bb'.repeat(20)}` }))).toEqual({ kind: 'fresh', limit: 169 })
    // What a token-ohlcv request of 100 hours kept: 101 rows, not a week.
    expect(plan(older, series({ closed: series().closed.slice(0, 101) }))).toEqual({ kind: 'fresh', limit: 169 })
  })

  it('answers from the kept series when every empty hour has closed in it, however old its open candle', () => {
    expect(plan(older, series({ fetchedAt: NOW - 50 * 60_000 }))).toEqual({ kind: 'kept' })
    // A pool younger than a week: the series reached its first candle.
    expect(plan(older, series({ closed: series().closed.slice(0, 20), complete: true, fetchedAt: NOW - 50 * 60_000 }))).toEqual({
      kind: 'kept',
    })
  })

  it('asks for the open hour again only once its candle is 30 s old, and then only the candles since', () => {
    expect(plan(ALL_HOURS, series({ fetchedAt: NOW - 29_000 }))).toEqual({ kind: 'kept' })
    expect(plan(ALL_HOURS, series({ fetchedAt: NOW - 30_000 }))).toEqual({ kind: 'head', limit: 1 })
    // Kept three hours ago: the three candles closed since and the open one.
    const before = series({ closedBefore: OPEN - 3 * 3600, fetchedAt: NOW - 3 * HOUR })
    expect(plan(older, before)).toEqual({ kind: 'head', limit: 4 })
  })

  it('hands out the kept candles newest first, the open one included, a week’s worth', () => {
    const rows = weekRowsOfSeries(
      series({ closed: [...series().closed, ...series().closed.map((r): OhlcvRow => [r[0] - 200 * 3600, 1, 1, 1, 1, 1])] }),
    )
    expect(rows).toHaveLength(WEEK_CANDLE_COUNT + 1)
    expect(rows[0]![0]).toBe(OPEN)
    expect(rows.every((r, i) => i === 0 || r[0] < rows[i - 1]![0])).toBe(true)
  })
})
