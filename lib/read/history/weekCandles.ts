import { candleSeriesSchema, seriesAfter } from '../../market/candleSeries.js'
import type { HistoryPoint } from '../../market/snapshots.js'
import { planWeekCandles, uncoveredHours, WEEK_CANDLE_SECONDS, weekRowsOfSeries } from '../../market/weekFill.js'
import { errorName } from '../../platform/log.js'
import { parseRecord } from '../../store/records.js'
import type { WriteEntry } from '../../store/types.js'
import type { OhlcvRow } from '../../upstream/geckoOhlcv.js'
import { UpstreamError } from '../../upstream/jsonGetter.js'
import type { ReadServices } from '../services.js'
import { CLOSED_CANDLES_TTL_MS } from '../tokenOhlcv.js'
import { backOffGeckoAfter429 } from '../universe/discovery.js'

/** The kept series a week reads: the pool's hourly candles in USD, the very series `token-ohlcv` keeps for `timeframe=hour`. */
const WEEK_SERIES = 'hour:1:usd'

/** Longest the one candle call of a week's refresh may take, its retry included. */
const WEEK_CANDLES_DEADLINE_MS = 10_000

/** Parameters of {@link weekCandles}. */
export type WeekCandlesParameters = {
  services: Pick<ReadServices, 'store' | 'keys' | 'keyPrefix' | 'candles' | 'logger' | 'deadline'>
  /** The token, lower-case. */
  address: string
  /** The week's points from the snapshots and the price line. */
  points: readonly HistoryPoint[]
  now: number
  /** The pool the control room charts the token from, or null when it does not list it; asked only when an hour is empty. */
  poolOf: () => Promise<string | null>
}

/** What {@link weekCandles} found: the pool's hourly candles (newest first; none when it had none to give) and the kept series to write. */
export type WeekCandlesReturnType = { rows: OhlcvRow[]; writes: WriteEntry[] }

const NONE: WeekCandlesReturnType = { rows: [], writes: [] }

/**
 * The hourly candles a token's week needs where its snapshots and price line leave hours empty. Only a token the
 * control room lists has a pool here (`poolOf`), so a thousand other addresses cost GeckoTerminal and the store nothing
 * more; for a listed one: one store read (the kept series and the back-off), and at most one call in the candle
 * requests' share of GeckoTerminal's minute, only when an hour wanted is not a closed candle kept already
 * (`planWeekCandles`). Whatever fails (GeckoTerminal off, backing off, its share spent, an error, a 429, which backs every
 * instance off) leaves the candles already kept, or none: the answer is then what the snapshots and price line say.
 */
export async function weekCandles({ services, address, points, now, poolOf }: WeekCandlesParameters): Promise<WeekCandlesReturnType> {
  const { keys, candles, logger } = services
  const uncovered = uncoveredHours(points, now)
  if (uncovered.length === 0 || !candles) return NONE
  const pool = await poolOf()
  if (!pool) return NONE
  const seriesKey = keys.candleSeries(address, WEEK_SERIES)
  let known: (string | null)[]
  try {
    known = await services.store.getMany([seriesKey, keys.geckoBackoff])
  } catch (error) {
    logger.warn('week_candles_failed', { address, error: errorName(error), effect: 'the week from snapshots only' })
    return NONE
  }
  const series = parseRecord(candleSeriesSchema, known[0] ?? null)
  const plan = planWeekCandles({ uncovered, series, pool, now })
  const kept = series && series.pool === pool ? weekRowsOfSeries(series) : []
  if (plan.kind === 'none') return NONE
  if (plan.kind === 'kept') return { rows: kept, writes: [] }
  if (known[1] !== null && known[1] !== undefined) return { rows: kept, writes: [] }
  try {
    const fetched = await candles.poolOhlcv(
      pool,
      { timeframe: 'hour', aggregate: 1, currency: 'usd', limit: plan.limit },
      { signal: services.deadline(WEEK_CANDLES_DEADLINE_MS) },
    )
    const next = seriesAfter({ kept: series, plan, fetched, pool, seconds: WEEK_CANDLE_SECONDS, now })
    return { rows: weekRowsOfSeries(next), writes: [{ key: seriesKey, value: JSON.stringify(next), ttlMs: CLOSED_CANDLES_TTL_MS }] }
  } catch (error) {
    if (error instanceof UpstreamError && error.status === 429) await backOffGeckoAfter429([error], services)
    else logger.warn('week_candles_failed', { address, error: errorName(error), effect: 'the week from what is kept' })
    return { rows: kept, writes: [] }
  }
}
