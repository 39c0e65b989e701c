import { z } from 'zod'
import type { OhlcvRow } from '../upstream/geckoOhlcv.js'

// A launch's market as its own Uniswap v4 pool tells it, before any aggregator has the pool (pure): the token's price
// in ETH from a swap's sqrtPriceX96 in exact integer maths, the swaps bucketed into minute and hour candles, and the
// market and candles answered from them. Prices are stored as decimal strings of 18 significant digits, volumes as
// wei: no floating point in what is kept; numbers are made only in the answers.

/** Significant digits a stored price keeps. */
export const PRICE_SIGNIFICANT_DIGITS = 18
/** How long minute candles are kept (the 24 h volume and trade count are read from them). */
export const MINUTE_CANDLES_KEEP_SECONDS = 86_400
/** How long hour candles are kept (hour and day candles are drawn from them). */
export const HOUR_CANDLES_KEEP_SECONDS = 30 * 86_400
/** Native ETH's decimals (the pool's currency0). */
const ETH_DECIMALS = 18
const Q192 = 1n << 192n

/** Store key of a launch's market as its pool tells it; written by the deploy side's tick, read by the candles' reader too. */
export const chainMarketKey = (storePrefix: string, chainId: number, token: string) =>
  `${storePrefix}deploy:${chainId}:chain-market:${token.toLowerCase()}`

/** A decimal string rounded to `significant` digits (half up) of the exact quotient `num / den` (both > 0). */
export function divideToSignificant(num: bigint, den: bigint, significant = PRICE_SIGNIFICANT_DIGITS): string {
  if (num <= 0n || den <= 0n) throw new RangeError('divideToSignificant needs a positive quotient')
  const low = 10n ** BigInt(significant - 1)
  const high = low * 10n
  // k: the power of ten the quotient is scaled by so that it has exactly `significant` integer digits.
  let k = significant - (num.toString().length - den.toString().length)
  const scaled = (k: number): [bigint, bigint] => (k >= 0 ? [num * 10n ** BigInt(k), den] : [num, den * 10n ** BigInt(-k)])
  let [n, d] = scaled(k)
  let q = n / d
  while (q >= high || q < low) {
    k += q >= high ? -1 : 1
    ;[n, d] = scaled(k)
    q = n / d
  }
  if (2n * (n % d) >= d) q += 1n
  if (q === high) {
    q = low
    k -= 1
  }
  return placeDecimal(q, k)
}

/** `q × 10^-k` written out (no exponent), trailing zeros of the fraction dropped. */
function placeDecimal(q: bigint, k: number): string {
  if (k <= 0) return (q * 10n ** BigInt(-k)).toString()
  const digits = q.toString().padStart(k + 1, '0')
  const whole = digits.slice(0, digits.length - k)
  const fraction = digits.slice(digits.length - k).replace(/0+$/, '')
  return fraction ? `${whole}.${fraction}` : whole
}

/** A non-negative decimal string as an exact fraction `[num, den]` (den a power of ten). */
export function decimalFraction(value: string): [bigint, bigint] {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value)
  if (!match) throw new RangeError(`not a decimal: ${value}`)
  const fraction = match[2] ?? ''
  return [BigInt(match[1]! + fraction), 10n ** BigInt(fraction.length)]
}

/** Compares two non-negative decimal strings exactly. */
export function compareDecimals(a: string, b: string): number {
  const [an, ad] = decimalFraction(a)
  const [bn, bd] = decimalFraction(b)
  const left = an * bd
  const right = bn * ad
  return left < right ? -1 : left > right ? 1 : 0
}

/**
 * The token's price in ETH (pure, exact to its 18 significant digits) where the token is currency1 and native ETH
 * currency0: sqrtPriceX96² / 2^192 is token base units per wei, so one whole token is
 * 2^192 · 10^decimals / (sqrtPriceX96² · 10^18) ETH.
 */
export function tokenPriceEth(sqrtPriceX96: bigint, decimals: number, significant = PRICE_SIGNIFICANT_DIGITS): string {
  if (sqrtPriceX96 <= 0n) throw new RangeError('sqrtPriceX96 must be positive')
  return divideToSignificant(Q192 * 10n ** BigInt(decimals), sqrtPriceX96 * sqrtPriceX96 * 10n ** BigInt(ETH_DECIMALS), significant)
}

