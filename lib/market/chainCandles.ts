import type { OhlcvRow } from '../upstream/geckoOhlcv.js'
import {
  type ChainCandle,
  type ChainLaunch,
  type ChainMarketState,
  type ChainSwap,
  HOUR_CANDLES_KEEP_SECONDS,
  MINUTE_CANDLES_KEEP_SECONDS,
  type PoolRead,
} from './chainMarketState.js'
import { compareDecimals, multiplyDecimals, tokenPriceEth, tokenValueEth, weiToEth } from './poolPrice.js'

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
    : { ...bornState(launch, BigInt(launch.sqrtPriceX96), wethUsd), seenAt: fresh[0]!.at }
  next.firstTradeAt ??= fresh[0]!.at
  for (const swap of fresh) {
    const before = next.priceEth
    const price = tokenPriceEth(swap.sqrtPriceX96, next.decimals)
    const wei = swap.amount0 < 0n ? -swap.amount0 : swap.amount0
    addToCandles(next.minutes, 60, swap.at, before, price, wei, wethUsd)
    addToCandles(next.hours, 3600, swap.at, before, price, wei, wethUsd)
    next.priceEth = price
    next.sqrtPriceX96 = swap.sqrtPriceX96.toString()
    next.lastTradeAt = Math.max(next.lastTradeAt ?? swap.at, swap.at)
    next.last = { block: swap.blockNumber.toString(), logIndex: swap.logIndex }
  }
  next.wethUsd = wethUsd ?? next.wethUsd
  next.minutes = next.minutes.filter((c) => c.t + 60 > now - MINUTE_CANDLES_KEEP_SECONDS)
  next.hours = next.hours.filter((c) => c.t + 3600 > now - HOUR_CANDLES_KEEP_SECONDS)
  return next
}

/** A launch's state before any swap: its pool at `sqrtPriceX96`, nothing traded (pure). */
function bornState(launch: ChainLaunch, sqrtPriceX96: bigint, wethUsd: string | null): ChainMarketState {
  return {
    token: launch.token.toLowerCase(),
    poolId: launch.poolId.toLowerCase(),
    decimals: launch.decimals,
    sqrtPriceX96: sqrtPriceX96.toString(),
    priceEth: tokenPriceEth(sqrtPriceX96, launch.decimals),
    wethUsd,
    firstTradeAt: null,
    lastTradeAt: null,
    last: { block: '0', logIndex: -1 },
    minutes: [],
    hours: [],
    ...(launch.supply ? { supply: launch.supply } : {}),
  }
}

/** Parameters of {@link withPoolRead}. */
export type WithPoolReadParameters = {
  state: ChainMarketState | null
  launch: ChainLaunch
  /** StateView's answer at a block. */
  read: PoolRead
  /** Unix seconds of the read (a state born of it is first seen then). */
  at: number
}

/**
 * The state after a read of the pool through StateView (pure): a launch with no state yet is born of it (its price
 * from `getSlot0`, nothing traded), so it has a market from the block its pool was made in; a known one takes the
 * read's liquidity and tick, and its price too unless a swap counted was later than the block read. Null only when
 * the pool has no price (not initialised).
 */
export function withPoolRead({ state, launch, read, at }: WithPoolReadParameters): ChainMarketState | null {
  if (read.sqrtPriceX96 === 0n) return state
  const pool = { liquidity: read.liquidity.toString(), tick: read.tick, readBlock: read.block.toString() }
  if (!state) return { ...bornState(launch, read.sqrtPriceX96, null), seenAt: at, ...pool }
  // A read older than what is kept says nothing new.
  if (state.readBlock !== undefined && BigInt(state.readBlock) > read.block) return state
  const price =
    read.block >= BigInt(state.last.block)
      ? { sqrtPriceX96: read.sqrtPriceX96.toString(), priceEth: tokenPriceEth(read.sqrtPriceX96, state.decimals) }
      : {}
  return { ...state, ...price, ...pool, ...(state.supply || !launch.supply ? {} : { supply: launch.supply }) }
}

/** A launch's market as its pool tells it (what `market` says with `source: "chain"`). */
export type ChainMarket = {
  source: 'chain'
  /** The pool id. */
  pairAddress: string
  dexId: 'uniswap'
  priceEth: string
  priceUsd: string | null
  /** The pool's in-range liquidity L as StateView last said it (Uniswap's unit, not USD); null: never read. */
  liquidity: number | null
  /** ETH the whole supply is worth at `priceEth`; null when the supply is unknown. */
  marketCapEth: string | null
  /** USD traded in the last 24 h (through WETH's price; 0 when unknown). */
  volume24h: number
  volume24hEth: string
  trades24h: number
  pairUrl: string
  firstSeenAt: string
  /** The last swap's time; null before the first. */
  lastTradeAt: string | null
}

/**
 * The market a state answers at `now` (unix seconds; pure): the 24 h volume and trades from the minute candles, in USD
 * through `wethUsd`, WETH's price in the control room now (not the one kept with the last swap, which goes stale in a
 * quiet pool; null: the USD figures are unknown).
 */
export function chainMarketOf(state: ChainMarketState, now: number, wethUsd: string | null): ChainMarket {
  const recent = state.minutes.filter((c) => c.t + 60 > now - MINUTE_CANDLES_KEEP_SECONDS)
  const wei = recent.reduce((sum, c) => sum + BigInt(c.v), 0n)
  const volume24hEth = weiToEth(wei)
  // First seen: at its birth read when there was one, else at its first swap.
  const seenAt = Math.min(state.seenAt ?? Number.POSITIVE_INFINITY, state.firstTradeAt ?? Number.POSITIVE_INFINITY)
  return {
    source: 'chain',
    pairAddress: state.poolId,
    dexId: 'uniswap',
    priceEth: state.priceEth,
    priceUsd: wethUsd ? multiplyDecimals(state.priceEth, wethUsd) : null,
    liquidity: state.liquidity === undefined ? null : Number(state.liquidity),
    marketCapEth: state.supply ? tokenValueEth(BigInt(state.sqrtPriceX96), BigInt(state.supply)) : null,
    volume24h: wethUsd ? Number(multiplyDecimals(volume24hEth, wethUsd)) : 0,
    volume24hEth,
    trades24h: recent.reduce((sum, c) => sum + c.n, 0),
    pairUrl: `https://dexscreener.com/base/${state.poolId}`,
    firstSeenAt: new Date((Number.isFinite(seenAt) ? seenAt : now) * 1000).toISOString(),
    lastTradeAt: state.lastTradeAt === null ? null : new Date(state.lastTradeAt * 1000).toISOString(),
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
