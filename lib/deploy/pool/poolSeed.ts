// A launch's Uniswap v4 pool as it will be born: the key and id, the first price, the single-sided range and its
// liquidity, and the PositionManager calldata that makes it. Every price, tick and liquidity figure comes from
// Uniswap's own SDK; this module only chooses (the range, the bounds) and encodes.
import { type Address, encodeFunctionData, getAddress, type Hex, parseAbi } from 'viem'
import { accepted, type Result, refused } from '../../platform/result.js'
import type { PoolFee } from './poolFields.js'
import { uniswapSdk } from './uniswapSdk.js'

/** The parts of Uniswap's SDKs a seed uses, loaded on first use ({@link uniswapSdk}). */
const uniswap = () => ({
  ...uniswapSdk<Pick<typeof import('@uniswap/sdk-core'), 'Ether' | 'Token'>>('@uniswap/sdk-core'),
  ...uniswapSdk<Pick<typeof import('@uniswap/v3-sdk'), 'encodeSqrtRatioX96' | 'nearestUsableTick' | 'TickMath'>>('@uniswap/v3-sdk'),
  ...uniswapSdk<Pick<typeof import('@uniswap/v4-sdk'), 'Pool' | 'Position' | 'V4PositionManager' | 'V4PositionPlanner'>>('@uniswap/v4-sdk'),
})

/** Base's chain id: the SDK's currencies carry one. */
const BASE_CHAIN_ID = 8453
/** No hook: the pool is a plain Uniswap v4 pool. */
export const NO_HOOKS: Address = '0x0000000000000000000000000000000000000000'

/** The PositionManager functions a seed calls (v4-periphery's IPositionManager, IPoolInitializer_v4, IMulticall_v4). */
export const positionManagerAbi = parseAbi([
  'function multicall(bytes[] data) payable returns (bytes[] results)',
  'function modifyLiquidities(bytes unlockData, uint256 deadline) payable',
  'function initializePool((address currency0, address currency1, uint24 fee, int24 tickSpacing, address hooks) key, uint160 sqrtPriceX96) payable returns (int24)',
  'function nextTokenId() view returns (uint256)',
  'function getPositionLiquidity(uint256 tokenId) view returns (uint128)',
  'function ownerOf(uint256 tokenId) view returns (address)',
])

/** A v4 pool key; native ETH is `currency0` (address zero sorts first). */
export type LaunchPoolKey = { currency0: Address; currency1: Address; fee: PoolFee; tickSpacing: number; hooks: Address }

/** Parameters of {@link launchPoolKey}. */
export type LaunchPoolKeyParameters = { token: Address; decimals: number; fee: PoolFee; tickSpacing: number }

/** The SDK's pool entity's currencies for a token paired with native ETH. */
export const currenciesOf = (token: Address, decimals: number) => {
  const { Ether, Token } = uniswap()
  return { eth: Ether.onChain(BASE_CHAIN_ID), token: new Token(BASE_CHAIN_ID, token, decimals) }
}

/** A launch's pool key and id (`keccak256(abi.encode(key))`, the id DexScreener and GeckoTerminal show). */
export function launchPoolKey({ token, decimals, fee, tickSpacing }: LaunchPoolKeyParameters): { key: LaunchPoolKey; poolId: Hex } {
  const { Pool } = uniswap()
  const { eth, token: currency } = currenciesOf(token, decimals)
  const key = Pool.getPoolKey(eth, currency, fee, tickSpacing, NO_HOOKS)
  return {
    key: { currency0: getAddress(key.currency0), currency1: getAddress(key.currency1), fee, tickSpacing, hooks: NO_HOOKS },
    poolId: Pool.getPoolId(eth, currency, fee, tickSpacing, NO_HOOKS) as Hex,
  }
}

/** Parameters of {@link planPoolSeed}. */
export type PlanPoolSeedParameters = {
  /** The token's address (predicted before it exists) and decimals. */
  token: Address
  decimals: number
  /** Base units of the token placed in the pool. */
  amount: bigint
  /** The token's fully diluted value at the first price, in wei, over `wholeSupply` base units. */
  startingMarketCapWei: bigint
  wholeSupply: bigint
  fee: PoolFee
  tickSpacing: number
  /** Who receives the position's ERC-721. */
  owner: Address
  /** Unix seconds after which the PositionManager refuses the mint. */
  deadline: bigint
}