/** `a × b` of two decimal strings, to 18 significant digits; "0" when either is 0. */
export function multiplyDecimals(a: string, b: string): string {
  const [an, ad] = decimalFraction(a)
  const [bn, bd] = decimalFraction(b)
  if (an === 0n || bn === 0n) return '0'
  return divideToSignificant(an * bn, ad * bd)
}

/** Wei as a decimal string of ETH, exactly. */
export function weiToEth(wei: bigint): string {
  return wei === 0n ? '0' : placeDecimal(wei, ETH_DECIMALS)
}

/** One candle of a launch's pool: prices in ETH (decimal strings), volume in wei, its trades, WETH's USD price at its close. */
export type ChainCandle = {
  /** Start, unix seconds. */
  t: number
  o: string
  h: string
  l: string
  c: string
  /** ETH traded (wei, decimal string). */
  v: string
  /** Swaps in it. */
  n: number
  /** WETH's USD price when it last traded (null: unknown then). */
  u: string | null
}

/** What is kept of a launch's pool, updated swap by swap. */
export type ChainMarketState = {
  token: string
  poolId: string
  decimals: number
  /** The pool's price after the last swap counted. */
  sqrtPriceX96: string
  priceEth: string
  /** WETH's USD price when the last swap was counted (null: unknown then). */
  wethUsd: string | null
  /** Unix seconds of the first and the last swap counted. */
  firstTradeAt: number
  lastTradeAt: number
  /** The last swap counted (its block and log index): a swap at or before it is never counted again. */
  last: { block: string; logIndex: number }
  /** Minute candles of the last 24 h, oldest first, only minutes with trades. */
  minutes: ChainCandle[]
  /** Hour candles of the last 30 days, oldest first, only hours with trades. */
  hours: ChainCandle[]
}

const decimalString = z.string().regex(/^\d+(\.\d+)?$/)
const candleSchema = z.object({
  t: z.number().int(),
  o: decimalString,
  h: decimalString,
  l: decimalString,
  c: decimalString,
  v: z.string().regex(/^\d+$/),
  n: z.number().int().min(0),
  u: decimalString.nullable(),
})

/** A stored {@link ChainMarketState}; anything else reads as none. */
export const chainMarketStateSchema: z.ZodType<ChainMarketState> = z.object({
  token: z.string(),
  poolId: z.string(),
  decimals: z.number().int(),
  sqrtPriceX96: z.string().regex(/^\d+$/),
  priceEth: decimalString,
  wethUsd: decimalString.nullable(),
  firstTradeAt: z.number(),
  lastTradeAt: z.number(),
  last: z.object({ block: z.string().regex(/^\d+$/), logIndex: z.number().int() }),
  minutes: z.array(candleSchema),
  hours: z.array(candleSchema),
})

/** One swap of a launch's pool, as the candles take it. */
export type ChainSwap = {
  /** ETH's balance change for the swapper (wei): negative when the swapper paid ETH in (a buy of the token). */
  amount0: bigint
  /** The pool's price after the swap. */
  sqrtPriceX96: bigint
  blockNumber: bigint
  logIndex: number
  /** Unix seconds of its block. */
  at: number
}

/** The launch a pool belongs to. */
export type ChainLaunch = { token: string; poolId: string; decimals: number /** The pool's first price. */; sqrtPriceX96: string }

/** Whether a swap comes after the last one counted. */
const isAfter = (swap: ChainSwap, last: ChainMarketState['last'] | undefined) =>
  !last || swap.blockNumber > BigInt(last.block) || (swap.blockNumber === BigInt(last.block) && swap.logIndex > last.logIndex)

/** Adds one trade at `price` to the candles of `length` seconds (opened at `before`, the pool's price going in). */
function addToCandles(candles: ChainCandle[], length: number, at: number, before: string, price: string, wei: bigint, u: string | null) {
  const t = Math.floor(at / length) * length
  const current = candles.at(-1)
  if (current && current.t === t) {
    if (compareDecimals(price, current.h) > 0) current.h = price
    if (compareDecimals(price, current.l) < 0) current.l = price
    current.c = price
    current.v = (BigInt(current.v) + wei).toString()
    current.n += 1
    current.u = u ?? current.u
    return
  }
  const [h, l] = compareDecimals(price, before) >= 0 ? [price, before] : [before, price]
  candles.push({ t, o: before, h, l, c: price, v: wei.toString(), n: 1, u })
}

