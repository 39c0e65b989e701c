import type { Hex } from 'viem'
import { z } from 'zod'
import { B20_FACTORY_ADDRESS } from '../../chain/b20.js'
import { listIndexed, listIndexedEach, putIndexed, removeFromIndex, removeFromIndexes } from '../../store/recordIndex.js'
import { parseRecord } from '../../store/records.js'
import type { Store } from '../../store/types.js'
import type { DeployHistoryKeys } from '../keys.js'

// Every transaction the service signs is kept here before it is broadcast (the sender writes it), then followed,
// replaced when stuck and read back by receipts and the agent's history.

/** Last known state of a transaction: sent, mined (successfully or reverted), or replaced by a higher-fee copy. */
export type TransactionStatus = 'broadcast' | 'confirmed' | 'reverted' | 'replaced'

/**
 * What a transaction did for its agent: a token's creation (`deploy`), a pooled launch's creation (`launch`), one of
 * a pooled launch's seed transactions (`seed`, sent after its creation), the pool's share given back to its owner
 * after a failed seed (`return`), or the kind an action that sends a transaction names in its own module (lower-case
 * words joined by `_`): nothing here changes for a new one, and nothing that follows or replaces a transaction
 * looks at its kind.
 */
export type TransactionKind = 'deploy' | 'launch' | 'seed' | 'return' | (string & {})

/** The form of a kind: lower-case words joined by `_`. */
export const TRANSACTION_KIND_PATTERN = /^[a-z]+(?:_[a-z]+)*$/

const hex = z.custom<Hex>((value) => typeof value === 'string' && /^0x[0-9a-fA-F]*$/.test(value), 'a 0x hex string')

/** The selector of ERC-20 `transfer`: a stored record without a kind that sends it is a pool share given back. */
const TRANSFER_SELECTOR = '0xa9059cbb'

/** A stored record as written, by this version or an older one (no `kind`, `to` only off the factory, `seedOf`). */
const storedRecordSchema = z.object({
  txHash: hex,
  /** What the transaction did (absent from records written before kinds: derived from their other fields). */
  kind: z.string().regex(TRANSACTION_KIND_PATTERN).optional(),
  /** Where the transaction goes (absent from older records of the B20 factory). */
  to: hex.optional(),
  /** The launch (its creation's hash) a `seed` or a `return` belongs to. */
  of: hex.optional(),
  /** The older name of `of`, in records written before kinds. */
  seedOf: hex.optional(),
  /**
   * Who signed and sent it: the service's signer at the time, so a deploy's creator (the token's address is derived
   * from it). Absent from records written before it was kept.
   */
  from: hex.optional(),
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
  status: z.enum(['broadcast', 'confirmed', 'reverted', 'replaced'] satisfies TransactionStatus[]),
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
  /** Wei the transaction sends (decimal string); absent: none. */
  value: z.string().optional(),
  /**
   * The EIP-7702 authorization the transaction carried (the signer's account delegated to the batch executor, the first
   * pooled launch only): a replacement carries it again, at the same nonce.
   */
  authorization: z.object({ address: hex, chainId: z.number(), nonce: z.number(), r: hex, s: hex, yParity: z.number() }).optional(),
  /** A paid deploy's payment (its EIP-3009 nonce; the payer is in `agent`): written with the record, before the broadcast. */
  paymentNonce: z.string().optional(),
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
      /**
       * Launches before the batch: the transactions that seeded it, in nonce order after the createB20 (approve, Permit2
       * approve, the mint). Empty for a launch whose batch seeds the pool in its own transaction.
       */
      seedTxHashes: z.array(hex),
      /** The mint's deadline (unix seconds, decimal string): past it the PositionManager refuses the mint. */
      deadline: z.string().optional(),
      /** Why the seed was not all sent (the node refused one); absent when every seed transaction went out. */
      failure: z.string().optional(),
      /** The transfer that gave the pool's share back to the owner after a failed seed. */
      returnTxHash: hex.optional(),
    })
    .optional(),
})

/**
 * What the service keeps about each transaction it signed: enough to list it, answer receipts and re-sign it. Every
 * record has its `kind` and its `to`; a record of an older version gets them from what it held: a `seedOf` made it a
 * seed (or, sending `transfer`, a pool share given back), otherwise it went to the B20 factory, a launch when it had
 * a pool.
 */
export const transactionRecordSchema = storedRecordSchema.transform(({ seedOf, ...record }) => {
  const of = record.of ?? seedOf
  const kind: TransactionKind =
    record.kind ?? (of ? (record.data.startsWith(TRANSFER_SELECTOR) ? 'return' : 'seed') : record.pool ? 'launch' : 'deploy')
  return { ...record, kind, to: record.to ?? B20_FACTORY_ADDRESS, ...(of ? { of } : {}) }
})

