import type { ChainLaunch } from '../market/chainMarketState.js'
import { tokenPriceEth, unitsToDecimal, weiToEth } from '../market/poolPrice.js'

// The stream's `trade` events (pure): a swap of a launched pool, read from its Swap log, said as buy or sell with its
// amounts in whole units and the price after it.

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
