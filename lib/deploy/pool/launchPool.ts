// A pooled launch's pool, as the deploy sends it: the seed planned from Uniswap's SDK (poolSeed.ts), the three
// transactions that follow the token's creation on the signer's next nonces (approve Permit2, Permit2's approval of
// the PositionManager, the PositionManager's multicall that initialises the pool and mints the position), and the pool
// as every answer shows it. The token mints the pool's share to the signer at birth; these spend exactly that.
import { type Address, formatUnits, type Hex } from 'viem'
import { accepted, type Result, refused } from '../../platform/result.js'
import type { UniswapV4Addresses } from './addresses.js'
import { encodePoolApprovals } from './permit2.js'
import { type MarketCapBounds, type PoolIntent, startingMarketCapProblem } from './poolFields.js'
import { type PoolSeed, type PoolSeedRefusal, planPoolSeed } from './poolSeed.js'
import { type StartValuation, startValuation } from './startPrice.js'

/** How long the seed's mint and Permit2's allowance stay good after planning: a stuck seed re-signed within it still mints. */
export const POOL_SEED_DEADLINE_SECONDS = 3600

/** One transaction of a launch's seed, from the signer. */
export type SeedTransaction = { to: Address; data: Hex }

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

/** A launch's pool, planned: the seed, its transactions in nonce order, and its view. */
export type LaunchPool = { seed: PoolSeed; transactions: [SeedTransaction, SeedTransaction, SeedTransaction]; view: LaunchPoolView }

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
  const [approvePermit2, approvePositionManager] = encodePoolApprovals({
    token,
    amount: seed.taken,
    permit2: addresses.permit2,
    positionManager: addresses.positionManager,
    expiration: deadline,
  }) as [SeedTransaction, SeedTransaction]
  return accepted({
    launch: {
      seed,
      transactions: [approvePermit2, approvePositionManager, { to: addresses.positionManager, data: seed.multicall }],
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
