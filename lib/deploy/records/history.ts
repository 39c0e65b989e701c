import type { Hex } from 'viem'
import { z } from 'zod'
import { supplyFieldsOf } from '../../chain/birthView.js'
import { listIndexed, listIndexedEach, putIndexed, removeFromIndex, removeFromIndexes } from '../../store/recordIndex.js'
import { parseRecord } from '../../store/records.js'
import type { Store } from '../../store/types.js'
import type { DeployHistoryKeys } from '../keys.js'

/** Last known state of a deploy: sent, mined (successfully or reverted), or replaced by a higher-fee copy. */
export type DeployStatus = 'broadcast' | 'confirmed' | 'reverted' | 'replaced'

const hex = z.custom<Hex>((value) => typeof value === 'string' && /^0x[0-9a-fA-F]*$/.test(value), 'a 0x hex string')

/** What the service keeps about each transaction it sent: enough to list it, answer receipts and re-sign it. */
export const deployRecordSchema = z.object({
  txHash: hex,
  /** Who asked for it: the allowlist digest of its agent key, or a paid agent's id (`x402:<payer>`, `agents/paidAgent.ts`). */
  agent: z.string(),
  predictedAddress: hex,
  name: z.string(),
  symbol: z.string(),
  variant: z.enum(['asset', 'stablecoin']),
  decimals: z.number(),
  /** When the agent's deploy was first sent (epoch ms); a replacement keeps its original's. */
  createdAt: z.number(),
  /** When this very transaction was sent (epoch ms). */
  sentAt: z.number(),
  status: z.enum(['broadcast', 'confirmed', 'reverted', 'replaced'] satisfies DeployStatus[]),
  /** The transaction that replaced this one (same nonce, higher fees). */
  replacedBy: hex.optional(),
  /** The transaction this one replaced. */
  replaces: hex.optional(),
  /** For a replacement: the hash the agent's deploy was first sent with (what `agent_deploy` answered). */
  originalTxHash: hex.optional(),
  /** How the replacement (the last copy) ended, once it was mined: what the agent's deploy came to. */
  replacementStatus: z.enum(['confirmed', 'reverted']).optional(),
  /** What a replacement re-signs: the same nonce, gas and calldata. */
  nonce: z.number(),
  gas: z.string(),
  maxFeePerGas: z.string(),
  maxPriorityFeePerGas: z.string(),
  data: hex,
  /** A paid deploy's payment (its EIP-3009 nonce; the payer is in `agent`): written with the record, before the broadcast. */
  paymentNonce: z.string().optional(),
  /** Where the transaction goes, when not the B20 factory: a pooled launch's seed transactions. */
  to: hex.optional(),
  /**
   * A pooled launch's seed transaction (an approval or the pool's mint): the hash of the launch's createB20 it follows.
   * Such a record sits in the signer's unmined list, to be followed and replaced like any other, but is no deploy of
   * its own: it is never in an agent's history, announced as a launch or told to a webhook.
   */
  seedOf: hex.optional(),
  /** A pooled launch's Uniswap v4 pool, as planned before signing (lib/deploy/pool/poolSeed.ts); absent: no pool. */
  pool: z
    .object({
      /** `keccak256(abi.encode(key))`, the id the PoolManager's events are indexed by. */
      poolId: hex,
      currency0: hex,
      currency1: hex,
      fee: z.number(),
      tickSpacing: z.number(),
      hooks: hex,
      /** The first price (decimal string of the uint160). */
      sqrtPriceX96: z.string(),
      tickLower: z.number(),
      tickUpper: z.number(),
      /** Base units of the token the position holds at birth (decimal string). */
      amount: z.string(),
      /** Who receives the position (its ERC-721) and its fees. */
      owner: hex,
      /** The transactions that seed it, in nonce order after the createB20: approve, Permit2 approve, the mint. */
      seedTxHashes: z.array(hex),
      /** Why the seed was not all sent (the node refused one); absent when every seed transaction went out. */
      failure: z.string().optional(),
      /** The transfer that gave the pool's share back to the owner after a failed seed. */
      returnTxHash: hex.optional(),
    })
    .optional(),
})

/** What the service keeps about each transaction it sent (see {@link deployRecordSchema}). */
export type DeployRecord = z.infer<typeof deployRecordSchema>

/** One entry of `list_deploys`. */
export type ListedDeploy = {
  txHash: Hex
  predictedAddress: Hex
  name: string
  symbol: string
  variant: 'asset' | 'stablecoin'
  initialSupply: string | null
  supplyCap: string | null
  recipient: string | null
  createdAt: string
  status: DeployStatus
  replacedBy?: Hex
  /** For a replaced deploy whose replacement was mined: how it ended. */
  replacementStatus?: 'confirmed' | 'reverted'
}

/** How long deploy records are kept. */
export const DEPLOY_HISTORY_TTL_MS = 30 * 86_400_000
/** Most deploys kept per agent (and unmined per signer). */
export const DEPLOY_HISTORY_MAX_ENTRIES = 1000

