import type { Address, Hex, PublicClient } from 'viem'
import type { KmsAccount } from '../../chain/kmsAccount.js'
import type { Logger } from '../../platform/log.js'
import { type Accepted, accepted, type Refused, refused } from '../../platform/result.js'
import { removeFromIndex } from '../../store/recordIndex.js'
import type { Store } from '../../store/types.js'
import type { DeployHistoryKeys } from '../keys.js'
import { type DeployFailure, failure, storeFailureOf } from '../outcome.js'
import { broadcast } from './broadcast.js'
import { currentFees, type Fees, replacementFees } from './fees.js'
import { signCall } from './sign.js'
import { listUnmined, recordTransaction, type TransactionRecord, updateTransactionRecord } from './signedTransactions.js'

// A transaction left unmined (underpriced after a base-fee jump) holds every later nonce of the signer behind it:
// under the nonce lock, it is re-signed with the same nonce, gas and calldata at higher fees and sent again.

/** Parameters of {@link replaceStuckDeploys}. */
export type ReplaceStuckDeploysParameters = {
  store: Store
  keys: DeployHistoryKeys
  publicClient: PublicClient
  signer: KmsAccount
  chainId: number
  logger: Logger
  now: number
  /** Age (ms since sent) past which an unmined transaction is replaced. */
  stuckMs: number
  /** Highest `maxFeePerGas` a replacement may offer. */
  maxFeePerGas: bigint
}

/** A stuck deploy and the higher-fee copy that went out in its place. */
export type Replacement = { from: Hex; to: Hex; record: TransactionRecord }

/**
 * The replacements an agent is told of: those of the transactions it asked for. One that belongs to another (`of`:
 * a launch's seed, its share given back) is that one's business, told through it.
 */
export const deploysOnly = (replaced: Replacement[]): Replacement[] => replaced.filter(({ record }) => !record.of)

/**
 * Result of {@link replaceStuckDeploys}: done, or why the new deploy must wait. Either way `replaced` lists every copy
 * that went out, so the caller tells their agents (`deploy.replaced`) even when a later step failed.
 */
export type ReplaceStuckDeploysReturnType =
  | Accepted<{ replaced: Replacement[] }>
  | Refused<DeployFailure['code'], { failure: DeployFailure; replaced: Replacement[] }>

/**
 * Called under the nonce lock before a new deploy is signed: every transaction of the signer still unmined after
 * `stuckMs` is re-signed with the same nonce, gas and calldata at higher fees and sent, and the swap is recorded.
 * Transactions seen mined (their nonce is below the signer's mined count) leave the unmined list. A store failure is
 * answered (`STORE_UNAVAILABLE`), saying which replacements went out before it; any other error is thrown on.
 */
export async function replaceStuckDeploys(parameters: ReplaceStuckDeploysParameters): Promise<ReplaceStuckDeploysReturnType> {
  const replaced: Replacement[] = []
  try {
    const stopped = await replaceEach(parameters, replaced)
    return stopped ? refused(stopped.code, { failure: stopped, replaced }) : accepted({ replaced })
  } catch (error) {
    const sent = replaced.map(({ from, to }) => `${from} by ${to}`).join(', ')
    const failed = storeFailureOf(error, {
      logger: parameters.logger,
      operation: 'replace-stuck',
      effect: replaced.length > 0 ? 'replacement broadcast, not fully recorded; deploy refused' : 'deploy refused',
      message:
        replaced.length > 0
          ? `The deploy coordinator (Redis) failed while recording the replacement of a stuck earlier deploy (${sent}: broadcast); this deploy was not signed. Try again shortly.`
          : 'The deploy coordinator (Redis) failed while looking at an earlier stuck deploy; nothing was broadcast. Try again shortly.',
    })
    return refused(failed.code, { failure: failed, replaced })
  }
}

/** Replaces each stuck transaction in turn, adding what went out to `replaced`; answers why it stopped, or null. */
async function replaceEach(parameters: ReplaceStuckDeploysParameters, replaced: Replacement[]): Promise<DeployFailure | null> {
  const { store, keys, publicClient, signer, logger, now, stuckMs, maxFeePerGas: cap } = parameters
  const unmined = await listUnmined(store, keys, signer.address)
  const unminedKey = keys.unmined(signer.address)
  // Only an old entry costs a chain request; younger ones (most likely mined already) wait for a later look.
  if (!unmined.some((record) => now - record.sentAt >= stuckMs)) return null
  let minedCount: number
  try {
    minedCount = await publicClient.getTransactionCount({ address: signer.address, blockTag: 'latest' })
  } catch {
    return failure('RPC_UNAVAILABLE', 'The chain RPC is unavailable; nothing was signed. Try again shortly.', { retryAfterSeconds: 5 })
  }
  let fees: { nextBaseFee: bigint; suggestedPriorityFee: bigint } | undefined
  for (const record of unmined) {
    if (record.nonce < minedCount) {
      await removeFromIndex(store, unminedKey, record.txHash)
      continue
    }
    if (now - record.sentAt < stuckMs) continue
    try {
      fees ??= await currentFees(publicClient)
    } catch {
      return failure('RPC_UNAVAILABLE', 'The chain RPC is unavailable; nothing was signed. Try again shortly.', { retryAfterSeconds: 5 })
    }
    const next = replacementFees({
      previous: { maxFeePerGas: BigInt(record.maxFeePerGas), maxPriorityFeePerGas: BigInt(record.maxPriorityFeePerGas) },
      ...fees,
      cap,
    })
    if (!next.ok) {
      logger.error('deploy_replacement_over_cap', {
        txHash: record.txHash,
        nonce: record.nonce,
        neededMaxFeePerGas: next.neededMaxFeePerGas.toString(),
        capMaxFeePerGas: cap.toString(),
      })
      return failure(
        'DEPLOY_BUSY',
        `An earlier deploy (${record.txHash}, nonce ${record.nonce}) is stuck and replacing it would need a max fee of ${next.neededMaxFeePerGas} wei per gas, above this service's cap of ${cap}; nothing was signed. The operator has been told.`,
        { retryAfterSeconds: 60, txHash: record.txHash },
      )
    }
    const outcome = await sendReplacement({ ...parameters, record, fees: next, replaced })
    if (outcome.kind === 'failed') return outcome.failure
    if (outcome.kind === 'mined') await removeFromIndex(store, unminedKey, record.txHash)
  }
  return null
}

