// The call that collects a launch position's fees to its owner, as Uniswap's SDK writes it: the PositionManager's
// `modifyLiquidities` with DECREASE_LIQUIDITY of 0 (which settles the fees the position earned) then TAKE_PAIR of
// both currencies to the recipient (V4PositionManager.collectCallParameters). Pure.
import type { Address, Hex } from 'viem'
import { currenciesOf, NO_HOOKS } from './poolSeed.js'
import { uniswapSdk } from './uniswapSdk.js'

/** One call in the shape of EIP-5792 `wallet_sendCalls`: `value` in wei as a 0x hex quantity. */
export type PreparedCall = { to: Address; data: Hex; value: Hex }

/** Parameters of {@link collectFeesCall}. */
export type CollectFeesCallParameters = {
  positionManager: Address
  token: Address
  decimals: number
  fee: number
  tickSpacing: number
  tickLower: number
  tickUpper: number
  positionId: bigint
  /** The position's liquidity and the pool's state (positionFees.ts), which the SDK's entities are built from. */
  liquidity: bigint
  sqrtPriceX96: bigint
  tick: number
  poolLiquidity: bigint
  /** Who receives the fees: the position's owner. */
  recipient: Address
  /** Epoch seconds after which the PositionManager refuses the call. */
  deadline: bigint
}

/** The PositionManager call that collects the position's fees to `recipient` (no ETH sent with it). */
export function collectFeesCall(parameters: CollectFeesCallParameters): PreparedCall {
  const { positionManager, token, decimals, fee, tickSpacing, tickLower, tickUpper, positionId } = parameters
  const { Pool, Position, V4PositionManager } = uniswapSdk<typeof import('@uniswap/v4-sdk')>('@uniswap/v4-sdk')
  const { Percent } = uniswapSdk<typeof import('@uniswap/sdk-core')>('@uniswap/sdk-core')
  const { eth, token: currency } = currenciesOf(token, decimals)
  const pool = new Pool(
    eth,
    currency,
    fee,
    tickSpacing,
    NO_HOOKS,
    parameters.sqrtPriceX96.toString(),
    parameters.poolLiquidity.toString(),
    parameters.tick,
  )
  const position = new Position({ pool, liquidity: parameters.liquidity.toString(), tickLower, tickUpper })
  const { calldata, value } = V4PositionManager.collectCallParameters(position, {
    tokenId: positionId.toString(),
    recipient: parameters.recipient,
    deadline: parameters.deadline.toString(),
    // A collect takes no liquidity out, so no amount can slip: the SDK asks for a tolerance all the same.
    slippageTolerance: new Percent(0),
  })
  return { to: positionManager, data: calldata as Hex, value: value as Hex }
}
