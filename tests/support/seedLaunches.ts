import { randomBytes } from 'node:crypto'
import type { Hex } from 'viem'
import { B20_FACTORY_ADDRESS } from '../../lib/chain/b20.js'
import { deployHistoryKeys } from '../../lib/deploy/keys.js'
import { planDeploy } from '../../lib/deploy/pipeline/deployPlan.js'
import { recordTransaction, type TransactionRecord } from '../../lib/deploy/sender/signedTransactions.js'
import type { Store } from '../../lib/store/types.js'

/** What a seeded launch is: a token as an agent asked for it (any text, as only the real intent rules would refuse). */
export type SeededLaunch = {
  name: string
  symbol: string
  status?: TransactionRecord['status']
  createdAt: number
  metadata?: { description?: string; image?: string; website?: string }
  initialSupply?: bigint
}

const SIGNER = '0x1000000000000000000000000000000000000001'

/**
 * Writes deploys into the deploy records and the shared index as the pipeline does (the same `recordTransaction`, calldata
 * from the same `planDeploy`), without a chain: what the launches feed and the dashboard read. Answers each launch's
 * token address and transaction hash.
 */
export async function seedLaunches(store: Store, storePrefix: string, launches: readonly SeededLaunch[]) {
  const keys = deployHistoryKeys({ storePrefix, chainId: 8453 })
  const seeded: { address: string; txHash: Hex }[] = []
  for (const launch of launches) {
    const plan = planDeploy({
      intent: {
        name: launch.name,
        symbol: launch.symbol,
        variant: 'asset',
        decimals: 18,
        admin: SIGNER,
        salt: undefined,
        currency: undefined,
        dryRun: false,
        waitSeconds: 0,
        pool: undefined,
        birth: {
          initialSupply: launch.initialSupply,
          recipient: launch.initialSupply ? SIGNER : undefined,
          supplyCap: undefined,
          fixedSupply: false,
          metadata: launch.metadata,
        },
      },
      signer: SIGNER,
      salt: `0x${randomBytes(32).toString('hex')}`,
    })
    const txHash: Hex = `0x${randomBytes(32).toString('hex')}`
    const record: TransactionRecord = {
      txHash,
      kind: 'deploy',
      to: B20_FACTORY_ADDRESS,
      agent: 'f'.repeat(64),
      predictedAddress: plan.predictedAddress,
      name: launch.name,
      symbol: launch.symbol,
      variant: 'asset',
      decimals: 18,
      createdAt: launch.createdAt,
      sentAt: launch.createdAt,
      status: launch.status ?? 'confirmed',
      nonce: seeded.length,
      gas: '300000',
      maxFeePerGas: '1000000000',
      maxPriorityFeePerGas: '1000000',
      data: plan.data,
    }
    await recordTransaction({ store, keys, signer: SIGNER, record, inAgentHistory: true })
    seeded.push({ address: plan.predictedAddress.toLowerCase(), txHash })
  }
  return seeded
}
