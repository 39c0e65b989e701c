import type { Address, Hex, TransactionReceipt } from 'viem'
import { removeFromIndex } from '../../store/recordIndex.js'
import type { Store } from '../../store/types.js'
import { type DeployHistoryKeys, deployHistoryKeys } from '../keys.js'

import { tellMined } from '../records/actionReceipt.js'
import { type NonceLocks, signerLock } from '../sender/nonceLock.js'
import { deploysOnly, replaceStuckDeploys } from '../sender/replaceStuck.js'
import {
  listUnminedAndOpenPools,
  readTransactionRecord,
  type TransactionRecord,
  updateTransactionRecord,
} from '../sender/signedTransactions.js'
import type { DeployServices } from '../services.js'
import { notifyReplaced } from '../webhooks/outbox.js'
import { type SettleOpenPoolsReturnType, settleOpenPools } from './returnPoolShare.js'

/** How long a follow-up waits for the nonce lock: a deploy holding it replaces stuck transactions itself. */
const FOLLOW_LOCK_WAIT_MS = 2000

/** Most `replaces` links walked up when an outcome is told to the deploys it replaced. */
const REPLACES_HOPS_MAX = 5

/** What one follow-up of the unmined deploys did. */
export type FollowDeploysReturnType = {
  /** Why nothing was followed (deploys are not configured here). */
  skipped?: 'no signer configured' | 'no shared store'
  /** Transactions found unmined when the follow-up began. */
  unmined: number
  confirmed: number
  reverted: number
  /** Stuck transactions re-signed with higher fees. */
  replaced: number
  /** Why the stuck ones were not replaced this time, when they were not. */
  replacement?: string
  /** Pooled launches looked at: seeded, their share given back after a failed seed, still pending. */
  pools?: SettleOpenPoolsReturnType
}

/**
 * Follows the signer's unmined deploys without anyone asking: each one mined since is recorded as confirmed or reverted
 * (so `list_deploys` shows it), and one unmined past `DEPLOY_STUCK_SECONDS` is replaced with higher fees under the
 * nonce lock, as a new deploy would. A copy that lost its nonce to another copy leaves the list, and the copy that won
 * is recorded. Throws when the store or the chain cannot be read (the tick reports it).
 */
export async function followDeploys(services: DeployServices): Promise<FollowDeploysReturnType> {
  const { store, config } = services
  const none = { unmined: 0, confirmed: 0, reverted: 0, replaced: 0 }
  if (!services.getSigner) return { skipped: 'no signer configured', ...none }
  const { nonceLocks } = services
  if (!store || !nonceLocks) return { skipped: 'no shared store', ...none }
  const signer: Address = config.signerAddress ?? (await services.getSigner()).address
  const keys = deployHistoryKeys({ storePrefix: config.storePrefix, chainId: config.chainId })
  // One read when the signer has nothing on the way, the usual minute.
  const { unmined, openPools } = await listUnminedAndOpenPools(store, keys, signer)
  const followed = unmined.length === 0 ? none : await followUnmined(services, store, nonceLocks, keys, signer, unmined)
  if (openPools.length === 0) return followed
  // Pooled launches after the follow-up: a seed it found mined or reverted is settled in the same tick.
  const pools = await settleOpenPools({
    services,
    store,
    keys,
    open: openPools,
    signer,
    getSigner: services.getSigner,
    acquireLock: () => followLock(services, nonceLocks, signer),
  })
  return { ...followed, pools }
}

