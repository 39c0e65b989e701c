import type { OhlcvRow } from '../upstream/geckoOhlcv.js'
import { type CandlePlan, type CandleSeries, planCandles, rowsOfSeries } from './candleSeries.js'
import { HISTORY_WEEK_MS, type HistoryPoint, snapshotTime } from './snapshots.js'

// A week's answer where the snapshots do not cover it (pure): the marks on the hour that no snapshot and no price line
// holds are filled from the pool's hourly candles, each candle's close at its start, as the day's price line fills its
// marks with 5-minute closes. A snapshot's point always wins; a mark without trades keeps no point.

/** One hour: the candles the week falls back to (GeckoTerminal's `hour`, aggregate 1), in seconds. */
export const WEEK_CANDLE_SECONDS = 3600

/** The hourly candles a week holds (7 x 24): what a kept series must reach back to before it is used as it is. */
export const WEEK_CANDLE_COUNT = HISTORY_WEEK_MS / (WEEK_CANDLE_SECONDS * 1000)

const HOUR_MS = WEEK_CANDLE_SECONDS * 1000

/**
 * The marks on the hour of the week before `now` (epoch ms, oldest first) that hold no point yet: after the window's
 * start and before the current 5-minute mark, whose snapshot may still be on its way (asking a candle for it would cost
 * a call each time a token is read in the first seconds of an hour).
 */
export function uncoveredHours(points: readonly HistoryPoint[], now: number): number[] {
  const latest = snapshotTime(now)
  const from = latest - HISTORY_WEEK_MS
  const held = new Set(points.map((p) => Date.parse(p.t)))
  const hours: number[] = []
  for (let t = Math.floor(from / HOUR_MS + 1) * HOUR_MS; t < latest; t += HOUR_MS) if (!held.has(t)) hours.push(t)
  return hours
}

/**
 * The week's points with the hourly candles merged in: each candle (`[t, open, high, low, close, volume]`, `t` in
 * seconds) whose start is one of {@link uncoveredHours} becomes a point at that mark with its close as `priceUsd` and
 * the other fields null; every point already there stays as it is. Oldest first, one point per mark; null when there
 * is none at all.
 */
export function mergeWeekCandles(points: readonly HistoryPoint[], candles: readonly OhlcvRow[], now: number): HistoryPoint[] | null {
  const open = new Set(uncoveredHours(points, now))
  const byMark = new Map<number, HistoryPoint>(points.map((p) => [Date.parse(p.t), p]))
  for (const [start, , , , close] of candles) {
    const mark = start * 1000
    if (!open.has(mark) || byMark.has(mark) || !(close > 0) || !Number.isFinite(close)) continue
    byMark.set(mark, { t: new Date(mark).toISOString(), priceUsd: close, volume24h: null, liquidityUsd: null, rank: null })
  }
  const merged = [...byMark].sort((a, b) => a[0] - b[0]).map(([, point]) => point)
  return merged.length > 0 ? merged : null
}

/** What a week's answer needs of the pool's hourly candles: nothing, the kept series as it is, or one call. */
export type WeekCandlePlan = { kind: 'none' } | { kind: 'kept' } | Exclude<CandlePlan, { kind: 'kept' | 'page' }>

/** Parameters of {@link planWeekCandles}. */
export type PlanWeekCandlesParameters = {
  /** The marks on the hour no snapshot or price line holds ({@link uncoveredHours}). */
  uncovered: readonly number[]
  /** The pool's hourly series as kept (shared with `token-ohlcv`), or null. */
  series: CandleSeries | null
  /** The pool the token is charted from now. */
  pool: string
  now: number
}

/**
 * Decides the upstream cost of a week's answer: `none` when every hour is held already; `kept` when the kept series of
 * this pool reaches back a week (or to the pool's first candle) and every hour wanted has closed in it, or when its open
 * candle is under 30 s old (closed candles never change: a token read all week long costs no call once its hours have
 * closed); otherwise the one call `planCandles` chooses (the new candles since the kept ones, or a fresh week).
 */
export function planWeekCandles({ uncovered, series, pool, now }: PlanWeekCandlesParameters): WeekCandlePlan {
  if (uncovered.length === 0) return { kind: 'none' }
  const kept = series && series.pool === pool ? series : null
  const reachesBack = kept !== null && (kept.closed.length >= WEEK_CANDLE_COUNT || kept.complete)
  if (reachesBack && uncovered.at(-1)! < kept.closedBefore * 1000) return { kind: 'kept' }
  const plan = planCandles({ series: kept, pool, before: null, limit: WEEK_CANDLE_COUNT, seconds: WEEK_CANDLE_SECONDS, now })
  return plan.kind === 'page' ? { kind: 'fresh', limit: WEEK_CANDLE_COUNT + 1 } : plan
}

/** The candles of a kept series a week's answer may use: its closed ones and its open one, newest first. */
export function weekRowsOfSeries(series: CandleSeries): OhlcvRow[] {
  return rowsOfSeries(series, null, WEEK_CANDLE_COUNT + 1)
}
