import { z } from 'zod'

// What is kept of a launch's market as its own pool tells it (the tick's follow writes it, the feed and the candles'
// reader read it): the pool's last price, and minute and hour candles with prices as decimal strings and volumes as wei.

/** How long minute candles are kept (the 24 h volume and trade count are read from them). */
export const MINUTE_CANDLES_KEEP_SECONDS = 86_400
/** How long hour candles are kept (hour and day candles are drawn from them). */
export const HOUR_CANDLES_KEEP_SECONDS = 30 * 86_400

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
  /** Unix seconds of the first and the last swap counted; null before the first swap (a pool known from its birth). */
  firstTradeAt: number | null
  lastTradeAt: number | null
  /** Unix seconds the service first knew the pool's price: its birth read, else its first swap (older states lack it). */
  seenAt?: number
  /**
   * The pool's in-range liquidity L as StateView's `getLiquidity` said it (uint128, decimal string) at `readBlock`; 0 at
   * birth, when the current tick sits at the position's edge. Absent: never read.
   */
  liquidity?: string
  /** The current tick as StateView's `getSlot0` said it at `readBlock`. */
  tick?: number
  /** The block StateView was last read at (decimal string). */
  readBlock?: string
  /** Base units of the token's whole supply (the cap, else what was minted at birth): what the market cap is over. */
  supply?: string
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
  firstTradeAt: z.number().nullable(),
  lastTradeAt: z.number().nullable(),
  seenAt: z.number().optional(),
  liquidity: z.string().regex(/^\d+$/).optional(),
  tick: z.number().int().optional(),
  readBlock: z.string().regex(/^\d+$/).optional(),
  supply: z.string().regex(/^\d+$/).optional(),
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
export type ChainLaunch = {
  token: string
  poolId: string
  decimals: number
  /** The pool's first price. */
  sqrtPriceX96: string
  /** Base units of the token's whole supply (the cap, else what was minted at birth); absent: unknown. */
  supply?: string
}

/** The pool as Uniswap's StateView says it at a block: `getSlot0`'s price and tick, `getLiquidity`'s in-range L. */
export type PoolRead = { sqrtPriceX96: bigint; tick: number; liquidity: bigint; block: bigint }
