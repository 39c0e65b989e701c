import type { Hex } from 'viem'
import { isPaidAgent } from '../deploy/agents/paidAgent.js'
import { deployHistoryKeys } from '../deploy/keys.js'
import { failure, storeFailureOf } from '../deploy/outcome.js'
import { readDeployRecord } from '../deploy/records/history.js'
import { type ReadDeployReceiptReturnType, readDeployReceipt } from '../deploy/records/readReceipt.js'
import type { DeployServices } from '../deploy/services.js'

// `{ "action": "receipt", "tx_hash" }` on the paid door: free, and answered as /api/b20-skill's receipt, for the
// deploys paid through this door (their records name a paid agent, `x402:<payer>`). Anyone may ask: a paid deploy's
// receipt is what the chain shows anyway.

/** Parameters of {@link readPaidReceipt}. */
export type ReadPaidReceiptParameters = { services: DeployServices; txHash: Hex; waitSeconds: number }

/** The receipt of a deploy paid through the door; NOT_A_DEPLOY for any other hash. */
export async function readPaidReceipt({ services, txHash, waitSeconds }: ReadPaidReceiptParameters): Promise<ReadDeployReceiptReturnType> {
  const { store, config, logger } = services
  const notPaid = failure(
    'NOT_A_DEPLOY',
    'This transaction is not a deploy paid through this door (use the txHash a paid deploy answered).',
    {
      txHash,
    },
  )
  if (!store) return notPaid
  try {
    const record = await readDeployRecord(store, deployHistoryKeys({ storePrefix: config.storePrefix, chainId: config.chainId }), txHash)
    if (!record || !isPaidAgent(record.agent)) return notPaid
  } catch (error) {
    return storeFailureOf(error, {
      logger,
      operation: 'x402-receipt',
      message: 'The deploy records (Redis) cannot be read; try again shortly.',
    })
  }
  return readDeployReceipt({ services, txHash, waitSeconds })
}
