// A launch's position as the chain has it at one block: its owner, liquidity, the pool's price, and the fees its owner
// would receive by collecting now. StateView gives the position's last fee growth and the pool's current growth
// inside its range; Uniswap's SDK turns them into amounts (the arithmetic of the pool's own Position.update), so the
// figure is what a collect delivers, to the wei, while nobody trades in between.
import { type Address, formatUnits, getAddress, type Hex, type PublicClient, parseAbi, toHex } from 'viem'
import { MULTICALL3_ADDRESS } from '../../chain/tokenPowers.js'
import { tokenPriceEth } from '../../market/poolPrice.js'
import { sdkJsbi, uniswapSdk } from './uniswapSdk.js'

/** What is read of StateView and the PositionManager (v4-periphery's). */
export const positionReadsAbi = parseAbi([
  'function getSlot0(bytes32 poolId) view returns (uint160 sqrtPriceX96, int24 tick, uint24 protocolFee, uint24 lpFee)',
  'function getLiquidity(bytes32 poolId) view returns (uint128 liquidity)',
  'function getPositionInfo(bytes32 poolId, address owner, int24 tickLower, int24 tickUpper, bytes32 salt) view returns (uint128 liquidity, uint256 feeGrowthInside0LastX128, uint256 feeGrowthInside1LastX128)',
  'function getFeeGrowthInside(bytes32 poolId, int24 tickLower, int24 tickUpper) view returns (uint256 feeGrowthInside0X128, uint256 feeGrowthInside1X128)',
  'function ownerOf(uint256 tokenId) view returns (address)',
])

/** Fees a position's owner would receive by collecting: whole units as decimal strings, and base units as integers. */
export type FeesOwed = { eth: string; token: string; ethWei: string; tokenUnits: string }

/** A launch's position at one block. */
export type PositionState = {
  poolId: Hex
  positionId: string
  /** Who holds the position's ERC-721 now (it can be transferred): who may collect. */
  owner: Address
  /** The position's liquidity (the SDK's units, an integer string). */
  liquidity: string
  /** The token's price in ETH after the last trade, exact to 18 significant digits. */
  priceEth: string
  feesOwed: FeesOwed
  /** What the SDK's position entity needs (collectCalls.ts): the pool's state at that block. */
  sqrtPriceX96: bigint
  tick: number
  poolLiquidity: bigint
}

/** Parameters of {@link readPositionState}. */
export type ReadPositionStateParameters = {
  client: PublicClient
  stateView: Address
  positionManager: Address
  poolId: Hex
  positionId: bigint
  tickLower: number
  tickUpper: number
  /** The token's decimals (the pool's currency1; currency0 is native ETH). */
  decimals: number
  blockNumber: bigint
}

/**
 * Reads the position at `blockNumber` in one eth_call (Multicall3): the pool's price and liquidity, the position's
 * liquidity and last fee growth (a PositionManager position sits in the PoolManager under owner = the PositionManager
 * and salt = its token id), the growth inside its range now, and its owner; the fees owed are the SDK's.
 */
export async function readPositionState(parameters: ReadPositionStateParameters): Promise<PositionState> {
  const { client, stateView, positionManager, poolId, positionId, tickLower, tickUpper, decimals, blockNumber } = parameters
  const salt = toHex(positionId, { size: 32 })
  const [slot0, poolLiquidity, position, inside, owner] = (await client.multicall({
    multicallAddress: MULTICALL3_ADDRESS,
    blockNumber,
    allowFailure: false,
    contracts: [
      { address: stateView, abi: positionReadsAbi, functionName: 'getSlot0', args: [poolId] },
      { address: stateView, abi: positionReadsAbi, functionName: 'getLiquidity', args: [poolId] },
      {
        address: stateView,
        abi: positionReadsAbi,
        functionName: 'getPositionInfo',
        args: [poolId, positionManager, tickLower, tickUpper, salt],
      },
      { address: stateView, abi: positionReadsAbi, functionName: 'getFeeGrowthInside', args: [poolId, tickLower, tickUpper] },
      { address: positionManager, abi: positionReadsAbi, functionName: 'ownerOf', args: [positionId] },
    ],
  })) as unknown as [
    readonly [bigint, number, number, number],
    bigint,
    readonly [bigint, bigint, bigint],
    readonly [bigint, bigint],
    Address,
  ]
  const [liquidity, last0, last1] = position
  const [ethWei, tokenUnits] = feesOwedUnits({ liquidity, last: [last0, last1], now: inside })
  return {
    poolId,
    positionId: positionId.toString(),
    owner: getAddress(owner),
    liquidity: liquidity.toString(),
    priceEth: tokenPriceEth(slot0[0], decimals),
    feesOwed: {
      eth: formatUnits(ethWei, 18),
      token: formatUnits(tokenUnits, decimals),
      ethWei: ethWei.toString(),
      tokenUnits: tokenUnits.toString(),
    },
    sqrtPriceX96: slot0[0],
    tick: slot0[1],
    poolLiquidity,
  }
}

/** Parameters of {@link feesOwedUnits}: the position's liquidity, its last fee growth per currency, and the growth now. */
export type FeesOwedUnitsParameters = { liquidity: bigint; last: readonly [bigint, bigint]; now: readonly [bigint, bigint] }

/**
 * The base units a collect would pay per currency (pure): the SDK's `PositionLibrary.getTokensOwed`, the arithmetic of
 * the pool's Position.update ((growth now - last, modulo 2^256) × liquidity / 2^128, rounded down).
 */
export function feesOwedUnits({ liquidity, last, now }: FeesOwedUnitsParameters): [bigint, bigint] {
  const JSBI = sdkJsbi()
  const { PositionLibrary } = uniswapSdk<typeof import('@uniswap/v3-sdk')>('@uniswap/v3-sdk')
  const big = (value: bigint) => JSBI.BigInt(value.toString())
  const [owed0, owed1] = PositionLibrary.getTokensOwed(big(last[0]), big(last[1]), big(liquidity), big(now[0]), big(now[1]))
  return [BigInt(owed0!.toString()), BigInt(owed1!.toString())]
}