/** A pool seed, ready to sign: what the answer shows and the calldata that makes it. */
export type PoolSeed = {
  key: LaunchPoolKey
  poolId: Hex
  /** The first price: the starting market cap's, moved to the nearest usable tick so the range starts exactly there. */
  sqrtPriceX96: bigint
  tick: number
  tickLower: number
  tickUpper: number
  liquidity: bigint
  /** Base units the mint may take at most: the pool's share asked for. */
  amount: bigint
  /**
   * Base units the mint takes, exactly (the SDK rounds as the PositionManager does): at most `amount`, the liquidity
   * being rounded down. Minting exactly this to the payer at birth leaves the payer nothing once the pool is seeded.
   */
  taken: bigint
  owner: Address
  /** `PositionManager.initializePool(key, sqrtPriceX96)`: a no-op answering type(int24).max when the pool exists. */
  initializePool: Hex
  /** `PositionManager.modifyLiquidities`: MINT_POSITION with an ETH bound of 0, then SETTLE_PAIR. */
  modifyLiquidities: Hex
  /** Both in one `PositionManager.multicall`: the transaction that seeds the pool. */
  multicall: Hex
}

/** Why a seed cannot be planned, field-named as the request's `details`. */
export type PoolSeedRefusal = { code: 'INVALID_POOL'; details: { field: string; reason: string }[] }

/**
 * Plans a launch's pool: the key (ETH as currency0, the token as currency1, no hooks), the first price as
 * `wholeSupply` tokens per `startingMarketCapWei` moved to the nearest usable tick, and one position holding only the
 * token, from that tick down to the lowest usable tick (buyers move the price down into it: a token1-only range lies
 * below the current tick). The mint's ETH bound is 0, so if someone initialised the pool first at a price inside the
 * range the mint reverts instead of selling the token cheaply.
 */
export function planPoolSeed(parameters: PlanPoolSeedParameters): Result<{ seed: PoolSeed }, 'INVALID_POOL', PoolSeedRefusal> {
  const { token, decimals, amount, startingMarketCapWei, wholeSupply, fee, tickSpacing, owner, deadline } = parameters
  const problem = (field: string, reason: string) => refused('INVALID_POOL', { details: [{ field, reason }] })
  const { encodeSqrtRatioX96, nearestUsableTick, TickMath, Pool, Position, V4PositionManager, V4PositionPlanner } = uniswap()
  const exact = encodeSqrtRatioX96(wholeSupply.toString(), startingMarketCapWei.toString())
  if (
    BigInt(exact.toString()) < BigInt(TickMath.MIN_SQRT_RATIO.toString()) ||
    BigInt(exact.toString()) >= BigInt(TickMath.MAX_SQRT_RATIO.toString())
  )
    return problem('pool.startingMarketCapEth', 'gives a first price outside what a Uniswap v4 pool can hold for this supply')
  const tickLower = nearestUsableTick(TickMath.MIN_TICK, tickSpacing)
  const tick = nearestUsableTick(TickMath.getTickAtSqrtRatio(exact), tickSpacing)
  if (tick <= tickLower)
    return problem('pool.startingMarketCapEth', 'is too high for this supply: the first price leaves no room for a range below it')
  const sqrtPriceX96 = TickMath.getSqrtRatioAtTick(tick)
  const { eth, token: currency } = currenciesOf(token, decimals)
  const pool = new Pool(eth, currency, fee, tickSpacing, NO_HOOKS, sqrtPriceX96, 0, tick)
  const position = Position.fromAmount1({ pool, tickLower, tickUpper: tick, amount1: amount.toString() })
  const liquidity = BigInt(position.liquidity.toString())
  if (liquidity === 0n) return problem('pool.amount', 'is too small to make any liquidity at this price')
  const { key, poolId } = launchPoolKey({ token, decimals, fee, tickSpacing })
  const planner = new V4PositionPlanner()
  planner.addMint(pool, tickLower, tick, liquidity.toString(), 0, amount.toString(), owner)
  planner.addSettlePair(eth, currency)
  const initializePool = V4PositionManager.createCallParameters(Pool.getPoolKey(eth, currency, fee, tickSpacing, NO_HOOKS), sqrtPriceX96)
    .calldata as Hex
  const modifyLiquidities = V4PositionManager.encodeModifyLiquidities(planner.finalize(), deadline.toString()) as Hex
  return accepted({
    seed: {
      key,
      poolId,
      sqrtPriceX96: BigInt(sqrtPriceX96.toString()),
      tick,
      tickLower,
      tickUpper: tick,
      liquidity,
      amount,
      taken: BigInt(position.mintAmounts.amount1.toString()),
      owner,
      initializePool,
      modifyLiquidities,
      multicall: encodeFunctionData({ abi: positionManagerAbi, functionName: 'multicall', args: [[initializePool, modifyLiquidities]] }),
    },
  })
}
