import { type Address, type Hex, keccak256, type PublicClient } from 'viem'
import { B20_FACTORY_ADDRESS } from '../chain/b20.js'
import type { KmsAccount } from '../chain/kmsAccount.js'
import { errorName, type Logger } from '../platform/log.js'
import type { Store } from '../store/types.js'
import { isTransportFailure, shortMessage } from './chainErrors.js'
import { type DeployHistoryKeys, type DeployRecord, listUnmined, recordDeploy, updateDeployRecord } from './history.js'
import { type DeployFailure, failure } from './outcome.js'

// The signer's one nonce stream, shared by every instance: the lock that serialises deploys, the fence that signs a
// nonce at most once, and the replacement of transactions left unmined (underpriced after a base-fee jump), which
// would otherwise hold every later nonce behind them.

/** Lowest priority fee offered (0.001 gwei), since Base's percentile rewards can be zero. */
export const MIN_PRIORITY_FEE = 1_000_000n
/** How long a claimed nonce stays reserved when its transaction never shows up. */
const NONCE_CLAIM_MS = 120_000
/** A replacement offers at least this much more (in thousandths): nodes ask for 10 %, 12.5 % leaves a margin. */
const REPLACEMENT_BUMP_PER_MILLE = 1125n

/** How often a waiter asks the store for the lock: at most one round trip per 20 ms. */
export const LOCK_POLL_MS = 20

/** The nonce lock, held: its owner token (the fence checks it) and how to give it back. */
export type NonceLock = { token: string; release(): Promise<void> }

/** Deploys of this instance waiting for the signer, in arrival order (one queue per lock key). */
const localTails = new Map<string, Promise<void>>()

/** Takes a place in this instance's queue: `ready` resolves when every earlier local waiter is done. */
function localTurn(key: string): { ready: Promise<void>; done: () => void } {
  const ready = localTails.get(key) ?? Promise.resolve()
  let done!: () => void
  const mine = new Promise<void>((resolve) => (done = resolve))
  const tail = ready.then(() => mine)
  localTails.set(key, tail)
  void tail.then(() => {
    if (localTails.get(key) === tail) localTails.delete(key)
  })
  return { ready, done }
}

/**
 * Waits for the nonce lock; answers it, or null after `waitMs`. Waiters of one instance queue in memory and hand the
 * turn on at once, so only the first of them asks the store, once per {@link LOCK_POLL_MS}; instances meet at the
 * store's lock. Store failures propagate (fail closed).
 */
export async function acquireNonceLock(store: Store, key: string, leaseMs: number, waitMs: number): Promise<NonceLock | null> {
  const deadline = Date.now() + waitMs
  const turn = localTurn(key)
  let timer: NodeJS.Timeout | undefined
  const inTime = await Promise.race([
    turn.ready.then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
  ])
  clearTimeout(timer)
  if (!inTime) {
    // Gave up while queued: the turn passes on as soon as it comes.
    void turn.ready.then(turn.done)
    return null
  }
  try {
    for (;;) {
      const token = await store.acquireLock(key, leaseMs)
      if (token) {
        // The local turn ends with the lease at the latest, as the store's lock does: nothing can jam the queue.
        const lapse = setTimeout(turn.done, leaseMs)
        lapse.unref?.()
        return {
          token,
          release: () =>
            store
              .releaseLock(key, token)
              .then(
                () => undefined,
                () => undefined,
              )
              .finally(() => {
                clearTimeout(lapse)
                turn.done()
              }),
        }
      }
      if (Date.now() + LOCK_POLL_MS > deadline) {
        turn.done()
        return null
      }
      await new Promise((r) => setTimeout(r, LOCK_POLL_MS))
    }
  } catch (error) {
    turn.done()
    throw error
  }
}

/** Parameters of {@link claimNonce}. */
export type ClaimNonceParameters = { store: Store; nonceKey: string; lockKey: string; lockToken: string }

/**
 * The fence: claims a nonce for the lock holder (a nonce is signed at most once, even if the lock's lease ran out under
 * us) and checks the lock is still ours. Answers `claimed`, `held` (someone else has the nonce) or `lock-lost`.
 */