/** Parameters of {@link applySwaps}. */
export type ApplySwapsParameters = {
  state: ChainMarketState | null
  launch: ChainLaunch
  /** Swaps of this launch's pool, in chain order; those already counted are skipped. */
  swaps: readonly ChainSwap[]
  /** WETH's USD price now (null: unknown). */
  wethUsd: string | null
  /** Unix seconds: candles older than what is kept are dropped. */
  now: number
}

/**
 * The state after some swaps (pure): each swap not counted yet moves the price, and joins its minute and hour candles
 * (a candle opens at the price before its first trade, so the chart has no jump between candles). Null when there is
 * no state and no new swap.
 */
export function applySwaps({ state, launch, swaps, wethUsd, now }: ApplySwapsParameters): ChainMarketState | null {
  const fresh = swaps.filter((swap) => isAfter(swap, state?.last))
  if (fresh.length === 0) return state
  const next: ChainMarketState = state
    ? { ...state, minutes: state.minutes.map((c) => ({ ...c })), hours: state.hours.map((c) => ({ ...c })) }
    : {
        token: launch.token.toLowerCase(),
        poolId: launch.poolId.toLowerCase(),
        decimals: launch.decimals,
        sqrtPriceX96: launch.sqrtPriceX96,
        priceEth: tokenPriceEth(BigInt(launch.sqrtPriceX96), launch.decimals),
        wethUsd,
        firstTradeAt: fresh[0]!.at,
        lastTradeAt: fresh[0]!.at,
        last: { block: '0', logIndex: -1 },
        minutes: [],
        hours: [],
      }
  for (const swap of fresh) {
    const before = next.priceEth
    const price = tokenPriceEth(swap.sqrtPriceX96, next.decimals)
    const wei = swap.amount0 < 0n ? -swap.amount0 : swap.amount0
    addToCandles(next.minutes, 60, swap.at, before, price, wei, wethUsd)
    addToCandles(next.hours, 3600, swap.at, before, price, wei, wethUsd)
    next.priceEth = price
    next.sqrtPriceX96 = swap.sqrtPriceX96.toString()
    next.lastTradeAt = Math.max(next.lastTradeAt, swap.at)
    next.last = { block: swap.blockNumber.toString(), logIndex: swap.logIndex }
  }
  next.wethUsd = wethUsd ?? next.wethUsd
  next.minutes = next.minutes.filter((c) => c.t + 60 > now - MINUTE_CANDLES_KEEP_SECONDS)
  next.hours = next.hours.filter((c) => c.t + 3600 > now - HOUR_CANDLES_KEEP_SECONDS)
  return next
}

/** A launch's market as its pool tells it (what `market` says with `source: "chain"`). */
export type ChainMarket = {
  source: 'chain'
  /** The pool id. */
  pairAddress: string
  dexId: 'uniswap'
  priceEth: string
  priceUsd: string | null
  /** Not measured from the chain: null. */
  liquidity: null
  /** USD traded in the last 24 h (through WETH's price; 0 when unknown). */
  volume24h: number
  volume24hEth: string
  trades24h: number
  pairUrl: string
  firstSeenAt: string
  lastTradeAt: string
}

/** The market a state answers at `now` (unix seconds; pure): the 24 h volume and trades from the minute candles. */
export function chainMarketOf(state: ChainMarketState, now: number): ChainMarket {
  const recent = state.minutes.filter((c) => c.t + 60 > now - MINUTE_CANDLES_KEEP_SECONDS)
  const wei = recent.reduce((sum, c) => sum + BigInt(c.v), 0n)
  const volume24hEth = weiToEth(wei)
  return {
    source: 'chain',
    pairAddress: state.poolId,
    dexId: 'uniswap',
    priceEth: state.priceEth,
    priceUsd: state.wethUsd ? multiplyDecimals(state.priceEth, state.wethUsd) : null,
    liquidity: null,
    volume24h: state.wethUsd ? Number(multiplyDecimals(volume24hEth, state.wethUsd)) : 0,
    volume24hEth,
    trades24h: recent.reduce((sum, c) => sum + c.n, 0),
    pairUrl: `https://dexscreener.com/base/${state.poolId}`,
    firstSeenAt: new Date(state.firstTradeAt * 1000).toISOString(),
    lastTradeAt: new Date(state.lastTradeAt * 1000).toISOString(),
  }
}

/** Parameters of {@link chainOhlcvRows}. */
export type ChainOhlcvRowsParameters = {
  state: ChainMarketState
  /** Candle length in seconds (a multiple of 60; of 3600 for hour and day candles). */
  seconds: number
  currency: 'usd' | 'token'
  before: number | null
  limit: number
}

