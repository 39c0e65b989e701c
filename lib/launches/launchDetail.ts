// One launch as GET /api/launches/{address} answers it: the feed's entry, and beside its fields the token's powers and
// its pool's position as the chain has them now (lib/deploy/records/launchState.ts reads them). Loaded with the
// first read of one launch, not with the feed.
import type { Address } from 'viem'
import { deployHistoryKeys } from '../deploy/keys.js'
import { readLaunchState } from '../deploy/records/launchState.js'
import { readTransactionRecord } from '../deploy/sender/signedTransactions.js'
import type { DeployServices } from '../deploy/services.js'
import type { Launch, LaunchDetail } from './schema.js'

export { notALaunch } from '../deploy/records/launchState.js'

/** Parameters of {@link launchDetailOf}. */
export type LaunchDetailOfParameters = { deploy: DeployServices; launch: Launch; token: Address }

/**
 * The launch's entry with its powers and pool now. Its deploy is the feed entry's own (its record read by the hash the
 * entry names, no walk of the index); a launch not mined yet has `powers: null`, and its pool the entry's.
 */
export async function launchDetailOf({ deploy, launch, token }: LaunchDetailOfParameters): Promise<LaunchDetail> {
  const pending: LaunchDetail = { ...launch, powers: null, blockNumber: null }
  const { store, config } = deploy
  if (launch.status !== 'confirmed' || !store) return pending
  const keys = deployHistoryKeys({ storePrefix: config.storePrefix, chainId: config.chainId })
  const read = await readLaunchState({
    services: deploy,
    token,
    findRecord: async () => readTransactionRecord(store, keys, launch.txHash),
  })
  if (!read.ok) return pending
  const { powers, blockNumber, rolesComplete, pool } = read.state
  return {
    ...launch,
    powers,
    blockNumber,
    rolesComplete,
    pool: launch.pool
      ? {
          ...launch.pool,
          ...(pool
            ? {
                owner: pool.owner,
                positionId: pool.positionId,
                liquidity: pool.liquidity,
                priceEth: pool.priceEth,
                feesOwed: pool.feesOwed,
              }
            : {}),
        }
      : null,
  }
}