export async function claimNonce({ store, nonceKey, lockKey, lockToken }: ClaimNonceParameters): Promise<'claimed' | 'held' | 'lock-lost'> {
  if (!(await store.setIfAbsent(nonceKey, lockToken, NONCE_CLAIM_MS))) return 'held'
  return (await store.get(lockKey)) === lockToken ? 'claimed' : 'lock-lost'
}

/** EIP-1559 fees of one transaction, in wei. */
export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }

/** Parameters of {@link replacementFees}. */
export type ReplacementFeesParameters = {
  previous: Fees
  /** Base fee of the next block. */
  nextBaseFee: bigint
  /** Priority fee the network asks for now. */
  suggestedPriorityFee: bigint
  /** Highest `maxFeePerGas` allowed (`DEPLOY_MAX_FEE_GWEI`). */
  cap: bigint
}

/** Result of {@link replacementFees}: the fees, or the least `maxFeePerGas` a replacement would need, above the cap. */
export type ReplacementFeesReturnType = ({ ok: true } & Fees) | { ok: false; neededMaxFeePerGas: bigint }

const bump = (wei: bigint) => (wei * REPLACEMENT_BUMP_PER_MILLE + 999n) / 1000n

/**
 * Fees of a replacement: both raised by at least 12.5 % over the stuck transaction's, the priority fee at least what
 * the network asks now, and `maxFeePerGas` enough for the next base fee (twice it when the cap leaves room), never
 * above the cap.
 */
export function replacementFees({
  previous,
  nextBaseFee,
  suggestedPriorityFee,
  cap,
}: ReplacementFeesParameters): ReplacementFeesReturnType {
  const priority = maxBigInt(bump(previous.maxPriorityFeePerGas), suggestedPriorityFee, MIN_PRIORITY_FEE)
  const needed = maxBigInt(bump(previous.maxFeePerGas), nextBaseFee + priority)
  if (needed > cap) return { ok: false, neededMaxFeePerGas: needed }
  const wanted = nextBaseFee * 2n + priority
  const maxFeePerGas = wanted > needed ? (wanted < cap ? wanted : cap) : needed
  return { ok: true, maxFeePerGas, maxPriorityFeePerGas: priority }
}

/** The largest of some bigints (Math.max throws on bigints). */
export function maxBigInt(first: bigint, ...rest: bigint[]): bigint {
  // biome-ignore lint/complexity/useMathMinMax: these are bigints, which Math.max refuses
  return rest.reduce((a, b) => (a > b ? a : b), first)
}

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

/** Result of {@link replaceStuckDeploys}: done (with what was replaced), or why the new deploy must wait. */
export type ReplaceStuckDeploysReturnType = { ok: true; replaced: { from: Hex; to: Hex }[] } | DeployFailure

/**
 * Called under the nonce lock before a new deploy is signed: every transaction of the signer still unmined after
 * `stuckMs` is re-signed with the same nonce, gas and calldata at higher fees and sent, and the swap is recorded.
 * Transactions seen mined (their nonce is below the signer's mined count) leave the unmined list.
 */
