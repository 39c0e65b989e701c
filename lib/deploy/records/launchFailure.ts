// Why a pooled launch's mined transaction reverted (the batch, or the pool's mint of a launch before the batch), named
// from the chain: a reverted receipt carries no reason, so the evident causes are read first (the gas all used, the
// mint's deadline past at the block, the pool initialized at that block by someone else: the launch's own initialize
// reverted with it), then the transaction is replayed on the state before its block for the call and error it names.
import { type Address, decodeFunctionData, type Hex, parseAbi, type TransactionReceipt } from 'viem'
import { batchCallTo, delegationDesignator } from '../../chain/batchAccount.js'
import { explainLaunchRevert, LAUNCH_FAILURE_WORDS, type LaunchFailureCause, type LaunchRevert } from '../pool/launchRevert.js'
import { positionManagerAbi } from '../pool/poolSeed.js'
import { revertDataOf } from '../sender/chainErrors.js'
import type { DeployServices } from '../services.js'

const stateViewAbi = parseAbi([
  'function getSlot0(bytes32 poolId) view returns (uint160 sqrtPriceX96, int24 tick, uint24 protocolFee, uint24 lpFee)',
])

/** A failed launch as its answers say it: the cause, which call of the batch (null: not known), its error, and why. */
export type LaunchFailure = { cause: LaunchFailureCause; failedCall: number | null; revert: LaunchRevert | null; why: string }

/** The mint's deadline in a launch's calldata: its batch's or its seed multicall's `modifyLiquidities(…, deadline)`. */
export function mintDeadlineOf(input: Hex, positionManager: Address): bigint | null {
  const mint = batchCallTo(input, positionManager)?.data ?? input
  try {
    const decoded = decodeFunctionData({ abi: positionManagerAbi, data: mint })
    if (decoded.functionName === 'modifyLiquidities') return decoded.args[1]
    if (decoded.functionName === 'multicall')
      for (const inner of decoded.args[0]) {
        const call = decodeFunctionData({ abi: positionManagerAbi, data: inner })
        if (call.functionName === 'modifyLiquidities') return call.args[1]
      }
  } catch {
    // not a mint this service sends
  }
  return null
}

/** Parameters of {@link readLaunchFailure}. */
export type ReadLaunchFailureParameters = {
  services: Pick<DeployServices, 'publicClient' | 'config'>
  /** The reverted receipt of the launch (or of its pool's mint). */
  receipt: TransactionReceipt
  poolId: Hex
}

/** Names the cause of a launch's reverted transaction (see the module's comment); `seed` with no call when nothing says. */
export async function readLaunchFailure({ services, receipt, poolId }: ReadLaunchFailureParameters): Promise<LaunchFailure> {
  const { publicClient, config } = services
  const said = (cause: LaunchFailureCause): LaunchFailure => ({ cause, failedCall: null, revert: null, why: LAUNCH_FAILURE_WORDS[cause] })
  const tx = await publicClient.getTransaction({ hash: receipt.transactionHash })
  // Out of gas leaves at most about a 64th of the limit (what an inner call keeps back, then the batch's revert); a
  // revert for a reason leaves the headroom the limit was given above the estimate (a fifth or more).
  if (receipt.gasUsed * 100n >= tx.gas * 95n) return said('gas')
  const [block, slot0] = await Promise.all([
    publicClient.getBlock({ blockNumber: receipt.blockNumber }),
    publicClient
      .readContract({
        address: config.uniswapV4.stateView,
        abi: stateViewAbi,
        functionName: 'getSlot0',
        args: [poolId],
        blockNumber: receipt.blockNumber,
      })
      .catch(() => null),
  ])
  const deadline = mintDeadlineOf(tx.input, config.uniswapV4.positionManager)
  if (deadline !== null && block.timestamp > deadline) return said('deadline')
  // The launch initializes its pool itself; reverted, its initialize did too, so an initialized pool is another's.
  if (slot0 && slot0[0] !== 0n) return said('pool-initialized')
  // Nothing evident: the same call on the state before its block says which call failed and how.
  try {
    const selfCall = tx.to?.toLowerCase() === tx.from.toLowerCase()
    await publicClient.call({
      account: tx.from,
      to: tx.to!,
      data: tx.input,
      blockNumber: receipt.blockNumber - 1n,
      ...(selfCall ? { stateOverride: [{ address: tx.from, code: delegationDesignator(config.delegate) }] } : {}),
    })
  } catch (error) {
    const explained = explainLaunchRevert(revertDataOf(error))
    return { cause: explained.cause, failedCall: explained.index, revert: explained.revert, why: explained.why }
  }
  return said('seed')
}
