// The Uniswap v4 PoolManager's `Swap` events of chosen pools: one `eth_getLogs` filtered by their ids (topic 1),
// whatever the number of pools, decoded by the event's own ABI.
import { type Address, decodeEventLog, type Hex, type Log, type PublicClient, parseAbiItem, toEventSelector } from 'viem'

/** The PoolManager's `Swap` event (v4-core's IPoolManager). */
export const swapEvent = parseAbiItem(
  'event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)',
)

/** Topic 0 of {@link swapEvent}. */
export const SWAP_TOPIC: Hex = toEventSelector(swapEvent)

/**
 * One swap as the PoolManager logged it. Amounts are the swapper's balance changes seen from the pool: negative is
 * what the swapper paid in, positive what it took out; `sqrtPriceX96` and `tick` are the pool's after the swap.
 */
export type PoolSwap = {
  poolId: Hex
  sender: Address
  amount0: bigint
  amount1: bigint
  sqrtPriceX96: bigint
  liquidity: bigint
  tick: number
  fee: number
  blockNumber: bigint
  logIndex: number
  txHash: Hex
  /** The block's time (unix seconds) when the node puts it on the log; null otherwise. */
  blockTimestamp: number | null
}

/** A log as a node answers `eth_getLogs` (viem's shape, `blockTimestamp` included where the node sends it). */
export type RawSwapLog = Pick<Log<bigint, number, false>, 'topics' | 'data' | 'blockNumber' | 'logIndex' | 'transactionHash'> & {
  blockTimestamp?: bigint | Hex | number | null
}

/**
 * Decodes PoolManager logs into swaps (pure), in chain order (block, then log index). A log that is not a `Swap`, or
 * does not decode, is left out: a filter by topic only ever hands in swaps, so nothing is lost.
 */
export function decodeSwapLogs(logs: readonly RawSwapLog[]): PoolSwap[] {
  const swaps: PoolSwap[] = []
  for (const log of logs) {
    if (log.topics[0]?.toLowerCase() !== SWAP_TOPIC || log.blockNumber === null || log.logIndex === null || !log.transactionHash) continue
    let args: ReturnType<typeof decodeEventLog<[typeof swapEvent]>>['args']
    try {
      args = decodeEventLog({ abi: [swapEvent], topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true }).args
    } catch {
      continue
    }
    const stamp = log.blockTimestamp
    swaps.push({
      poolId: args.id.toLowerCase() as Hex,
      sender: args.sender,
      amount0: args.amount0,
      amount1: args.amount1,
      sqrtPriceX96: args.sqrtPriceX96,
      liquidity: args.liquidity,
      tick: args.tick,
      fee: args.fee,
      blockNumber: log.blockNumber,
      logIndex: log.logIndex,
      txHash: log.transactionHash,
      blockTimestamp: stamp === undefined || stamp === null ? null : Number(BigInt(stamp)),
    })
  }
  return swaps.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1))
}

/** Parameters of {@link readPoolSwaps}. */
export type ReadPoolSwapsParameters = {
  client: Pick<PublicClient, 'request'>
  poolManager: Address
  /** The pools followed (32-byte ids); none reads nothing. */
  poolIds: readonly Hex[]
  fromBlock: bigint
  /** The last block read; `latest`: up to the head (a stream's look, which needs no range of its own). */
  toBlock: bigint | 'latest'
}

/**
 * The swaps of `poolIds` in a block range, in one `eth_getLogs` (topic 0 the event, topic 1 any of the ids); no call
 * when no pool is followed, since an empty topic list would match every pool on the chain.
 */
export async function readPoolSwaps({ client, poolManager, poolIds, fromBlock, toBlock }: ReadPoolSwapsParameters): Promise<PoolSwap[]> {
  if (poolIds.length === 0 || (toBlock !== 'latest' && toBlock < fromBlock)) return []
  const logs = (await client.request({
    method: 'eth_getLogs',
    params: [
      {
        address: poolManager,
        topics: [SWAP_TOPIC, poolIds.map((id) => id.toLowerCase() as Hex)],
        fromBlock: `0x${fromBlock.toString(16)}`,
        toBlock: toBlock === 'latest' ? 'latest' : `0x${toBlock.toString(16)}`,
      },
    ],
  })) as readonly RpcLog[]
  return decodeSwapLogs(logs.map(fromRpcLog))
}

/** A log as JSON-RPC sends it: quantities in hex. */
type RpcLog = {
  topics: Hex[]
  data: Hex
  blockNumber: Hex | null
  logIndex: Hex | null
  transactionHash: Hex | null
  blockTimestamp?: Hex | null
}

/** Reads a JSON-RPC log's quantities (pure). */
export function fromRpcLog(log: RpcLog): RawSwapLog {
  return {
    topics: log.topics as RawSwapLog['topics'],
    data: log.data,
    blockNumber: log.blockNumber === null ? null : BigInt(log.blockNumber),
    logIndex: log.logIndex === null ? null : Number(BigInt(log.logIndex)),
    transactionHash: log.transactionHash,
    blockTimestamp: log.blockTimestamp ?? null,
  } as RawSwapLog
}
