import { z } from 'zod'
import { GECKO_OHLCV_LIMIT_MAX, type OhlcvRow, type OhlcvToken, type PoolOhlcv } from '../upstream/geckoOhlcv.js'
import { OHLCV_DEFAULT_LIMIT, openCandleStart } from './ohlcvQuery.js'

// What the service keeps of one pool's candles of one size and currency (pure): the closed candles, which never
// change, kept long; and the candle still open, kept 30 s. A request is answered from it when it can be, or tells
// which one upstream call brings what is missing.

/** How long the candle still open is served as it was fetched. */
export const OPEN_CANDLE_TTL_MS = 30_000

/** Most closed candles a series keeps (newest first; one upstream call's worth). */
export const SERIES_MAX_ROWS = GECKO_OHLCV_LIMIT_MAX

/** A pool's candles of one size and currency, as the service keeps them. */
export type CandleSeries = {
  pool: string
  /** Closed candles, newest first, one per start, all starting before `closedBefore`: no trade between them is missing. */
  closed: OhlcvRow[]
  /** Epoch seconds: the start of the candle that was open when the series was last fetched. */
  closedBefore: number
  /** The pool has no candle older than the oldest closed one (an upstream answer held fewer rows than asked). */
  complete: boolean
  /** The candle open at the last fetch (starting at `closedBefore`), or null when nobody had traded in it yet. */
  open: OhlcvRow | null
  /** Epoch ms of the last fetch: the open candle is served until {@link OPEN_CANDLE_TTL_MS} after it. */
  fetchedAt: number
  meta: PoolOhlcv['meta']
}

const row = z.tuple([z.number().int().positive(), z.number(), z.number(), z.number(), z.number(), z.number()])
const metaToken = z.object({ address: z.string().nullable(), name: z.string().nullable(), symbol: z.string().nullable() }).nullable()

/** A stored {@link CandleSeries}; anything else reads as none. */
export const candleSeriesSchema: z.ZodType<CandleSeries> = z.object({
  pool: z.string(),
  closed: z.array(row),
  closedBefore: z.number().int(),
  complete: z.boolean(),
  open: row.nullable(),
  fetchedAt: z.number(),
  meta: z.object({ base: metaToken, quote: metaToken }) as z.ZodType<{ base: OhlcvToken | null; quote: OhlcvToken | null }>,
})

/** What a request needs of the upstream. */
export type CandlePlan =
  /** Nothing: the series answers it as it is. */
  | { kind: 'kept' }
  /** The newest `limit` candles, merged into the series (they reach back to its closed part). */
  | { kind: 'head'; limit: number }
  /** The newest `limit` candles, a new series (none was kept, or it cannot be joined). */
  | { kind: 'fresh'; limit: number }
  /** This page alone (candles before `before`), answered as it comes; the series is left as it is. */
  | { kind: 'page'; before: number; limit: number }

/** Parameters of {@link planCandles}. */
export type PlanCandlesParameters = {
  series: CandleSeries | null
  /** The pool the token is charted from now; a series of another pool is not used. */
  pool: string
  before: number | null
  limit: number
  seconds: number
  now: number
}

/** Whether the series' closed part holds every candle a page of `limit` before `before` needs. */
function holdsPage(series: CandleSeries, before: number, limit: number): boolean {
  if (before > series.closedBefore) return false
  const inPage = series.closed.filter((r) => r[0] < before).length
  return inPage >= limit || series.complete
}

/**
 * Decides how a request is answered: from the series kept (`kept`), by fetching only the candles since it was last
 * fetched (`head`: one call of as many rows as intervals passed, never more than 1000; only when the closed part holds
 * `limit` already, or all there is), by starting the series again (`fresh`: one call too, of every row), or, for a page older than anything kept, by fetching that page alone (`page`). A request whose page ends
 * at or after the open candle (no `before`, or a later one) needs the series' open candle no older than 30 s.
 */
export function planCandles({ series, pool, before, limit, seconds, now }: PlanCandlesParameters): CandlePlan {
  const open = openCandleStart(now, seconds)
  const kept = series && series.pool === pool ? series : null
  // One more than asked (at least GeckoTerminal's default): with the open candle among them, the closed part alone still
  // holds `limit`, so the next requests of this size join new candles to it instead of fetching all again.
  const fresh: CandlePlan = { kind: 'fresh', limit: Math.min(GECKO_OHLCV_LIMIT_MAX, Math.max(limit, OHLCV_DEFAULT_LIMIT) + 1) }
  if (before !== null && before <= (kept?.closedBefore ?? open)) {
    if (kept && holdsPage(kept, before, limit)) return { kind: 'kept' }
    return { kind: 'page', before, limit }
  }
  if (!kept || !(kept.closed.length >= limit || kept.complete) || open < kept.closedBefore) return fresh
  if (open === kept.closedBefore && now - kept.fetchedAt < OPEN_CANDLE_TTL_MS) return { kind: 'kept' }
  const since = (open - kept.closedBefore) / seconds + 1
  return Number.isInteger(since) && since <= GECKO_OHLCV_LIMIT_MAX ? { kind: 'head', limit: since } : fresh
}

/** Parameters of {@link seriesAfter}. */
export type SeriesAfterParameters = {
  /** The series kept, joined with `fetched` when the plan was `head`; null (or any other plan) starts a new one. */
  kept: CandleSeries | null
  plan: CandlePlan
  fetched: PoolOhlcv
  pool: string
  seconds: number
  now: number
}

/**
 * The series after a `head` or `fresh` fetch: the candles that have closed join the closed part (one per start; a
 * closed candle already kept stays as it was), the candle open now replaces the open one, and the closed part keeps
 * its newest {@link SERIES_MAX_ROWS}. A fresh answer with fewer rows than asked reached the pool's first candle.
 */
export function seriesAfter({ kept, plan, fetched, pool, seconds, now }: SeriesAfterParameters): CandleSeries {
  const open = openCandleStart(now, seconds)
  const asked = plan.kind === 'head' || plan.kind === 'fresh' ? plan.limit : 0
  const joined = plan.kind === 'head' && kept ? kept : null
  const byStart = new Map<number, OhlcvRow>()
  for (const r of fetched.rows) if (r[0] < open) byStart.set(r[0], r)
  // Candles the kept series already had closed never change: they stay as first kept.
  for (const r of joined?.closed ?? []) byStart.set(r[0], r)
  const closed = [...byStart.values()].sort((a, b) => b[0] - a[0])
  // A fresh answer with fewer rows than asked holds the pool's first candle; a head's fewer rows are only quiet intervals.
  const reachedFirst = joined ? joined.complete : fetched.rows.length < asked
  return {
    pool,
    closed: closed.slice(0, SERIES_MAX_ROWS),
    closedBefore: open,
    complete: closed.length <= SERIES_MAX_ROWS && reachedFirst,
    open: fetched.rows.find((r) => r[0] >= open) ?? null,
    fetchedAt: now,
    meta: fetched.meta,
  }
}

/** The rows of an answer from a series: the open candle (when it starts before `before`), then the closed ones, at most `limit`. */
export function rowsOfSeries(series: CandleSeries, before: number | null, limit: number): OhlcvRow[] {
  const all = series.open ? [series.open, ...series.closed] : series.closed
  return (before === null ? all : all.filter((r) => r[0] < before)).slice(0, limit)
}

/** Whether an answer may hold the candle still open (its page ends after the open candle's start): then it is kept 30 s. */
export function holdsOpenCandle(before: number | null, seconds: number, now: number): boolean {
  return before === null || before > openCandleStart(now, seconds)
}
