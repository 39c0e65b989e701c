import { describe, expect, it } from 'vitest'
import {
  holdsOpenCandle,
  OPEN_CANDLE_TTL_MS,
  planCandles,
  rowsOfSeries,
  SERIES_MAX_ROWS,
  seriesAfter,
} from '../../lib/market/candleSeries.js'
import { candleSeconds, OHLCV_DEFAULT_LIMIT, openCandleStart, parseOhlcvQuery } from '../../lib/market/ohlcvQuery.js'
import { normalizeOhlcvRows, type OhlcvRow, type PoolOhlcv, parseOhlcvBody } from '../../lib/upstream/geckoOhlcv.js'

const TOKEN = '0x4200000000000000000000000000000000000006'
const query = (search: string) => parseOhlcvQuery(new URLSearchParams(search))
const refused = (search: string) => {
  const parsed = query(search)
  return parsed.ok ? null : parsed.problem.field
}

describe('the parameters of GET /api/token-ohlcv', () => {
  it('defaults to hourly USD candles, 100 of them, up to the candle still open', () => {
    expect(query(`address=${TOKEN.toUpperCase().replace('0X', '0x')}`)).toEqual({
      ok: true,
      query: { address: TOKEN, timeframe: 'hour', aggregate: 1, before: null, limit: 100, currency: 'usd' },
    })
  })

  it('takes every value GeckoTerminal offers, and nothing else', () => {
    const offered = { minute: [1, 5, 15], hour: [1, 4, 12], day: [1] } as const
    for (const [timeframe, aggregates] of Object.entries(offered)) {
      for (let aggregate = 0; aggregate <= 20; aggregate++) {
        const parsed = query(`address=${TOKEN}&timeframe=${timeframe}&aggregate=${aggregate}`)
        expect(parsed.ok, `${timeframe} ${aggregate}`).toBe((aggregates as readonly number[]).includes(aggregate))
        if (!parsed.ok)
          expect(parsed.problem).toEqual({ field: 'aggregate', reason: `must be ${aggregates.join(', ')} for timeframe ${timeframe}` })
      }
    }
    for (const timeframe of ['Minute', 'hours', 'week', '', '1h'])
      expect(refused(`address=${TOKEN}&timeframe=${timeframe}`)).toBe('timeframe')
    for (const currency of ['usd', 'token']) expect(query(`address=${TOKEN}&currency=${currency}`).ok).toBe(true)
    for (const currency of ['USD', 'eth', '', 'base']) expect(refused(`address=${TOKEN}&currency=${currency}`)).toBe('currency')
  })

  it('bounds limit to 1-1000 and before_timestamp to whole epoch seconds, in plain digits', () => {
    for (const limit of ['1', '100', '999', '1000'])
      expect(query(`address=${TOKEN}&limit=${limit}`)).toMatchObject({ ok: true, query: { limit: Number(limit) } })
    for (const limit of ['0', '1001', '-1', '1.5', '01', '1e3', ' 5', '', 'ten', '99999'])
      expect(refused(`address=${TOKEN}&limit=${encodeURIComponent(limit)}`), limit).toBe('limit')
    for (const before of ['1', '1763910300', '9999999999'])
      expect(query(`address=${TOKEN}&before_timestamp=${before}`)).toMatchObject({ ok: true, query: { before: Number(before) } })
    for (const before of ['0', '-1', '10000000000', '1763910300.5', '1763910300000', '', 'now', '0x10'])
      expect(refused(`address=${TOKEN}&before_timestamp=${encodeURIComponent(before)}`), before).toBe('before_timestamp')
  })

  it('requires a token address, and names the first wrong field in the order address, timeframe, aggregate, before_timestamp, limit, currency', () => {
    expect(query('')).toEqual({
      ok: false,
      code: 'INVALID_PARAMETER',
      problem: { field: 'address', reason: 'is required: the token, 0x and 40 hex digits' },
    })
    for (const address of ['0x42', `${TOKEN}00`, TOKEN.slice(2), `0x${'g'.repeat(40)}`, `0x${'a'.repeat(64)}`])
      expect(refused(`address=${address}`), address).toBe('address')
    expect(query(`address=%20${TOKEN}%20`)).toMatchObject({ ok: true }) // trimmed, as token-history's
    expect(refused('timeframe=week&limit=0')).toBe('address')
    expect(refused(`address=${TOKEN}&timeframe=week&limit=0`)).toBe('timeframe')
    expect(refused(`address=${TOKEN}&timeframe=day&aggregate=4&limit=0`)).toBe('aggregate')
    expect(refused(`address=${TOKEN}&before_timestamp=x&limit=0&currency=x`)).toBe('before_timestamp')
    expect(refused(`address=${TOKEN}&limit=0&currency=x`)).toBe('limit')
  })

  it('refuses a parameter given twice, and ignores parameters it does not know', () => {
    expect(query(`address=${TOKEN}&limit=5&limit=5`)).toEqual({
      ok: false,
      code: 'INVALID_PARAMETER',
      problem: { field: 'limit', reason: 'is given more than once' },
    })
    expect(refused(`address=${TOKEN}&address=${TOKEN}`)).toBe('address')
    expect(query(`address=${TOKEN}&token=quote&network=eth`)).toMatchObject({ ok: true })
  })

  it('aligns candles on whole multiples of their length', () => {
    expect(candleSeconds('minute', 15)).toBe(900)
    expect(candleSeconds('hour', 4)).toBe(14_400)
    expect(candleSeconds('day', 1)).toBe(86_400)
    expect(openCandleStart(Date.UTC(2026, 0, 1, 13, 59, 59), 14_400)).toBe(Date.UTC(2026, 0, 1, 12) / 1000)
    expect(openCandleStart(Date.UTC(2026, 0, 1, 16), 14_400)).toBe(Date.UTC(2026, 0, 1, 16) / 1000)
  })
})

