import { randomBytes } from 'node:crypto'
import type { Hex } from 'viem'
import { B20_FACTORY_ADDRESS } from '../../lib/chain/b20.js'
import { deployHistoryKeys } from '../../lib/deploy/keys.js'
import { planLaunch } from '../../lib/deploy/pipeline/deployPlan.js'
import { BASE_UNISWAP_V4 } from '../../lib/deploy/pool/addresses.js'
import { parsePoolIntent } from '../../lib/deploy/pool/poolFields.js'
import { recordTransaction, type TransactionRecord } from '../../lib/deploy/sender/signedTransactions.js'
import { chainLaunchOf } from '../../lib/launches/swapFollow.js'
import { withPoolRead } from '../../lib/market/chainCandles.js'
import { chainMarketKey } from '../../lib/read/keys.js'
import type { Store } from '../../lib/store/types.js'

/** What a seeded launch is: a token as an agent asked for it (any text, as only the real intent rules would refuse). */
export type SeededLaunch = {
  name: string
  symbol: string
  status?: TransactionRecord['status']
  createdAt: number
  metadata?: { description?: string; image?: string; website?: string }
  initialSupply?: bigint
  /**
   * A Uniswap v4 pool seeded with it (needs `initialSupply`): planned as the pipeline plans it, on Base's addresses, and
   * born as the confirmation's StateView read would record it (its first price, no liquidity in range, no swap).
   */
  pool?: { amount: string; startingMarketCapEth: string; owner: `0x${string}` }
}

const SIGNER: `0x${string}` = '0x1000000000000000000000000000000000000001'

/**
 * Writes deploys into the deploy records and the shared index as the pipeline does (the same `recordTransaction`, calldata
 * from the same `planDeploy`), without a chain: what the launches feed and the dashboard read. Answers each launch's
 * token address and transaction hash.
 */
export async function seedLaunches(store: Store, storePrefix: string, launches: readonly SeededLaunch[]) {
  const keys = deployHistoryKeys({ storePrefix, chainId: 8453 })
  const seeded: { address: string; txHash: Hex }[] = []
  for (const launch of launches) {
    const birth = {
      initialSupply: launch.initialSupply,
      recipient: launch.initialSupply ? SIGNER : undefined,
      supplyCap: undefined,
      fixedSupply: false,
      metadata: launch.metadata,
    }
    const pool = launch.pool
      ? parsePoolIntent(launch.pool, { decimals: 18, initialSupply: launch.initialSupply, supplyCap: undefined, admin: launch.pool.owner })
          .pool
      : undefined
    const intent = {
      name: launch.name,
      symbol: launch.symbol,
      variant: 'asset' as const,
      decimals: 18,
      admin: pool ? undefined : SIGNER,
      salt: undefined,
      currency: undefined,
      dryRun: false,
      waitSeconds: 0,
      pool,
      birth,
    }
    const planned = planLaunch({
      intent,
      signer: SIGNER,
      salt: `0x${randomBytes(32).toString('hex')}`,
      addresses: BASE_UNISWAP_V4,
      marketCap: { minWei: 1n, maxWei: 10n ** 40n },
      nowSeconds: Math.floor(launch.createdAt / 1000),
    })
    if (!planned.ok) throw new Error(`seedLaunches: ${JSON.stringify(planned)}`)
    const { plan } = planned
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
      ...(plan.pool
        ? { kind: 'launch' as const, pool: { ...plan.pool.view, amount: plan.pool.seed.taken.toString(), seedTxHashes: [] } }
        : {}),
    }
    await recordTransaction({ store, keys, signer: SIGNER, record, inAgentHistory: true })
    if (plan.pool && record.pool) {
      const { seed } = plan.pool
      const born = withPoolRead({
        state: null,
        launch: chainLaunchOf({ ...record, pool: record.pool }),
        read: { sqrtPriceX96: seed.sqrtPriceX96, tick: seed.tick, liquidity: 0n, block: 1n },
        at: Math.floor(launch.createdAt / 1000),
      })
      await store.set(chainMarketKey(storePrefix, 8453, plan.predictedAddress), JSON.stringify(born), 3_600_000)
    }
    seeded.push({ address: plan.predictedAddress.toLowerCase(), txHash })
  }
  return seeded
}
