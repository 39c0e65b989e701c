// A pooled launch is one `executeBatch` the signer sends to itself, run by its EIP-7702 delegate. It is simulated AS
// the account with plain `eth_call` and `eth_estimateGas`, each with a state override giving the signer's address the
// delegation's code (`0xef0100 || delegate`): the same whether the delegation is set already or this launch sets it,
// and nothing beyond the two methods every provider has (no eth_simulateV1). A revert anywhere refuses the launch
// before anything is signed or charged, naming the call and the cause.
import type { Address } from 'viem'
import { delegationDesignator } from '../../chain/batchAccount.js'
import { type DeployFailure, type DeployResult, failure } from '../outcome.js'
import { explainLaunchRevert } from '../pool/launchRevert.js'
import { isTransportFailure, nodeRefusalOf, revertDataOf, shortMessage } from '../sender/chainErrors.js'
import type { ChainReads, DeployServices } from '../services.js'
import type { DeployPlan } from './deployPlan.js'

export { AUTHORIZATION_GAS } from '../../chain/batchAccount.js'

/** Where the signer's delegation stands: `authorize` when this launch must carry the authorization that sets it. */
export type DelegationState = { authorize: boolean }

/** The answer when the chain or its RPC cannot carry a batch through the delegate: pooled launches stop, plain deploys go on. */
export function delegationUnavailable(why: string): DeployFailure {
  return failure(
    'DELEGATION_UNAVAILABLE',
    `Pooled launches are off here for now: ${why}. Nothing was signed; a deploy without a pool still works.`,
    { retryAfterSeconds: 60 },
  )
}

/**
 * Reads the signer's code and the delegate's: the delegate must hold Simple7702Account v0.8's code (its hash pinned),
 * and the signer is either delegated to it already or not (this launch then carries the authorization).
 */
export async function readDelegation(
  services: Pick<DeployServices, 'publicClient' | 'delegateCheck'>,
  signer: Address,
  delegate: Address,
): Promise<DeployResult<DelegationState>> {
  const [own, checked] = await Promise.all([services.publicClient.getCode({ address: signer }), services.delegateCheck(delegate)])
  if (!checked) return delegationUnavailable(`the delegate ${delegate} does not hold Simple7702Account v0.8's code on this chain`)
  return { ok: true, authorize: (own ?? '0x').toLowerCase() !== delegationDesignator(delegate) }
}

/** Parameters of {@link simulateLaunchBatch}. */
export type SimulateLaunchBatchParameters = { services: ChainReads; plan: DeployPlan; delegate: Address }

/**
 * Simulates a pooled launch's batch as the signer's account (eth_call beside eth_estimateGas, both with the delegation's
 * code as a state override): its gas, or why it would fail. `ExecuteError(index, reason)` names the call and its
 * error; a pool someone initialized first says so. A node that refuses the override itself cannot carry the launch:
 * `DELEGATION_UNAVAILABLE`.
 */
export async function simulateLaunchBatch({
  services,
  plan,
  delegate,
}: SimulateLaunchBatchParameters): Promise<DeployResult<{ gas: bigint }>> {
  if (!plan.pool) throw new TypeError('simulateLaunchBatch needs a plan with a pool')
  const { account, to, data } = plan.request
  const stateOverride = [{ address: account, code: delegationDesignator(delegate) }]
  const [called, estimated] = await Promise.allSettled([
    services.publicClient.call({ account, to, data, stateOverride }),
    services.publicClient.estimateGas({ account, to, data, stateOverride }),
  ])
  // The call's revert explains itself (decoded) before the estimate's failure.
  if (called.status === 'rejected') return launchSimulationFailure(called.reason)
  if (estimated.status === 'rejected') return launchSimulationFailure(estimated.reason)
  return { ok: true, gas: estimated.value }
}

/** A failed launch simulation as its answer: the batch's revert explained, no answer, or a node that cannot take it. */
function launchSimulationFailure(error: unknown): DeployFailure {
  const data = revertDataOf(error)
  if (data === undefined && isTransportFailure(error))
    return failure('RPC_UNAVAILABLE', 'The chain RPC is unavailable; nothing was signed. Try again shortly.', { retryAfterSeconds: 5 })
  if (data === undefined && nodeRefusalOf(error) !== 'reverted')
    return delegationUnavailable(`the RPC would not simulate the batch as the signer's account (${shortMessage(error)})`)
  const explained = explainLaunchRevert(data)
  return failure('SIMULATION_REVERTED', `The launch would revert: ${explained.why}; nothing was signed and no gas was spent.`, {
    revert: explained.revert,
    failedCall: explained.index,
    cause: explained.cause,
  })
}