describe('GeckoTerminal OHLCV rows as the service reads them', () => {
  it('keeps one row per start, the first of the newest-first list, numbers as numbers, newest first', () => {
    const { rows, dropped, repeated } = normalizeOhlcvRows([
      [300, 1, 2, 0.5, 1.5, 10],
      [600, 2, 2, 2, 2, 0], // out of order: put in order
      [300, 9, 9, 9, 9, 9], // the same start again, later in the list: dropped
      [0, 1, 1, 1, 1, 1],
      [-300, 1, 1, 1, 1, 1],
      [150.5, 1, 1, 1, 1, 1],
      [900, 1, 1, 1, 0, 1], // a price of 0
      [1200, 1, 1, 1, 1, -1], // negative volume
      [1500, 1, 1, null, 1, 1],
      [1800, 1, 1, 1, 1], // five cells
      [2100, 1, 1, 1, 1, 1, 7], // extra cells ignored
    ])
    expect(rows).toEqual([
      [2100, 1, 1, 1, 1, 1],
      [600, 2, 2, 2, 2, 0],
      [300, 1, 2, 0.5, 1.5, 10],
    ])
    expect({ dropped, repeated }).toEqual({ dropped: 7, repeated: 1 })
  })

  it('reads exponent notation and decimal strings, and the meta tokens; a body of another shape is none', () => {
    const body = {
      data: {
        attributes: {
          ohlcv_list: [['1763910300', '1.612e-05', '1.65E-5', 1.6e-5, '0.0000164', '1203.55'], 'junk', [1763910300, 1, 1, 1, 1, 1]],
        },
      },
      meta: { base: { address: '0xAB', name: 'A', symbol: 'A', coingecko_coin_id: null }, quote: 'odd' },
    }
    expect(parseOhlcvBody(body)).toEqual({
      rows: [[1763910300, 1.612e-5, 1.65e-5, 1.6e-5, 1.64e-5, 1203.55]],
      meta: { base: { address: '0xAB', name: 'A', symbol: 'A' }, quote: null },
      dropped: 1,
      repeated: 1,
    })
    expect(parseOhlcvBody({ data: { attributes: { ohlcv_list: [] } } })).toEqual({
      rows: [],
      meta: { base: null, quote: null },
      dropped: 0,
      repeated: 0,
    })
    for (const other of [{ data: [] }, '<html>', null, { errors: [{ status: '404' }] }]) expect(parseOhlcvBody(other)).toBeNull()
  })
})

/** A candle starting at `t` (epoch s) closing at `close`. */
const candle = (t: number, close = t / 1000): OhlcvRow => [t, close, close, close, close, 1]
const HOUR = 3600
const T0 = 1_800_000_000 - (1_800_000_000 % HOUR) // a whole hour, epoch s
const at = (seconds: number) => (T0 + seconds) * 1000
const fetched = (rows: OhlcvRow[]): PoolOhlcv => ({ rows, meta: { base: null, quote: null }, dropped: 0, repeated: 0 })
/** Hourly candles from `from` back, `count` of them, newest first, with no gap. */
const hourly = (from: number, count: number) => Array.from({ length: count }, (_, i) => candle(from - i * HOUR))

