import { type Hex, keccak256, type TransactionSerializableEIP1559 } from 'viem'
import { B20_FACTORY_ADDRESS } from '../../chain/b20.js'
import type { KmsAccount } from '../../chain/kmsAccount.js'
import { errorName, type Logger } from '../../platform/log.js'
import { type DeployFailure, failure } from '../outcome.js'
import type { DeployPlan, DeployPrice } from './plan.js'

/** Parameters of {@link serialiseDeploy}. */
export type SerialiseDeployParameters = { plan: DeployPlan; chainId: number; nonce: number; price: DeployPrice }

/** The EIP-1559 transaction of a deploy at a nonce (pure): what KMS signs. */
export function serialiseDeploy({ plan, chainId, nonce, price }: SerialiseDeployParameters): TransactionSerializableEIP1559 {
  return {
    type: 'eip1559',
    chainId,
    to: B20_FACTORY_ADDRESS,
    data: plan.data,
    value: 0n,
    nonce,
    gas: price.gas,
    maxFeePerGas: price.maxFeePerGas,
    maxPriorityFeePerGas: price.maxPriorityFeePerGas,
  }
}

/** A signed deploy: the raw transaction and its hash (known before it is sent). */
export type SignedDeploy = { ok: true; serialized: Hex; txHash: Hex }

/** Signs a deploy with KMS (the private key never leaves it); a KMS failure is `SIGNER_UNAVAILABLE`, nothing signed. */
export async function signDeploy(
  signer: KmsAccount,
  transaction: TransactionSerializableEIP1559,
  logger: Logger,
): Promise<SignedDeploy | DeployFailure> {
  try {
    const serialized = await signer.signTransaction(transaction)
    return { ok: true, serialized, txHash: keccak256(serialized) }
  } catch (error) {
    logger.error('kms_unavailable', { operation: 'Sign', error: errorName(error) })
    return failure('SIGNER_UNAVAILABLE', 'The signing service (KMS) failed; nothing was broadcast. Try again shortly.', {
      retryAfterSeconds: 10,
    })
  }
}
