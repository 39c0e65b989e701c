// Where a token's deploy record is, by the token's address: the pointer each deploy's record is written with, so an
// address that is no launch here costs one read. The deploys written before pointers get theirs once.
import type { Address } from 'viem'
import { listIndexed } from '../../store/recordIndex.js'
import type { Store } from '../../store/types.js'
import type { DeployHistoryKeys } from '../keys.js'
import {
  DEPLOY_HISTORY_TTL_MS,
  parseTransactionRecord,
  readTransactionRecord,
  type TransactionRecord,
} from '../sender/signedTransactions.js'

/** Launches a lookup by address walks, newest first: as many as the public feed lists (and the tick follows). */
export const LAUNCH_LOOKUP_MAX = 300

/**
 * The deploy record of a token: by the pointer its record was written with (keys.ts `launchOf`), or null. The
 * deploys written before pointers get theirs once, from the newest {@link LAUNCH_LOOKUP_MAX} of the deploy index, and
 * a marker says so: after that, an address that is no launch here costs one read (`known`: what that read found).
 */
export async function findLaunchRecord(
  store: Store,
  keys: DeployHistoryKeys,
  token: Address,
  known?: { pointer: string | null; complete: string | null },
): Promise<TransactionRecord | null> {
  const [pointer, complete] = known ? [known.pointer, known.complete] : await store.getMany([keys.launchOf(token), keys.launchOfComplete])
  if (pointer) return readTransactionRecord(store, keys, pointer)
  if (complete) return null
  const values = await listIndexed(store, { indexKey: keys.recent, recordPrefix: keys.recordPrefix, limit: LAUNCH_LOOKUP_MAX })
  const creations = values
    .map(parseTransactionRecord)
    .filter((record): record is TransactionRecord => record !== null && (record.kind === 'deploy' || record.kind === 'launch'))
  await store.writeMany({
    entries: [
      ...creations.map((record) => ({
        key: keys.launchOf(record.predictedAddress),
        value: (record.originalTxHash ?? record.txHash).toLowerCase(),
        ttlMs: DEPLOY_HISTORY_TTL_MS,
        ifAbsent: true,
      })),
      { key: keys.launchOfComplete, value: '1', ttlMs: DEPLOY_HISTORY_TTL_MS },
    ],
  })
  const wanted = token.toLowerCase()
  return creations.find((record) => record.predictedAddress.toLowerCase() === wanted) ?? null
}