/** The follow-up of the unmined transactions proper (see {@link followDeploys}). */
async function followUnmined(
  services: DeployServices,
  store: Store,
  nonceLocks: NonceLocks,
  keys: DeployHistoryKeys,
  signer: Address,
  unmined: TransactionRecord[],
): Promise<FollowDeploysReturnType> {
  const { config, publicClient, logger } = services
  const none = { unmined: 0, confirmed: 0, reverted: 0, replaced: 0 }

  const receiptOf = (hash: Hex) => publicClient.getTransactionReceipt({ hash }).catch(() => null)
  const [receipts, minedCount] = await Promise.all([
    Promise.all(unmined.map((record) => receiptOf(record.txHash))),
    publicClient.getTransactionCount({ address: signer, blockTag: 'latest' }),
  ])
  const result: FollowDeploysReturnType = { ...none, unmined: unmined.length }
  const settle = async (record: TransactionRecord, receipt: TransactionReceipt) => {
    const status = receipt.status === 'success' ? 'confirmed' : 'reverted'
    result[status]++
    await recordOutcome(store, keys, record, status)
    await removeFromIndex(store, keys.unmined(signer), record.txHash.toLowerCase())
    // A transaction that belongs to another (`of`: a launch's seed, its share given back) is told through that one.
    if (record.of) return
    await tellMined({ services: { ...services, store }, keys, record, receipt, status })
  }
  let stuck = false
  for (const [i, record] of unmined.entries()) {
    const receipt = receipts[i]
    if (receipt) {
      await settle(record, receipt)
      continue
    }
    if (record.nonce < minedCount) {
      // Another copy of this nonce was mined: the one this copy replaced (or an earlier one), or a replacement of it.
      const winner = await findMinedCopy(store, keys, record, receiptOf)
      if (winner) await settle(winner.record, winner.receipt)
      await removeFromIndex(store, keys.unmined(signer), record.txHash.toLowerCase())
      // A replacement that lost is forgotten; the agent's own deploy keeps its record, which the winning copy's
      // outcome marks as replaced (even when the store failed to mark it as the replacement went out).
      if (record.replaces) await store.delete(keys.record(record.txHash))
      continue
    }
    if (services.clock.now() - record.sentAt >= config.stuckSeconds * 1000) stuck = true
  }
  if (!stuck) return result

  // Under the nonce lock, as before a new deploy: nothing else signs meanwhile.
  const lock = await followLock(services, nonceLocks, signer)
  if (!lock) return { ...result, replacement: 'a deploy holds the nonce lock; it replaces stuck transactions itself' }
  try {
    const replaced = await replaceStuckDeploys({
      store,
      keys,
      publicClient,
      signer: await services.getSigner!(),
      chainId: config.chainId,
      logger,
      now: services.clock.now(),
      stuckMs: config.stuckSeconds * 1000,
      maxFeePerGas: config.maxFeePerGasWei,
    })
    notifyReplaced({ webhooks: services.webhooks, background: services.background, replaced: deploysOnly(replaced.replaced) })
    const done = { ...result, replaced: replaced.replaced.length }
    return !replaced.ok ? { ...done, replacement: `${replaced.failure.code}: ${replaced.failure.error}` } : done
  } finally {
    await lock.release()
  }
}

/** Walks a copy's `replaces` links to the copy that was mined, if one was. */
/** The signer's nonce lock as the follow-up takes it: a wait of at most {@link FOLLOW_LOCK_WAIT_MS}. */
function followLock(services: DeployServices, nonceLocks: NonceLocks, signer: Address) {
  const { storePrefix, chainId } = services.config
  return nonceLocks.acquire(signerLock({ storePrefix, chainId, signer, leaseMs: services.lockLeaseMs, waitMs: FOLLOW_LOCK_WAIT_MS }))
}

async function findMinedCopy(
  store: Store,
  keys: DeployHistoryKeys,
  record: TransactionRecord,
  receiptOf: (hash: Hex) => Promise<TransactionReceipt | null>,
): Promise<{ record: TransactionRecord; receipt: TransactionReceipt } | null> {
  let current = record
  for (let hop = 0; hop < REPLACES_HOPS_MAX && current.replaces; hop++) {
    const earlier = await readTransactionRecord(store, keys, current.replaces)
    if (!earlier) return null
    const receipt = await receiptOf(earlier.txHash)
    if (receipt) return { record: earlier, receipt }
    current = earlier
  }
  return null
}

/**
 * Records a mined copy's outcome: on the copy itself (its status; a copy mined after all is no longer replaced), and
 * on each copy it replaced up the chain as `replacementStatus`, so the agent's own entry in `list_deploys` says how
 * its deploy ended.
 */
async function recordOutcome(store: Store, keys: DeployHistoryKeys, record: TransactionRecord, status: 'confirmed' | 'reverted') {
  const { replacedBy: _replacedBy, replacementStatus: _replacementStatus, ...rest } = record
  await updateTransactionRecord(store, keys, { ...rest, status })
  let current = record
  for (let hop = 0; hop < REPLACES_HOPS_MAX && current.replaces; hop++) {
    const earlier = await readTransactionRecord(store, keys, current.replaces)
    if (!earlier) return
    await updateTransactionRecord(store, keys, { ...earlier, status: 'replaced', replacedBy: current.txHash, replacementStatus: status })
    current = earlier
  }
}
