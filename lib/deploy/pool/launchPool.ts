// A pooled launch's pool, as the deploy sends it: the seed planned from Uniswap's SDK (poolSeed.ts), the four calls
// that follow the token's creation in the signer's one batch (approve Permit2, Permit2's approval of the
// PositionManager, the PoolManager's initialize, the PositionManager's mint), and the pool as every answer shows it.
// The token mints the pool's share to the signer at birth; these spend exactly that, in the same transaction.
import { type Address, encodeFunctionData, formatUnits, type Hex, parseAbi } from 'viem'
import type { BatchCall } from '../../chain/batchAccount.js'
import { accepted, type Result, refused } from '../../platform/result.js'
import type { UniswapV4Addresses } from './addresses.js'
import { encodePoolApprovals } from './permit2.js'
import { type MarketCapBounds, type PoolIntent, startingMarketCapProblem } from './poolFields.js'
import { type PoolSeed, type PoolSeedRefusal, planPoolSeed } from './poolSeed.js'
import { type StartValuation, startValuation } from './startPrice.js'

/** How long the seed's mint and Permit2's allowance stay good after planning: a stuck launch re-signed within it still mints. */
export const POOL_SEED_DEADLINE_SECONDS = 3600

/**
 * The PoolManager's own `initialize`: unlike the PositionManager's `initializePool` (a no-op on a pool that exists), it
 * reverts `PoolAlreadyInitialized()`, so a pool someone initialised first makes the whole launch revert.
 */
export const poolManagerInitializeAbi = parseAbi([
  'function initialize((address currency0, address currency1, uint24 fee, int24 tickSpacing, address hooks) key, uint160 sqrtPriceX96) returns (int24 tick)',
])

/** What each of a launch's seed calls does, for people, in batch order after the creation (index 1 on). */
export const SEED_CALL_STEPS = [
  'approving Permit2 on the token',
  'Permit2’s approval of the PositionManager',
  'the pool’s initialization',
  'the pool’s mint',
] as const

/** The pool as deploy answers, receipts and records show it (amounts as decimal strings). */
export type LaunchPoolView = {
  poolId: Hex
  currency0: Address
  currency1: Address
  fee: number
  tickSpacing: number
  hooks: Address
  sqrtPriceX96: string
  tickLower: number
  tickUpper: number
  /** Whole tokens the position holds at birth. */
  amount: string
  owner: Address
} & StartValuation

/** A launch's pool, planned: the seed, its calls in batch order (after the creation), the mint's deadline, its view. */
export type LaunchPool = { seed: PoolSeed; calls: BatchCall[]; deadline: bigint; view: LaunchPoolView }

/** Parameters of {@link planLaunchPool}. */
export type PlanLaunchPoolParameters = {
  pool: PoolIntent
  /** The token's predicted address and decimals. */
  token: Address
  decimals: number
  addresses: UniswapV4Addresses
  /** The starting market caps this deployment takes. */
  marketCap: MarketCapBounds
  /** Unix seconds now: the seed's deadline and Permit2's expiration are counted from it. */
  nowSeconds: number
}

/** Plans a launch's pool (pure): the seed from the SDK, its three transactions and the view; or why it cannot be. */
export function planLaunchPool(parameters: PlanLaunchPoolParameters): Result<{ launch: LaunchPool }, 'INVALID_POOL', PoolSeedRefusal> {
  const { pool, token, decimals, addresses, marketCap, nowSeconds } = parameters
  const capProblem = startingMarketCapProblem(pool.startingMarketCapWei, marketCap)
  if (capProblem) return refused('INVALID_POOL', { details: [capProblem] })
  const deadline = BigInt(nowSeconds + POOL_SEED_DEADLINE_SECONDS)
  const planned = planPoolSeed({ token, decimals, ...pool, deadline })
  if (!planned.ok) return planned
  const { seed } = planned
  const approvals = encodePoolApprovals({
    token,
    amount: seed.taken,
    permit2: addresses.permit2,
    positionManager: addresses.positionManager,
    expiration: deadline,
  })
  const initialize = encodeFunctionData({ abi: poolManagerInitializeAbi, functionName: 'initialize', args: [seed.key, seed.sqrtPriceX96] })
  const call = (target: Address, data: Hex): BatchCall => ({ target, value: 0n, data })
  return accepted({
    launch: {
      seed,
      calls: [
        ...approvals.map(({ to, data }) => call(to, data)),
        call(addresses.poolManager, initialize),
        call(addresses.positionManager, seed.modifyLiquidities),
      ],
      deadline,
      view: {
        poolId: seed.poolId,
        ...seed.key,
        sqrtPriceX96: seed.sqrtPriceX96.toString(),
        tickLower: seed.tickLower,
        tickUpper: seed.tickUpper,
        amount: formatUnits(seed.taken, decimals),
        owner: seed.owner,
        ...startValuation({ sqrtPriceX96: seed.sqrtPriceX96, decimals, wholeSupply: pool.wholeSupply }),
      },
    },
  })
}
