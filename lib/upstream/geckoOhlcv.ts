import { z } from 'zod'
import { looseNumber, looseString } from './fields.js'

// GeckoTerminal's pool OHLCV answer as it really comes (pure): rows of numbers or decimal strings (exponent notation
// too), newest first, a timestamp sometimes repeated (the oldest row again at the end), gaps where nobody traded, and
// `meta` naming the pool's two tokens. One reading serves the candles endpoint and the price-line backfill alike.

/** GeckoTerminal's candle sizes: `minute`, `hour` or `day`, each with the aggregates it takes. */
export const GECKO_OHLCV_AGGREGATES = { minute: [1, 5, 15], hour: [1, 4, 12], day: [1] } as const satisfies Record<
  string,
  readonly number[]
>

/** A candle size: `minute`, `hour` or `day`. */
export type OhlcvTimeframe = keyof typeof GECKO_OHLCV_AGGREGATES

/** What a candle's prices and volume are counted in: US dollars, or the pool's other token. */
export type OhlcvCurrency = 'usd' | 'token'

/** Most candles one OHLCV call answers. */
export const GECKO_OHLCV_LIMIT_MAX = 1000

/** What one OHLCV call asks for (`before` in epoch seconds: only candles that start before it). */
export type OhlcvRequest = { timeframe: OhlcvTimeframe; aggregate: number; limit: number; currency: OhlcvCurrency; before?: number }

/** One candle: `[t, open, high, low, close, volume]`, `t` its start in epoch seconds, `volume` that candle's in its currency. */
export type OhlcvRow = [t: number, open: number, high: number, low: number, close: number, volume: number]

/** One of a pool's two tokens as `meta` names it; a field it lacks is null. Names are untrusted text. */
export type OhlcvToken = { address: string | null; name: string | null; symbol: string | null }

/** A pool's candles, newest first and one per start time, with the pool's tokens (null when `meta` lacks one). */
export type PoolOhlcv = {
  rows: OhlcvRow[]
  meta: { base: OhlcvToken | null; quote: OhlcvToken | null }
  /** Rows left out: not six finite numbers, a start that is not a positive whole second, a price not above 0, a volume below 0. */
  dropped: number
  /** Rows left out because an earlier row of the list had the same start (GeckoTerminal repeats one at times). */
  repeated: number
}

/** A row as sent: an array, its cells numbers or decimal strings; anything else reads as an empty row (dropped). */
const rowSchema = z.array(looseNumber).catch([])

/** A token of `meta`; anything reshaped reads as null. */
const metaTokenSchema = z
  .object({ address: looseString, name: looseString, symbol: looseString })
  .nullish()
  .transform((token) => token ?? null)
  .catch(null)

/** An OHLCV answer: `data.attributes.ohlcv_list`, and `meta` (absent or reshaped: both tokens null). */
export const geckoOhlcvBodySchema = z.object({
  data: z.object({ attributes: z.object({ ohlcv_list: z.array(rowSchema) }) }),
  meta: z
    .object({ base: metaTokenSchema, quote: metaTokenSchema })
    .nullish()
    .transform((meta) => meta ?? { base: null, quote: null })
    .catch({ base: null, quote: null }),
})

/** Whether six read cells make a candle: a positive whole-second start, four prices above 0, a volume of 0 or more. */
function isCandle(cells: readonly (number | null)[]): cells is OhlcvRow {
  if (cells.length < 6) return false
  const [t, open, high, low, close, volume] = cells
  if (typeof t !== 'number' || !Number.isInteger(t) || t <= 0) return false
  for (const price of [open, high, low, close]) if (typeof price !== 'number' || !(price > 0)) return false
  return typeof volume === 'number' && volume >= 0
}

/**
 * GeckoTerminal's rows as candles, newest first, one per start time. When a start repeats, the first row of it in the
 * list wins (the one in its place in the newest-first order); a repeat further down is dropped: in real bodies it is the
 * oldest row sent a second time. A row that is not a candle ({@link isCandle}) is dropped, never repaired: an API passes
 * on what the upstream knows and invents nothing. Extra cells past the sixth are ignored.
 */
export function normalizeOhlcvRows(list: readonly (readonly (number | null)[])[]): Pick<PoolOhlcv, 'rows' | 'dropped' | 'repeated'> {
  const seen = new Set<number>()
  const rows: OhlcvRow[] = []
  let dropped = 0
  let repeated = 0
  for (const cells of list) {
    if (!isCandle(cells)) {
      dropped++
      continue
    }
    if (seen.has(cells[0])) {
      repeated++
      continue
    }
    seen.add(cells[0])
    rows.push([cells[0], cells[1], cells[2], cells[3], cells[4], cells[5]])
  }
  // Newest first, as GeckoTerminal sends them; a list that came out of order is put in order.
  rows.sort((a, b) => b[0] - a[0])
  return { rows, dropped, repeated }
}

/** Reads an OHLCV answer ({@link normalizeOhlcvRows}); null when the body is not one. */
export function parseOhlcvBody(body: unknown): PoolOhlcv | null {
  const parsed = geckoOhlcvBodySchema.safeParse(body)
  if (!parsed.success) return null
  return { ...normalizeOhlcvRows(parsed.data.data.attributes.ohlcv_list), meta: parsed.data.meta }
}
