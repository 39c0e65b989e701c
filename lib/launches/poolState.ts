import { type Hex, parseAbi } from 'viem'
import type { DeployServices } from '../deploy/services.js'
import type { PoolRead } from '../market/chainMarketState.js'

// A launched pool as Uniswap v4's StateView says it (UNISWAP_V4_STATE_VIEW): its price and tick (`getSlot0`) and its
// in-range liquidity (`getLiquidity`), at one block. Two `eth_call`s a pool, made when a launch is seen confirmed and
// by the tick for a pool that traded: never per request.

/** What the service reads of StateView (v4-periphery's `IStateView`). */
export const stateViewAbi = parseAbi([
  'function getSlot0(bytes32 poolId) view returns (uint160 sqrtPriceX96, int24 tick, uint24 protocolFee, uint24 lpFee)',
  'function getLiquidity(bytes32 poolId) view returns (uint128 liquidity)',
])

/** Parameters of {@link readPoolState}. */
export type ReadPoolStateParameters = {
  client: Pick<DeployServices['publicClient'], 'readContract'>
  stateView: `0x${string}`
  poolId: Hex
  /** The block to read at: both calls see the same state. */
  blockNumber: bigint
}

/** The pool at `blockNumber`, in two `eth_call`s at once (a price of 0: the pool is not initialised there). */
export async function readPoolState({ client, stateView, poolId, blockNumber }: ReadPoolStateParameters): Promise<PoolRead> {
  const [[sqrtPriceX96, tick], liquidity] = await Promise.all([
    client.readContract({ address: stateView, abi: stateViewAbi, functionName: 'getSlot0', args: [poolId], blockNumber }),
    client.readContract({ address: stateView, abi: stateViewAbi, functionName: 'getLiquidity', args: [poolId], blockNumber }),
  ])
  return { sqrtPriceX96, tick, liquidity, block: blockNumber }
}
