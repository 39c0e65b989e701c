import type { Hex } from 'viem'
import { supplyFieldsOf } from '../../chain/birthView.js'
import { listIndexed } from '../../store/recordIndex.js'
import type { Store } from '../../store/types.js'
import type { ListDeploys } from '../answers/receipts.js'
import { type DeployHistoryKeys, deployHistoryKeys } from '../keys.js'
import { type DeployFailure, failure, storeFailureOf } from '../outcome.js'
import {
  parseTransactionRecord,
  type TransactionKind,
  type TransactionRecord,
  type TransactionStatus,
} from '../sender/signedTransactions.js'
import type { DeployServices } from '../services.js'
import { isDeployed, readTokenMarkets } from './tokenMarkets.js'

/** One entry of `list_deploys`. */
export type ListedDeploy = {
  txHash: Hex
  /** What the transaction did (a plain deploy or a pooled launch so far: what the agent asked for). */
  kind: TransactionKind
  predictedAddress: Hex
  name: string
  symbol: string
  variant: 'asset' | 'stablecoin'
  initialSupply: string | null
  supplyCap: string | null
  recipient: string | null
  createdAt: string
  status: TransactionStatus
  replacedBy?: Hex
  /** For a replaced deploy whose replacement was mined: how it ended. */
  replacementStatus?: 'confirmed' | 'reverted'
}

/** Parameters of {@link listAgentDeploys}. */
export type ListAgentDeploysParameters = { store: Store; keys: DeployHistoryKeys; agentDigest: string; limit: number }

/** The calling agent's own deploys, newest first, as `list_deploys` answers them. */
export async function listAgentDeploys({ store, keys, agentDigest, limit }: ListAgentDeploysParameters): Promise<ListedDeploy[]> {
  const values = await listIndexed(store, { indexKey: keys.agent(agentDigest), recordPrefix: keys.recordPrefix, limit })
  return values
    .map(parseTransactionRecord)
    .filter((r): r is TransactionRecord => r !== null && r.agent === agentDigest)
    .map(toListedDeploy)
}

/** The public view of a record: no agent digest, no signing material. */
export function toListedDeploy(record: TransactionRecord): ListedDeploy {
  return {
    txHash: record.txHash,
    kind: record.kind,
    predictedAddress: record.predictedAddress,
    name: record.name,
    symbol: record.symbol,
    variant: record.variant,
    ...supplyFieldsOf(record.data, record.decimals),
    createdAt: new Date(record.createdAt).toISOString(),
    status: record.status,
    ...(record.replacedBy ? { replacedBy: record.replacedBy } : {}),
    ...(record.replacedBy && record.replacementStatus ? { replacementStatus: record.replacementStatus } : {}),
  }
}

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