export async function replaceStuckDeploys(parameters: ReplaceStuckDeploysParameters): Promise<ReplaceStuckDeploysReturnType> {
  const { store, keys, publicClient, signer, logger, now, stuckMs, maxFeePerGas: cap } = parameters
  const unmined = await listUnmined(store, keys, signer.address)
  const unminedKey = keys.unmined(signer.address)
  // Only an old entry costs a chain request; younger ones (most likely mined already) wait for a later look.
  if (!unmined.some((record) => now - record.sentAt >= stuckMs)) return { ok: true, replaced: [] }
  let minedCount: number
  try {
    minedCount = await publicClient.getTransactionCount({ address: signer.address, blockTag: 'latest' })
  } catch {
    return failure('RPC_UNAVAILABLE', 'The chain RPC is unavailable; nothing was signed. Try again shortly.', { retryAfterSeconds: 5 })
  }
  const replaced: { from: Hex; to: Hex }[] = []
  let fees: { nextBaseFee: bigint; suggestedPriorityFee: bigint } | undefined
  for (const record of unmined) {
    if (record.nonce < minedCount) {
      await store.removeFromIndex(unminedKey, record.txHash)
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
    const outcome = await sendReplacement({ ...parameters, record, fees: next })
    if (outcome.kind === 'failed') return outcome.failure
    if (outcome.kind === 'mined') {
      await store.removeFromIndex(unminedKey, record.txHash)
      continue
    }
    replaced.push({ from: record.txHash, to: outcome.txHash })
  }
  return { ok: true, replaced }
}

/** The next block's base fee and the median priority fee of the latest block (one `eth_feeHistory`). */
export async function currentFees(publicClient: PublicClient): Promise<{ nextBaseFee: bigint; suggestedPriorityFee: bigint }> {
  const history = await publicClient.getFeeHistory({ blockCount: 1, rewardPercentiles: [50], blockTag: 'latest' })
  return {
    nextBaseFee: history.baseFeePerGas[history.baseFeePerGas.length - 1] ?? 0n,
    suggestedPriorityFee: history.reward?.[0]?.[0] ?? 0n,
  }
}

type SendReplacementOutcome = { kind: 'sent'; txHash: Hex } | { kind: 'mined' } | { kind: 'failed'; failure: DeployFailure }

/** Signs and sends one replacement, recording it before the broadcast so that a lost answer is still tracked. */
async function sendReplacement(
  parameters: ReplaceStuckDeploysParameters & { record: DeployRecord; fees: Fees },
): Promise<SendReplacementOutcome> {
  const { store, keys, publicClient, signer, chainId, logger, now, record, fees } = parameters
  let serialized: Hex
  try {
    serialized = await signer.signTransaction({
      type: 'eip1559',
      chainId,
      to: B20_FACTORY_ADDRESS as Address,
      data: record.data,
      value: 0n,
      nonce: record.nonce,
      gas: BigInt(record.gas),
      ...fees,
    })
  } catch (error) {
    logger.error('kms_unavailable', { operation: 'Sign', error: errorName(error) })
    return {
      kind: 'failed',
      failure: failure('SIGNER_UNAVAILABLE', 'The signing service (KMS) failed; nothing was broadcast. Try again shortly.', {
        retryAfterSeconds: 10,
      }),
    }
  }
  const txHash = keccak256(serialized)
  const replacement: DeployRecord = {
    ...record,
    txHash,
    sentAt: now,
    status: 'broadcast',
    replaces: record.txHash,
    replacedBy: undefined,
    maxFeePerGas: fees.maxFeePerGas.toString(),
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
  }
  await recordDeploy({ store, keys, signer: signer.address, record: replacement, inAgentHistory: false })
  try {
    await publicClient.sendRawTransaction({ serializedTransaction: serialized })
  } catch (error) {
    const message = shortMessage(error)
    if (/nonce too low|already imported/i.test(message)) {
      // The original was mined meanwhile: the replacement can never be, so it is forgotten.
      await store.removeFromIndex(keys.unmined(signer.address), txHash)
      await store.delete(keys.record(txHash))
      return { kind: 'mined' }
    }
    if (!isTransportFailure(error) && !/already known|known transaction/i.test(message)) {
      await store.removeFromIndex(keys.unmined(signer.address), txHash)
      await store.delete(keys.record(txHash))
      logger.error('deploy_replacement_refused', { txHash: record.txHash, nonce: record.nonce, message })
      return {
        kind: 'failed',
        failure: failure(
          'DEPLOY_BUSY',
          `An earlier deploy (${record.txHash}) is stuck and the node refused its replacement (${message}); nothing new was signed. Retry shortly.`,
          { retryAfterSeconds: 10, txHash: record.txHash },
        ),
      }
    }
    // No answer: the replacement may be on its way; it stays recorded and is followed like a sent one.
  }
  await Promise.all([
    store.removeFromIndex(keys.unmined(signer.address), record.txHash),
    updateDeployRecord(store, keys, { ...record, status: 'replaced', replacedBy: txHash }),
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
