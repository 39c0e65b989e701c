import { GECKO_OHLCV_AGGREGATES, GECKO_OHLCV_LIMIT_MAX, type OhlcvCurrency, type OhlcvTimeframe } from '../upstream/geckoOhlcv.js'

// The parameters of `GET /api/token-ohlcv`, named and bounded as GeckoTerminal's own (pure): each bad value is refused
// naming its field, before anything is read.

/** A candle request of `GET /api/token-ohlcv`, checked: the token, the candle size, where the page ends, how many, in what. */
export type OhlcvQuery = {
  /** The token, lower-case. */
  address: string
  timeframe: OhlcvTimeframe
  aggregate: number
  /** Epoch seconds: only candles that start before it; null: up to the candle still open. */
  before: number | null
  limit: number
  currency: OhlcvCurrency
}

/** A query parameter that is wrong, and why. */
export type ParameterProblem = { field: string; reason: string }

/** What {@link parseOhlcvQuery} answers. */
export type ParseOhlcvQueryReturnType =
  | { ok: true; query: OhlcvQuery }
  | { ok: false; code: 'INVALID_PARAMETER'; problem: ParameterProblem }

/** Candles an answer holds when `limit` is not given (GeckoTerminal's own default). */
export const OHLCV_DEFAULT_LIMIT = 100

/** The latest `before_timestamp` taken: 9,999,999,999 s (the year 2286); a later one is no page of anything. */
const BEFORE_MAX_DIGITS = 10

const TIMEFRAMES = Object.keys(GECKO_OHLCV_AGGREGATES) as OhlcvTimeframe[]

/** One parameter's rule: its value as read, or why it is wrong (`raw` is undefined when the parameter is absent). */
type Rule<T> = (
  raw: string | undefined,
  read: Partial<OhlcvQuery>,
) => { ok: true; value: T } | { ok: false; code: 'INVALID_PARAMETER'; reason: string }

const accept = <T>(value: T) => ({ ok: true as const, value })
const wrong = (reason: string) => ({ ok: false as const, code: 'INVALID_PARAMETER' as const, reason })
/** The refusal of a query, naming the parameter and why. */
const invalid = (problem: ParameterProblem) => ({ ok: false as const, code: 'INVALID_PARAMETER' as const, problem })

/** Each parameter in the order it is checked, with the field of {@link OhlcvQuery} it fills. */
const RULES: readonly [param: string, field: keyof OhlcvQuery, rule: Rule<unknown>][] = [
  [
    'address',
    'address',
    (raw) => {
      const address = raw?.trim()
      if (address === undefined || address === '') return wrong('is required: the token, 0x and 40 hex digits')
      return /^0x[0-9a-fA-F]{40}$/.test(address) ? accept(address.toLowerCase()) : wrong('must be a token address: 0x and 40 hex digits')
    },
  ],
  [
    'timeframe',
    'timeframe',
    (raw = 'hour') => ((TIMEFRAMES as string[]).includes(raw) ? accept(raw) : wrong('must be minute, hour or day')),
  ],
  [
    'aggregate',
    'aggregate',
    (raw, read) => {
      const offered: readonly number[] = GECKO_OHLCV_AGGREGATES[read.timeframe!]
      const aggregate = raw === undefined ? 1 : wholeNumber(raw, 2)
      return aggregate !== null && offered.includes(aggregate)
        ? accept(aggregate)
        : wrong(`must be ${offered.join(', ')} for timeframe ${read.timeframe}`)
    },
  ],
  [
    'before_timestamp',
    'before',
    (raw) => {
      if (raw === undefined) return accept(null)
      const before = wholeNumber(raw, BEFORE_MAX_DIGITS)
      return before === null ? wrong('must be whole epoch seconds, 1 to 9999999999') : accept(before)
    },
  ],
  [
    'limit',
    'limit',
    (raw) => {
      const limit = raw === undefined ? OHLCV_DEFAULT_LIMIT : wholeNumber(raw, 4)
      return limit !== null && limit <= GECKO_OHLCV_LIMIT_MAX
        ? accept(limit)
        : wrong(`must be a whole number from 1 to ${GECKO_OHLCV_LIMIT_MAX}`)
    },
  ],
  ['currency', 'currency', (raw = 'usd') => (raw === 'usd' || raw === 'token' ? accept(raw) : wrong('must be usd or token'))],
]

/**
 * Reads `address` (required, 0x + 40 hex, any case), `timeframe` (`minute`, `hour` or `day`; default `hour`),
 * `aggregate` (minute 1/5/15, hour 1/4/12, day 1; default 1), `before_timestamp` (whole epoch seconds, 1 to
 * 9999999999), `limit` (1-1000, default 100) and `currency` (`usd` or `token`, default `usd`). Numbers are plain decimal
 * digits (no sign, no leading zero, no fraction); a parameter given twice, or given empty, is wrong. Other parameters
 * are ignored. The first wrong one, in that order, is the problem.
 */
export function parseOhlcvQuery(params: URLSearchParams): ParseOhlcvQueryReturnType {
  const read: Partial<OhlcvQuery> = {}
  for (const [param, field, rule] of RULES) {
    const values = params.getAll(param)
    if (values.length > 1) return invalid({ field: param, reason: 'is given more than once' })
    const checked = rule(values[0], read)
    if (!checked.ok) return invalid({ field: param, reason: checked.reason })
    Object.assign(read, { [field]: checked.value })
  }
  return { ok: true, query: read as OhlcvQuery }
}

/** A positive whole number written as plain decimal digits (no sign, leading zero or fraction), of at most `digits`; else null. */
function wholeNumber(text: string, digits: number): number | null {
  return new RegExp(`^[1-9][0-9]{0,${digits - 1}}$`).test(text) ? Number(text) : null
}

/** A candle's length in seconds. */
export function candleSeconds(timeframe: OhlcvTimeframe, aggregate: number): number {
  return { minute: 60, hour: 3600, day: 86_400 }[timeframe] * aggregate
}

/** The start (epoch seconds) of the candle still open at `nowMs`: candles start at whole multiples of their length (UTC). */
export function openCandleStart(nowMs: number, seconds: number): number {
  return Math.floor(nowMs / 1000 / seconds) * seconds
}