type SendReplacementOutcome = { kind: 'sent'; txHash: Hex } | { kind: 'mined' } | { kind: 'failed'; failure: DeployFailure }

/**
 * Signs and sends one replacement, recording it before the broadcast so that a lost answer is still tracked. Once it
 * went out (or may have) it is in `replaced` before anything else is written, so a store failure after the send
 * cannot hide it.
 */
async function sendReplacement(
  parameters: ReplaceStuckDeploysParameters & { record: TransactionRecord; fees: Fees; replaced: Replacement[] },
): Promise<SendReplacementOutcome> {
  const { store, keys, publicClient, signer, chainId, logger, now, record, fees, replaced } = parameters
  const signed = await signCall({
    signer,
    chainId,
    logger,
    transaction: {
      call: { to: record.to, data: record.data, value: BigInt(record.value ?? '0') },
      nonce: record.nonce,
      price: { gas: BigInt(record.gas), ...fees },
      // A launch that set the signer's delegation carries its authorization again (signed for nonce + 1: still good).
      ...(record.authorization
        ? { authorizationList: [{ ...record.authorization, address: record.authorization.address, yParity: record.authorization.yParity }] }
        : {}),
    },
  })
  if (!signed.ok) return { kind: 'failed', failure: signed }
  const { serialized, txHash } = signed
  const replacement: TransactionRecord = {
    ...record,
    txHash,
    sentAt: now,
    status: 'broadcast',
    replaces: record.txHash,
    originalTxHash: record.originalTxHash ?? record.txHash,
    replacedBy: undefined,
    maxFeePerGas: fees.maxFeePerGas.toString(),
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
  }
  await recordTransaction({ store, keys, signer: signer.address, record: replacement, inAgentHistory: false })
  const sent = await broadcast({ publicClient, serialized, txHash })
  // The nonce is used: either the original was mined meanwhile (the replacement can never be, so it is forgotten),
  // or the node already holds this replacement. The chain tells which.
  if (sent.kind === 'uncertain' && sent.nonceUsed && (await nonceMined(publicClient, signer.address, record.nonce))) {
    await removeFromIndex(store, keys.unmined(signer.address), txHash)
    await store.delete(keys.record(txHash))
    return { kind: 'mined' }
  }
  if (sent.kind === 'refused') {
    await removeFromIndex(store, keys.unmined(signer.address), txHash)
    await store.delete(keys.record(txHash))
    logger.error('deploy_replacement_refused', { txHash: record.txHash, nonce: record.nonce, message: sent.message })
    return {
      kind: 'failed',
      failure: failure(
        'DEPLOY_BUSY',
        `An earlier deploy (${record.txHash}) is stuck and the node refused its replacement (${sent.message}); nothing new was signed. Retry shortly.`,
        { retryAfterSeconds: 10, txHash: record.txHash },
      ),
    }
  }
  // Sent, or no answer: the replacement may be on its way; it stays recorded and is followed like a sent one.
  replaced.push({ from: record.txHash, to: txHash, record })
  await Promise.all([
    removeFromIndex(store, keys.unmined(signer.address), record.txHash),
    updateTransactionRecord(store, keys, { ...record, status: 'replaced', replacedBy: txHash }),
  ])
  logger.warn('deploy_replaced', {
    txHash: record.txHash,
    replacedBy: txHash,
    nonce: record.nonce,
    maxFeePerGas: fees.maxFeePerGas.toString(),
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
  })
  return { kind: 'sent', txHash }
}

/** Whether the signer's `nonce` is mined (the latest block's count is past it); on no answer, assumed not. */
async function nonceMined(publicClient: PublicClient, address: Address, nonce: number): Promise<boolean> {
  const mined = await publicClient.getTransactionCount({ address, blockTag: 'latest' }).catch(() => 0)
  return mined > nonce
}