/** Parameters of {@link recordDeploy}. */
export type RecordDeployParameters = {
  store: Store
  keys: DeployHistoryKeys
  signer: string
  record: DeployRecord
  inAgentHistory: boolean
}

/**
 * Keeps a signed transaction before it is broadcast, in one store step: its record, the signer's unmined list and
 * (for a new deploy, not a replacement) the agent's history.
 */
export async function recordDeploy({ store, keys, signer, record, inAgentHistory }: RecordDeployParameters): Promise<void> {
  await putIndexed(store, {
    recordKey: keys.record(record.txHash),
    value: JSON.stringify(record),
    ttlMs: DEPLOY_HISTORY_TTL_MS,
    member: record.txHash.toLowerCase(),
    score: record.createdAt,
    indexKeys: inAgentHistory
      ? [keys.agent(record.agent), keys.unmined(signer), keys.recent, ...(record.pool ? [keys.poolsOpen(signer), keys.pooled] : [])]
      : [keys.unmined(signer)],
    maxEntries: DEPLOY_HISTORY_MAX_ENTRIES,
  })
}

/** Forgets a transaction that was not sent after all (the node refused it): record and list entries. */
export async function forgetDeploy(store: Store, keys: DeployHistoryKeys, signer: string, record: DeployRecord): Promise<void> {
  await Promise.all([
    removeFromIndex(store, keys.agent(record.agent), record.txHash.toLowerCase()),
    removeFromIndex(store, keys.unmined(signer), record.txHash.toLowerCase()),
    removeFromIndex(store, keys.recent, record.txHash.toLowerCase()),
    ...(record.pool ? [removeFromIndexes(store, [keys.poolsOpen(signer), keys.pooled], record.txHash.toLowerCase())] : []),
  ])
  await store.delete(keys.record(record.txHash))
}

/** Parses a stored record; null when absent or not one. */
export function parseDeployRecord(value: string | null): DeployRecord | null {
  return parseRecord(deployRecordSchema, value)
}

/** The record of a transaction this service sent, or null. */
export async function readDeployRecord(store: Store, keys: DeployHistoryKeys, txHash: string): Promise<DeployRecord | null> {
  return parseDeployRecord(await store.get(keys.record(txHash)))
}

/** Rewrites a record with a new status (and what goes with it). */
export async function updateDeployRecord(store: Store, keys: DeployHistoryKeys, record: DeployRecord): Promise<void> {
  await store.set(keys.record(record.txHash), JSON.stringify(record), DEPLOY_HISTORY_TTL_MS)
}

/** The signer's transactions not yet seen mined, oldest first. */
export async function listUnmined(store: Store, keys: DeployHistoryKeys, signer: string): Promise<DeployRecord[]> {
  const values = await listIndexed(store, { indexKey: keys.unmined(signer), recordPrefix: keys.recordPrefix, limit: 100 })
  return values
    .map(parseDeployRecord)
    .filter((r): r is DeployRecord => r !== null)
    .reverse()
}

/** Stored records read back, oldest first (an index lists newest first); anything not a record is skipped. */
const oldestFirst = (values: readonly string[]) =>
  values
    .map(parseDeployRecord)
    .filter((r): r is DeployRecord => r !== null)
    .reverse()

/**
 * What the tick's follow-up looks at, in one read when there is nothing (the usual minute): the signer's unmined
 * transactions (at most 100) and its pooled launches whose pool is not settled yet (at most 20), each oldest first.
 */
export async function listUnminedAndOpenPools(
  store: Store,
  keys: DeployHistoryKeys,
  signer: string,
): Promise<{ unmined: DeployRecord[]; openPools: DeployRecord[] }> {
  const [unmined, open] = await listIndexedEach(store, {
    indexKeys: [keys.unmined(signer), keys.poolsOpen(signer)],
    recordPrefix: keys.recordPrefix,
    limit: 100,
  })
  return { unmined: oldestFirst(unmined!), openPools: oldestFirst(open!.slice(0, 20)).filter((r) => r.pool !== undefined) }
}

/** Parameters of {@link listAgentDeploys}. */
export type ListAgentDeploysParameters = { store: Store; keys: DeployHistoryKeys; agentDigest: string; limit: number }

/** The calling agent's own deploys, newest first, as `list_deploys` answers them. */
export async function listAgentDeploys({ store, keys, agentDigest, limit }: ListAgentDeploysParameters): Promise<ListedDeploy[]> {
  const values = await listIndexed(store, { indexKey: keys.agent(agentDigest), recordPrefix: keys.recordPrefix, limit })
  return values
    .map(parseDeployRecord)
    .filter((r): r is DeployRecord => r !== null && r.agent === agentDigest)
    .map(toListedDeploy)
}

/** The public view of a record: no agent digest, no signing material. */
export function toListedDeploy(record: DeployRecord): ListedDeploy {
  return {
    txHash: record.txHash,
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
