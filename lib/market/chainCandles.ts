import type { OhlcvRow } from '../upstream/geckoOhlcv.js'
import {
  type ChainCandle,
  type ChainLaunch,
  type ChainMarketState,
  type ChainSwap,
  HOUR_CANDLES_KEEP_SECONDS,
  MINUTE_CANDLES_KEEP_SECONDS,
} from './chainMarketState.js'
import { compareDecimals, multiplyDecimals, tokenPriceEth, weiToEth } from './poolPrice.js'

// A launch's market as its own Uniswap v4 pool tells it, before any aggregator has the pool (pure): the swaps bucketed
// into minute and hour candles (chainMarketState.ts keeps them), and the market and candles answered from them. The
// launches' tick job (lib/launches/swapFollow.ts) runs it; the feed and token-ohlcv read what it kept.

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
