import { decodeFunctionResult, getAddress } from 'viem'
import { b20FactoryAbi } from '../../chain/b20.js'
import { ChainMismatchError } from '../../chain/client.js'
import { type KmsAccount, KmsSignerError } from '../../chain/kmsAccount.js'
import type { Accepted } from '../../platform/result.js'
import type { DeploySimulated } from '../answers/deployAnswers.js'
import { type DeployResult, failure } from '../outcome.js'
import { startValuationUsd } from '../pool/startPrice.js'
import { chainFailure } from '../sender/chainErrors.js'
import { feesFrom, gasWithHeadroom } from '../sender/fees.js'
import { signerUnavailable } from '../sender/sign.js'
import type { ChainReads, DeployServices } from '../services.js'
import type { DeployPlan } from './deployPlan.js'
import { AUTHORIZATION_GAS, readDelegation, simulateLaunchBatch } from './simulateLaunch.js'

/** The signer, once KMS has given its public key and the RPC serves the configured chain; else why not. */
export async function readySigner(
  services: Pick<DeployServices, 'getSigner' | 'verifyChain' | 'logger'>,
): Promise<DeployResult<{ signer: KmsAccount }>> {
  const { logger } = services
  let signer: KmsAccount
  try {
    signer = await services.getSigner!()
  } catch (error) {
    if (error instanceof KmsSignerError && error.isMisconfiguration) {
      logger.error('signer_misconfigured', { message: error.shortMessage })
      return failure('SIGNER_MISMATCH', `Refusing to deploy: ${error.shortMessage}.`)
    }
    return signerUnavailable(logger, 'GetPublicKey', error)
  }
  try {
    await services.verifyChain()
  } catch (error) {
    if (error instanceof ChainMismatchError) return failure('CHAIN_MISMATCH', `Refusing to sign: ${error.shortMessage}.`)
    return failure('RPC_UNAVAILABLE', 'The chain RPC is unavailable; nothing was signed. Try again shortly.', { retryAfterSeconds: 5 })
  }
  return { ok: true, signer }
}

/** eth_call of createB20 from the signer: fine when it creates the predicted address, else the decoded revert. */
export async function simulateDeploy(services: ChainReads, plan: DeployPlan): Promise<DeployResult> {
  try {
    const result = await services.publicClient.call(plan.request)
    const created = result.data ? decodeFunctionResult({ abi: b20FactoryAbi, functionName: 'createB20', data: result.data }) : undefined
    if (!created || getAddress(created) !== plan.predictedAddress) {
      services.logger.error('deploy_prediction_mismatch', { predicted: plan.predictedAddress, simulated: created })
      return failure('RPC_REJECTED', 'The simulated token address differs from the B20 address formula; nothing was signed.')
    }
    return { ok: true }
  } catch (error) {
    return chainFailure(error)
  }
}

/**
 * A deploy's gas limit (with headroom), and for a pooled launch whether its transaction must carry the authorization
 * that delegates the signer's account (the first launch only: the delegation is kept).
 */
export type DeployGas = { gas: bigint; authorize?: boolean }

/**
 * The simulation and the gas, together: a plain deploy's eth_call beside its estimate (a revert explains itself
 * through the simulation, decoded, before the estimate's failure); a pooled launch's batch simulated as the signer's
 * account beside a look at its code and the delegate's (both plain eth_call and eth_estimateGas, with the delegation as
 * a state override).
 */