/** What the service keeps about each transaction it signed (see {@link transactionRecordSchema}). */
export type TransactionRecord = z.output<typeof transactionRecordSchema>

/** How long transaction records are kept (the agent's history: 30 days). */
export const DEPLOY_HISTORY_TTL_MS = 30 * 86_400_000
/** Most transactions kept per agent (and unmined per signer). */
export const DEPLOY_HISTORY_MAX_ENTRIES = 1000

/** Parameters of {@link recordTransaction}. */
export type RecordTransactionParameters = {
  store: Store
  keys: DeployHistoryKeys
  signer: string
  record: TransactionRecord
  inAgentHistory: boolean
}

/**
 * Keeps a signed transaction before it is broadcast, in one store step: its record, the signer's unmined list and
 * (for what the agent asked for, not a replacement, a seed or a share given back) the agent's history; a launch
 * also in the signer's open pools and the pooled launches.
 */
export async function recordTransaction({ store, keys, signer, record, inAgentHistory }: RecordTransactionParameters): Promise<void> {
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
  // A token's creation, as first sent: where a lookup by the token's address finds it (records/launchState.ts). A
  // second deploy of the same salt does not take it over (it can only revert); the creation's confirmation sets it.
  if ((record.kind === 'deploy' || record.kind === 'launch') && !record.replaces)
    await store.setIfAbsent(keys.launchOf(record.predictedAddress), record.txHash.toLowerCase(), DEPLOY_HISTORY_TTL_MS)
}

/** Forgets a transaction that was not sent after all (the node refused it): record and list entries. */
export async function forgetTransaction(store: Store, keys: DeployHistoryKeys, signer: string, record: TransactionRecord): Promise<void> {
  await Promise.all([
    removeFromIndex(store, keys.agent(record.agent), record.txHash.toLowerCase()),
    removeFromIndex(store, keys.unmined(signer), record.txHash.toLowerCase()),
    removeFromIndex(store, keys.recent, record.txHash.toLowerCase()),
    ...(record.pool ? [removeFromIndexes(store, [keys.poolsOpen(signer), keys.pooled], record.txHash.toLowerCase())] : []),
  ])
  await store.delete(keys.record(record.txHash))
  if ((record.kind === 'deploy' || record.kind === 'launch') && !record.replaces) await store.delete(keys.launchOf(record.predictedAddress))
}

/** Parses a stored record; null when absent or not one. */
export function parseTransactionRecord(value: string | null): TransactionRecord | null {
  return parseRecord(transactionRecordSchema, value)
}

/** The record of a transaction this service sent, or null. */
export async function readTransactionRecord(store: Store, keys: DeployHistoryKeys, txHash: string): Promise<TransactionRecord | null> {
  return parseTransactionRecord(await store.get(keys.record(txHash)))
}

/** Rewrites a record with a new status (and what goes with it). */
export async function updateTransactionRecord(store: Store, keys: DeployHistoryKeys, record: TransactionRecord): Promise<void> {
  await store.set(keys.record(record.txHash), JSON.stringify(record), DEPLOY_HISTORY_TTL_MS)
}

/** The signer's transactions not yet seen mined, oldest first. */
export async function listUnmined(store: Store, keys: DeployHistoryKeys, signer: string): Promise<TransactionRecord[]> {
  const values = await listIndexed(store, { indexKey: keys.unmined(signer), recordPrefix: keys.recordPrefix, limit: 100 })
  return values
    .map(parseTransactionRecord)
    .filter((r): r is TransactionRecord => r !== null)
    .reverse()
}

/** Stored records read back, oldest first (an index lists newest first); anything not a record is skipped. */
const oldestFirst = (values: readonly string[]) =>
  values
    .map(parseTransactionRecord)
    .filter((r): r is TransactionRecord => r !== null)
    .reverse()

/**
 * What the tick's follow-up looks at, in one read when there is nothing (the usual minute): the signer's unmined
 * transactions (at most 100) and its pooled launches whose pool is not settled yet (at most 20), each oldest first.
 */
export async function listUnminedAndOpenPools(
  store: Store,
  keys: DeployHistoryKeys,
  signer: string,
): Promise<{ unmined: TransactionRecord[]; openPools: TransactionRecord[] }> {
  const [unmined, open] = await listIndexedEach(store, {
    indexKeys: [keys.unmined(signer), keys.poolsOpen(signer)],
    recordPrefix: keys.recordPrefix,
    limit: 100,
  })
  return { unmined: oldestFirst(unmined!), openPools: oldestFirst(open!.slice(0, 20)).filter((r) => r.pool !== undefined) }
}
