import type { Hex } from 'viem'
import type { DeployServices } from '../deploy/services.js'
import type { ChainLaunch } from '../market/chainMarketState.js'
import { readPoolSwaps } from './poolSwaps.js'
import { readPooledLaunches } from './swapFollow.js'
import { type TradeEvent, tradeEventsOf } from './tradeEvents.js'

// How a stream reads the launches' trades from the chain (the trade watch's holder, tradeWatch.ts): the launched pools'
// swaps since a cursor, up to the head, unconfirmed blocks included, as `trade` events.

/** Where a reader of trades stands: the block to read from, and the last swap sent in it (null: none yet). */
export type TradesCursor = { fromBlock: bigint; after: { blockNumber: bigint; logIndex: number } | null }

/** Parameters of {@link readLaunchTrades}. */
export type ReadLaunchTradesParameters = {
  client: Pick<DeployServices['publicClient'], 'request'>
  poolManager: `0x${string}`
  /** The launches followed, by pool id (swapFollow.ts's `pooledLaunches`). */
  launches: ReadonlyMap<string, Pick<ChainLaunch, 'token' | 'decimals'>>
  /** Where the last read ended (a first read: the head's number and null). */
  cursor: TradesCursor
}

/**
 * The launches' swaps since the cursor, up to the head, as `trade` events, in one `eth_getLogs` (none without launches),
 * and the cursor after them. The next read starts at the block of the last swap sent (never past the head, which nodes
 * refuse) and skips what was sent. For the stream: unconfirmed blocks included, so a trade shows within a block; the
 * tick's follow, which stays behind the head, is what counts the market.
 */
export async function readLaunchTrades({
  client,
  poolManager,
  launches,
  cursor,
}: ReadLaunchTradesParameters): Promise<{ trades: TradeEvent[]; cursor: TradesCursor }> {
  const swaps = await readPoolSwaps({
    client,
    poolManager,
    poolIds: [...launches.keys()] as Hex[],
    fromBlock: cursor.fromBlock,
    toBlock: 'latest',
  })
  const { after } = cursor
  const fresh = swaps.filter(
    (swap) => !after || swap.blockNumber > after.blockNumber || (swap.blockNumber === after.blockNumber && swap.logIndex > after.logIndex),
  )
  const last = fresh.at(-1)
  return {
    trades: tradeEventsOf(fresh, launches),
    cursor: last ? { fromBlock: last.blockNumber, after: { blockNumber: last.blockNumber, logIndex: last.logIndex } } : cursor,
  }
}

/** How a stream reads the launches' trades from the chain: the pooled launches, the head, and the trades since. */
export type LaunchTradeReader = {
  /** The pooled launches followed, by pool id (one store read). */
  launches(): Promise<Map<string, ChainLaunch>>
  /** The chain's head block number (one RPC call). */
  head(): Promise<bigint>
  /** The trades since `cursor`, up to the head, in one `eth_getLogs` (see {@link readLaunchTrades}). */
  read(launches: ReadonlyMap<string, ChainLaunch>, cursor: TradesCursor): Promise<{ trades: TradeEvent[]; cursor: TradesCursor }>
}

/** A {@link LaunchTradeReader} over the deploy side's store, chain client and PoolManager. */
export function launchTradeReader(services: Pick<DeployServices, 'store' | 'config' | 'publicClient'>): LaunchTradeReader {
  const { store, config, publicClient } = services
  return {
    launches: async () => (store ? readPooledLaunches(store, config.storePrefix, config.chainId) : new Map()),
    head: () => publicClient.getBlockNumber({ cacheTime: 0 }),
    read: (launches, cursor) => readLaunchTrades({ client: publicClient, poolManager: config.uniswapV4.poolManager, launches, cursor }),
  }
}