describe('the candles the service keeps of a pool (closed ones long, the open one 30 s)', () => {
  const pool = '0xpool'
  const base = { pool, seconds: HOUR }

  it('starts a series with at least 101 candles, and keeps the closed ones apart from the open one', () => {
    const now = at(1800)
    expect(planCandles({ ...base, series: null, before: null, limit: 24, now })).toEqual({ kind: 'fresh', limit: OHLCV_DEFAULT_LIMIT + 1 })
    expect(planCandles({ ...base, series: null, before: null, limit: 500, now })).toEqual({ kind: 'fresh', limit: 501 })
    expect(planCandles({ ...base, series: null, before: null, limit: 1000, now })).toEqual({ kind: 'fresh', limit: 1000 })
    const series = seriesAfter({
      kept: null,
      plan: { kind: 'fresh', limit: 100 },
      fetched: fetched(hourly(T0, 100)),
      pool,
      seconds: HOUR,
      now,
    })
    expect(series.closedBefore).toBe(T0)
    expect(series.open).toEqual(candle(T0))
    expect(series.closed).toHaveLength(99)
    expect(series.complete).toBe(false) // as many rows as asked: older ones may exist
    expect(rowsOfSeries(series, null, 3)).toEqual([candle(T0), candle(T0 - HOUR), candle(T0 - 2 * HOUR)])
  })

  it('answers from the series while its open candle is younger than 30 s, then fetches only what has happened since', () => {
    const now = at(60)
    const series = seriesAfter({
      kept: null,
      plan: { kind: 'fresh', limit: 100 },
      fetched: fetched(hourly(T0, 100)),
      pool,
      seconds: HOUR,
      now,
    })
    expect(planCandles({ ...base, series, before: null, limit: 50, now: now + OPEN_CANDLE_TTL_MS - 1 })).toEqual({ kind: 'kept' })
    expect(planCandles({ ...base, series, before: null, limit: 50, now: now + OPEN_CANDLE_TTL_MS })).toEqual({ kind: 'head', limit: 1 })
    // Three hours later: the open candle of then has closed, two more have, and one is open: four rows at most.
    const later = at(3 * HOUR + 60)
    expect(planCandles({ ...base, series, before: null, limit: 50, now: later })).toEqual({ kind: 'head', limit: 4 })
    // Nobody traded in the second hour: a gap, passed on as one.
    const head = fetched([candle(T0 + 3 * HOUR, 9), candle(T0 + 2 * HOUR), candle(T0, 7)])
    const after = seriesAfter({ kept: series, plan: { kind: 'head', limit: 4 }, fetched: head, pool, seconds: HOUR, now: later })
    expect(after.open).toEqual(candle(T0 + 3 * HOUR, 9))
    expect(after.closed.slice(0, 3)).toEqual([candle(T0 + 2 * HOUR), candle(T0, 7), candle(T0 - HOUR)])
    expect(after.closed).toHaveLength(101)
    expect(rowsOfSeries(after, null, 3).map((r) => r[0])).toEqual([T0 + 3 * HOUR, T0 + 2 * HOUR, T0])
  })

  it('keeps a closed candle as it was first kept, and at most 1000 of them', () => {
    const series = seriesAfter({
      kept: null,
      plan: { kind: 'fresh', limit: 100 },
      fetched: fetched(hourly(T0 - HOUR, 99)),
      pool,
      seconds: HOUR,
      now: at(10),
    })
    const head = fetched([candle(T0 + HOUR), candle(T0 - HOUR, 123)])
    const after = seriesAfter({ kept: series, plan: { kind: 'head', limit: 2 }, fetched: head, pool, seconds: HOUR, now: at(HOUR + 10) })
    expect(after.closed.find((r) => r[0] === T0 - HOUR)).toEqual(candle(T0 - HOUR))
    const full = seriesAfter({
      kept: null,
      plan: { kind: 'fresh', limit: 1000 },
      fetched: fetched(hourly(T0, 1000)),
      pool,
      seconds: HOUR,
      now: at(10),
    })
    const grown = seriesAfter({
      kept: full,
      plan: { kind: 'head', limit: 2 },
      fetched: fetched([candle(T0 + HOUR), candle(T0)]),
      pool,
      seconds: HOUR,
      now: at(HOUR + 10),
    })
    expect(grown.closed).toHaveLength(SERIES_MAX_ROWS)
    expect(grown.closed[0]![0]).toBe(T0)
  })

  it('knows a pool’s history is all there when an answer held fewer rows than asked', () => {
    const young = seriesAfter({
      kept: null,
      plan: { kind: 'fresh', limit: 100 },
      fetched: fetched(hourly(T0, 12)),
      pool,
      seconds: HOUR,
      now: at(10),
    })
    expect(young.complete).toBe(true)
    // It answers a bigger limit and any older page from what it holds.
    expect(planCandles({ ...base, series: young, before: null, limit: 1000, now: at(20) })).toEqual({ kind: 'kept' })
    expect(planCandles({ ...base, series: young, before: T0 - 5 * HOUR, limit: 100, now: at(20) })).toEqual({ kind: 'kept' })
    expect(rowsOfSeries(young, T0 - 5 * HOUR, 100)).toHaveLength(6)
    const empty = seriesAfter({ kept: null, plan: { kind: 'fresh', limit: 100 }, fetched: fetched([]), pool, seconds: HOUR, now: at(10) })
    expect(rowsOfSeries(empty, null, 100)).toEqual([])
  })

  it('fetches a page older than the series alone, and a bigger newest page anew', () => {
    const series = seriesAfter({
      kept: null,
      plan: { kind: 'fresh', limit: 100 },
      fetched: fetched(hourly(T0, 100)),
      pool,
      seconds: HOUR,
      now: at(10),
    })
    const oldest = series.closed.at(-1)![0]
    expect(planCandles({ ...base, series, before: T0 - 10 * HOUR, limit: 50, now: at(20) })).toEqual({ kind: 'kept' })
    expect(planCandles({ ...base, series, before: T0 - 10 * HOUR, limit: 95, now: at(20) })).toEqual({
      kind: 'page',
      before: T0 - 10 * HOUR,
      limit: 95,
    })
    expect(planCandles({ ...base, series, before: oldest, limit: 1, now: at(20) })).toEqual({ kind: 'page', before: oldest, limit: 1 })
    expect(planCandles({ ...base, series, before: null, limit: 100, now: at(20) })).toEqual({ kind: 'fresh', limit: 101 })
    expect(planCandles({ ...base, series, before: null, limit: 200, now: at(20) })).toEqual({ kind: 'fresh', limit: 201 })
    // A page that ends after the last fetch needs what has happened since: a head, then the page from the series.
    expect(planCandles({ ...base, series, before: T0 + 2 * HOUR, limit: 10, now: at(2 * HOUR + 5) })).toEqual({ kind: 'head', limit: 3 })
    // Another pool (the token's best pool changed), or more than 1000 hours since: anew.
    expect(planCandles({ ...base, pool: '0xother', series, before: null, limit: 10, now: at(20) })).toMatchObject({ kind: 'fresh' })
    expect(planCandles({ ...base, series, before: null, limit: 10, now: at(1000 * HOUR) })).toMatchObject({ kind: 'fresh' })
    expect(planCandles({ ...base, series: null, before: T0 - HOUR, limit: 10, now: at(20) })).toEqual({
      kind: 'page',
      before: T0 - HOUR,
      limit: 10,
    })
    expect(planCandles({ ...base, series: null, before: T0 + 99 * HOUR, limit: 10, now: at(20) })).toMatchObject({ kind: 'fresh' })
  })

  it('holds the open candle 30 s, and a page that ends before it long', () => {
    const now = at(1800)
    expect(holdsOpenCandle(null, HOUR, now)).toBe(true)
    expect(holdsOpenCandle(T0 + 1, HOUR, now)).toBe(true)
    expect(holdsOpenCandle(T0, HOUR, now)).toBe(false)
    expect(holdsOpenCandle(T0 - HOUR, HOUR, now)).toBe(false)
  })
})

/** The one-row-per-start rule, for every place a repeated start can sit in the list. */
describe('one row per start whatever the order', () => {
  it.each([0, 1, 2, 3])('keeps the first of a start repeated at position %i', (position) => {
    const list: OhlcvRow[] = [candle(400), candle(300), candle(200), candle(100)]
    const again: OhlcvRow = [list[position]![0], 5, 5, 5, 5, 5]
    const { rows } = normalizeOhlcvRows([...list, again])
    expect(rows).toEqual(list)
    expect(normalizeOhlcvRows([again, ...list]).rows[position]).toEqual(again)
  })
})
