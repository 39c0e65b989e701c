// A launch position's fees, collected by its owner: the position belongs to the owner, so the service never sends
// this; it answers the call ready for the owner's wallet (EIP-5792 `wallet_sendCalls`'s shape), simulated from the
// owner's account first, with what it will deliver.
import { type Address, type Hex, BaseError as ViemBaseError } from 'viem'
import { type DeployFailure, failure } from '../outcome.js'
import { collectFeesCall, type PreparedCall } from '../pool/collectCalls.js'
import type { FeesOwed } from '../pool/positionFees.js'
import type { DeployServices } from '../services.js'
import { type FindLaunchRecord, readLaunchState } from './launchState.js'

/** How long prepared calls stay valid (the PositionManager's deadline): time for a person to approve them in a wallet. */
export const PREPARED_DEADLINE_SECONDS = 3600

/** The answer of `collect_fees`: the calls for the owner's wallet, and what they do. */
export type FeeCollectionPrepared = {
  ok: true
  status: 'prepared'
  token: Address
  chainId: number
  /** The account that must send the calls: the position's owner. */
  from: Address
  calls: PreparedCall[]
  /** What the calls deliver to `from`, read at `blockNumber` (more if people trade before they are sent). */
  feesOwed: FeesOwed
  poolId: Hex
  positionId: string
  blockNumber: string
  /** The calls were run from `from` at `blockNumber` (eth_call) and did not revert. */
  simulated: true
  /** What the calls will do, in one sentence. */
  effect: string
}

/** Parameters of {@link prepareFeeCollection}. */
export type PrepareFeeCollectionParameters = {
  services: Pick<DeployServices, 'publicClient' | 'store' | 'config' | 'clock'>
  token: Address
  findRecord?: FindLaunchRecord
}

/**
 * The calls that collect a launch position's fees to its owner (DECREASE_LIQUIDITY of 0, then TAKE_PAIR, through
 * Uniswap's SDK), simulated from the owner's account at the block the fees were read at. A launch without a seeded
 * position answers `NO_POSITION`; calls that would revert, `SIMULATION_REVERTED`; nothing is ever signed or sent.
 */
export async function prepareFeeCollection({
  services,
  token,
  findRecord,
}: PrepareFeeCollectionParameters): Promise<FeeCollectionPrepared | DeployFailure> {
  const read = await readLaunchState({ services, token, findRecord })
  if (!read.ok) return read
  const { state } = read
  const position = state.position
  if (!position)
    return failure(
      'NO_POSITION',
      `${state.token} has no pool position to collect from (launched without a pool, or its seed failed or is not mined yet).`,
    )
  const call = collectFeesCall({
    positionManager: services.config.uniswapV4.positionManager,
    token: state.token,
    decimals: state.decimals,
    fee: position.fee,
    tickSpacing: position.tickSpacing,
    tickLower: position.tickLower,
    tickUpper: position.tickUpper,
    positionId: BigInt(position.positionId),
    liquidity: BigInt(position.liquidity),
    sqrtPriceX96: position.sqrtPriceX96,
    tick: position.tick,
    poolLiquidity: position.poolLiquidity,
    recipient: position.owner,
    deadline: BigInt(Math.floor(services.clock.now() / 1000) + PREPARED_DEADLINE_SECONDS),
  })
  try {
    await services.publicClient.call({
      account: position.owner,
      to: call.to,
      data: call.data,
      value: BigInt(call.value),
      blockNumber: BigInt(state.blockNumber),
    })
  } catch (error) {
    const reason = error instanceof ViemBaseError ? error.shortMessage : 'the node refused the call'
    return failure('SIMULATION_REVERTED', `Collecting the fees would revert when sent from ${position.owner}: ${reason}`)
  }
  const { feesOwed } = position
  return {
    ok: true,
    status: 'prepared',
    token: state.token,
    chainId: services.config.chainId,
    from: position.owner,
    calls: [call],
    feesOwed,
    poolId: position.poolId,
    positionId: position.positionId,
    blockNumber: state.blockNumber,
    simulated: true,
    effect: `Collects the fees of position ${position.positionId} to its owner ${position.owner}: ${feesOwed.eth} ETH and ${feesOwed.token} of the token (as at block ${state.blockNumber}; more if people trade before it is sent), leaving its liquidity in the pool.`,
  }
}