export async function simulateAndEstimate(services: ChainReads, plan: DeployPlan): Promise<DeployResult<DeployGas>> {
  if (plan.pool) {
    const { delegate } = services.config
    const [simulated, delegation] = await Promise.allSettled([
      simulateLaunchBatch({ services, plan, delegate }),
      readDelegation(services, plan.request.account, delegate),
    ])
    if (delegation.status === 'rejected') return chainFailure(delegation.reason)
    if (!delegation.value.ok) return delegation.value
    if (simulated.status === 'rejected') return chainFailure(simulated.reason)
    if (!simulated.value.ok) return simulated.value
    const { authorize } = delegation.value
    return { ok: true, gas: gasWithHeadroom(simulated.value.gas + (authorize ? AUTHORIZATION_GAS : 0n)), authorize }
  }
  const [simulated, estimate] = await Promise.allSettled([simulateDeploy(services, plan), services.publicClient.estimateGas(plan.request)])
  if (simulated.status === 'fulfilled' && !simulated.value.ok) return simulated.value
  if (simulated.status === 'rejected') return chainFailure(simulated.reason)
  if (estimate.status === 'rejected') return chainFailure(estimate.reason)
  return { ok: true, gas: gasWithHeadroom(estimate.value) }
}

/** A dry run: the simulation and what the deploy would cost; nothing is signed and no cap slot is taken. */
export async function dryRunDeploy(services: ChainReads, plan: DeployPlan, signer: KmsAccount): Promise<DeployResult<DeploySimulated>> {
  const [simulated, fees] = await Promise.allSettled([simulateAndEstimate(services, plan), services.fees.ofBlock()])
  if (simulated.status === 'rejected') return chainFailure(simulated.reason)
  if (!simulated.value.ok) return simulated.value
  if (fees.status === 'rejected') return chainFailure(fees.reason)
  const { gas } = simulated.value
  const { maxFeePerGas, maxPriorityFeePerGas } = feesFrom(fees.value)
  return {
    ok: true,
    status: 'simulated',
    predictedAddress: plan.predictedAddress,
    token: plan.token,
    signer: signer.address,
    chainId: services.config.chainId,
    gas: gas.toString(),
    maxFeePerGas: maxFeePerGas.toString(),
    maxPriorityFeePerGas: maxPriorityFeePerGas.toString(),
    maxFeeWei: (gas * maxFeePerGas).toString(),
    // In USD once the caller knows WETH's price (deployToken.ts asks it beside this).
    ...(plan.pool ? { pool: { ...plan.pool.view, ...startValuationUsd(plan.pool.view, null) } } : {}),
  }
}

/**
 * What a deploy knows before the nonce lock: its gas limit (and whether a pooled launch carries the delegation's
 * authorization), the chain it talks to and the signer's pending count.
 */
export type PreparedDeploy = DeployGas & { chainId: number; pending: number }

/**
 * Everything before the nonce lock that reads the chain, all at once: the simulation, the gas estimate, the block's
 * fees (cached for the send), the chain id and the node's pending count. A revert explains itself through the
 * simulation (decoded) before the estimate's failure.
 */
export async function prepareDeploy(services: ChainReads, plan: DeployPlan, signer: KmsAccount): Promise<DeployResult<PreparedDeploy>> {
  const { publicClient } = services
  const [simulated, fees, chainId, pending] = await Promise.allSettled([
    simulateAndEstimate(services, plan),
    services.fees.ofBlock(),
    publicClient.getChainId(),
    publicClient.getTransactionCount({ address: signer.address, blockTag: 'pending' }),
  ])
  if (simulated.status === 'fulfilled' && !simulated.value.ok) return simulated.value
  for (const result of [simulated, fees, chainId, pending]) if (result.status === 'rejected') return chainFailure(result.reason)
  const ok = <T>(result: PromiseSettledResult<T>) => (result as PromiseFulfilledResult<T>).value
  const { gas, authorize } = ok(simulated) as DeployGas
  const prepared: Accepted<PreparedDeploy> = {
    ok: true,
    gas,
    ...(authorize !== undefined ? { authorize } : {}),
    chainId: ok(chainId),
    pending: ok(pending),
  }
  if (prepared.chainId !== services.config.chainId) {
    services.logger.error('chain_mismatch', { expected: services.config.chainId, actual: prepared.chainId })
    return failure(
      'CHAIN_MISMATCH',
      `Refusing to sign: the RPC now serves chain ${prepared.chainId}, not the configured ${services.config.chainId}.`,
    )
  }
  return prepared
}