/**
 * A pool's candles as token-ohlcv answers them (pure), newest first: the kept minute candles (up to an hour) or hour
 * candles (longer) joined into candles of `seconds`. `token` is in ETH (the pool's quote); `usd` through WETH's USD
 * price at each candle's close (the latest known where a candle has none; no rows when none is known at all).
 */
export function chainOhlcvRows({ state, seconds, currency, before, limit }: ChainOhlcvRowsParameters): OhlcvRow[] {
  const source = seconds < 3600 ? state.minutes : state.hours
  const joined: ChainCandle[] = []
  for (const candle of source) {
    const t = Math.floor(candle.t / seconds) * seconds
    const current = joined.at(-1)
    if (!current || current.t !== t) {
      joined.push({ ...candle, t })
      continue
    }
    if (compareDecimals(candle.h, current.h) > 0) current.h = candle.h
    if (compareDecimals(candle.l, current.l) < 0) current.l = candle.l
    current.c = candle.c
    current.v = (BigInt(current.v) + BigInt(candle.v)).toString()
    current.n += candle.n
    current.u = candle.u ?? current.u
  }
  const fallbackUsd = state.wethUsd ?? [...source].reverse().find((c) => c.u)?.u ?? null
  if (currency === 'usd' && !fallbackUsd) return []
  const rows: OhlcvRow[] = joined.map((c) => {
    const eth = weiToEth(BigInt(c.v))
    if (currency === 'token') return [c.t, Number(c.o), Number(c.h), Number(c.l), Number(c.c), Number(eth)]
    const usd = c.u ?? fallbackUsd!
    const at = (price: string) => Number(multiplyDecimals(price, usd))
    return [c.t, at(c.o), at(c.h), at(c.l), at(c.c), Number(multiplyDecimals(eth, usd))]
  })
  return rows
    .filter((row) => before === null || row[0] < before)
    .reverse()
    .slice(0, limit)
}

/** A swap of a launch's pool as the stream's `trade` event says it. */
export type TradeEvent = {
  kind: 'trade'
  /** The token (lower-case) and its pool. */
  token: string
  poolId: string
  /** buy: ETH paid in for the token; sell: the token paid in for ETH. */
  side: 'buy' | 'sell'
  /** ETH and tokens that changed hands, decimal strings of whole units (exact). */
  amountEth: string
  amountToken: string
  /** The token's price in ETH after the swap. */
  priceEth: string
  txHash: string
  blockNumber: string
  logIndex: number
  /** The block's time (ISO 8601) when the node gave it; null otherwise. */
  at: string | null
}

/** One decoded swap, as {@link tradeEventsOf} reads it. */
export type TradeSwap = {
  poolId: string
  amount0: bigint
  amount1: bigint
  sqrtPriceX96: bigint
  txHash: string
  blockNumber: bigint
  logIndex: number
  blockTimestamp: number | null
}

/** Base units as a decimal string of whole units, exactly. */
function unitsToDecimal(units: bigint, decimals: number): string {
  return units === 0n ? '0' : decimals === 0 ? units.toString() : placeDecimal(units, decimals)
}

/**
 * Swaps of launched pools as `trade` events (pure), in the order given; a swap of a pool not among `launches` is left
 * out. The swapper paying ETH in (amount0 < 0) is a buy.
 */
export function tradeEventsOf(
  swaps: readonly TradeSwap[],
  launches: ReadonlyMap<string, Pick<ChainLaunch, 'token' | 'decimals'>>,
): TradeEvent[] {
  const events: TradeEvent[] = []
  for (const swap of swaps) {
    const launch = launches.get(swap.poolId.toLowerCase())
    if (!launch) continue
    const abs = (value: bigint) => (value < 0n ? -value : value)
    events.push({
      kind: 'trade',
      token: launch.token.toLowerCase(),
      poolId: swap.poolId.toLowerCase(),
      side: swap.amount0 < 0n ? 'buy' : 'sell',
      amountEth: weiToEth(abs(swap.amount0)),
      amountToken: unitsToDecimal(abs(swap.amount1), launch.decimals),
      priceEth: tokenPriceEth(swap.sqrtPriceX96, launch.decimals),
      txHash: swap.txHash,
      blockNumber: swap.blockNumber.toString(),
      logIndex: swap.logIndex,
      at: swap.blockTimestamp === null ? null : new Date(swap.blockTimestamp * 1000).toISOString(),
    })
  }
  return events
}
