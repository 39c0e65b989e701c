import { isDeployed, readTokenMarkets } from '../../launches/tokenMarket.js'
import type { ListDeploys } from '../answerSchemas.js'
import { deployHistoryKeys } from '../keys.js'
import { type DeployFailure, failure, storeFailureOf } from '../outcome.js'
import type { DeployServices } from '../services.js'
import { listAgentDeploys } from './history.js'

/** Parameters of {@link listDeploys}. */
export type ListDeploysParameters = { services: Pick<DeployServices, 'store' | 'config' | 'logger'>; agentDigest: string; limit: number }

/** `list_deploys`: the calling agent's own deploys, newest first, each with its token's market; never another agent's. */
export async function listDeploys({ services, agentDigest, limit }: ListDeploysParameters): Promise<ListDeploys | DeployFailure> {
  const { store, config, logger } = services
  if (!store)
    return failure('DEPLOYS_DISABLED', 'Deploys need the shared store (Upstash Redis) on this deployment, and none is configured.')
  try {
    const keys = deployHistoryKeys({ storePrefix: config.storePrefix, chainId: config.chainId })
    const deploys = await listAgentDeploys({ store, keys, agentDigest, limit })
    // One read for the markets of the tokens these deploys created.
    const deployed = deploys.filter(isDeployed).map((d) => d.predictedAddress.toLowerCase())
    const markets = await readTokenMarkets(store, config.storePrefix, config.chainId, deployed)
    const marketOf = new Map(deployed.map((address, i) => [address, markets[i] ?? null]))
    return { ok: true, deploys: deploys.map((d) => ({ ...d, market: marketOf.get(d.predictedAddress.toLowerCase()) ?? null })) }
  } catch (error) {
    return storeFailureOf(error, {
      logger,
      operation: 'list_deploys',
      message: 'The deploy history (Redis) is unavailable. Try again shortly.',
    })
  }
}
