import { type Address, type Hex, keccak256, type PublicClient } from 'viem'
import { B20_FACTORY_ADDRESS } from '../../chain/b20.js'
import type { KmsAccount } from '../../chain/kmsAccount.js'
import { errorName, type Logger } from '../../platform/log.js'
import { removeFromIndex } from '../../store/recordIndex.js'
import type { Store } from '../../store/types.js'
import type { DeployHistoryKeys } from '../keys.js'
import { type DeployFailure, failure } from '../outcome.js'
import { type DeployRecord, listUnmined, recordDeploy, updateDeployRecord } from '../records/history.js'
import { isTransportFailure, nodeRefusalOf, shortMessage } from './chainErrors.js'
import { type ClaimNextNonceReturnType, claimNextNonce, releaseNonce } from './nonceFence.js'

// The signer's one nonce stream, shared by every instance: the lock that serialises deploys, the fence that signs a
// nonce at most once, and the replacement of transactions left unmined (underpriced after a base-fee jump), which
// would otherwise hold every later nonce behind them.

/** Lowest priority fee offered (0.001 gwei), since Base's percentile rewards can be zero. */
export const MIN_PRIORITY_FEE = 1_000_000n
/** How long a claimed nonce stays reserved when its transaction never shows up. */
export const NONCE_CLAIM_MS = 120_000
/** A replacement offers at least this much more (in thousandths): nodes ask for 10 %, 12.5 % leaves a margin. */
const REPLACEMENT_BUMP_PER_MILLE = 1125n

/** How often a waiter first asks the store for the lock: at most one round trip per 20 ms. */
export const LOCK_POLL_MS = 20
/** The longest pause between a waiter's asks, reached by backing off 1.5 times per ask while another instance holds. */
export const LOCK_POLL_MAX_MS = 100
/**
 * Deploys of one instance that may follow each other under one store lock: the holder hands the lock straight to the
 * next local waiter (no store round trip, no poll) this many times, then gives it back so other instances get a turn.
 */
export const LOCK_HANDOFFS_MAX = 8

/** Where the signer's nonce stream lives in the store, for a lock that hands out nonces. */
export type NonceStreamKeys = { counterKey: string; fencePrefix: string; fenceTtlMs: number; counterTtlMs: number }

/** The nonce lock, held: its owner token (the fence checks it), the nonces it hands out, and how to give it back. */
export type NonceLock = {
  token: string
  /**
   * Takes the signer's next nonce (never below `floor`, the node's pending count), fenced: the one its predecessor in
   * this instance already claimed for it while signing, or a fresh claim (one store round trip).
   */
  claimNonce(floor: number): Promise<ClaimNextNonceReturnType>
  /**
   * When another deploy of this instance waits, claims its nonce now, in the background, so that it starts signing
   * without a store round trip. Call after one's own claim, beside the signature.
   */
  prefetchForSuccessor(floor: number): void
  /** Gives back a nonce claimed for the successor. */
  dropPrefetch(): Promise<void>
  /**
   * The send of the deploy that handed this lock on, still in flight: this deploy may sign meanwhile, but sends only
   * after it (and takes a new nonce if that one's went back). Null when the lock came from the store.
   */
  previousSend: Promise<SendOutcome> | null
  /**
   * Hands the lock to the next local waiter before this deploy's own send, when one waits (and the hand-off budget
   * allows): it signs while this one sends. Answers whether it did; then `release` does nothing more.
   */
  handOffBeforeSend(sending: Promise<SendOutcome>): boolean
  release(): Promise<void>
}

/** How a send ended, for the deploy after it: its nonce used, used after a move down, or given back (refused). */
export type SendOutcome = 'sent' | 'renumbered' | 'refused'

type Prefetch = Promise<ClaimNextNonceReturnType | null>

/**
 * A lock handed to the next local waiter: its token, when the store lock was taken, hand-offs so far, its nonce, and
 * the send still in flight.
 */
type Handoff = { token: string; takenAt: number; count: number; prefetch: Prefetch | null; previousSend: Promise<SendOutcome> | null }

/** One instance's queue for one lock key: the tail of its waiters, how many wait, and a lock handed on to the next. */
type LocalQueue = { tail: Promise<void>; waiting: number; handoff: Handoff | null }

/** Deploys of this instance waiting for the signer, in arrival order (one queue per lock key). */
const localQueues = new Map<string, LocalQueue>()

/** Takes a place in this instance's queue: `ready` resolves when every earlier local waiter is done. */
function localTurn(key: string): { queue: LocalQueue; ready: Promise<void>; done: () => void } {
  const queue: LocalQueue = localQueues.get(key) ?? { tail: Promise.resolve(), waiting: 0, handoff: null }
  localQueues.set(key, queue)
  const ready = queue.tail
  let done!: () => void
  const mine = new Promise<void>((resolve) => (done = resolve))
  const tail = ready.then(() => mine)
  queue.tail = tail
  queue.waiting++
  const owner = queue
  void tail.then(() => {
    if (owner.tail === tail && localQueues.get(key) === owner && owner.waiting === 0) localQueues.delete(key)
  })
  return { queue, ready, done }
}

/**
 * Waits for the nonce lock; answers it, or null after `waitMs`. Waiters of one instance queue in memory: a holder hands
 * the store lock straight to the next local waiter (up to {@link LOCK_HANDOFFS_MAX} times in a row, within half the
 * lease), with that waiter's nonce already claimed, so a burst on one instance costs one store lock, not one per
 * deploy. Only the head of the queue asks the store, from every 20 ms backing off to every 100 ms while another
 * instance holds it. Store failures propagate (fail closed).
 */
export async function acquireNonceLock(
  store: Store,
  key: string,
  leaseMs: number,
  waitMs: number,
  nonces?: NonceStreamKeys,
): Promise<NonceLock | null> {
  const deadline = Date.now() + waitMs
  const turn = localTurn(key)
  const { queue } = turn
  /** Gives back a nonce claimed for a successor that will not use it. */
  const giveBack = async (prefetch: Prefetch | null) => {
    const claim = await prefetch
    if (claim?.kind === 'claimed' && nonces)
      await releaseNonce(store, { counterKey: nonces.counterKey, fencePrefix: nonces.fencePrefix, nonce: claim.nonce }).catch(
        () => undefined,
      )
  }
  let timer: NodeJS.Timeout | undefined
  const inTime = await Promise.race([
    turn.ready.then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
  ])
  clearTimeout(timer)
  queue.waiting--
  if (!inTime) {
    // Gave up while queued: the turn passes on as soon as it comes, and a lock handed to it goes to the next waiter,
    // or back to the store (with its nonce) when none is left.
    void turn.ready.then(async () => {
      const handed = queue.handoff
      if (handed && queue.waiting === 0) {
        queue.handoff = null
        await giveBack(handed.prefetch)
        await handed.previousSend
        await store.releaseLock(key, handed.token).catch(() => undefined)
      }
      turn.done()
    })
    return null
  }
  /** The lock, held with `token`: released to the store, or handed to the next local waiter. */
  const held = (
    token: string,
    takenAt: number,
    count: number,
    inherited: Prefetch | null,
    previousSend: Promise<SendOutcome> | null,
  ): NonceLock => {
    // The local turn ends with the lease at the latest, as the store's lock does: nothing can jam the queue. A nonce
    // claimed for a successor then is left to its fence's expiry, after which the stream takes it again.
    const lapse = setTimeout(() => {
      queue.handoff = null
      turn.done()
    }, leaseMs)
    lapse.unref?.()
    let released = false
    let handedOff = false
    let prefetch: Prefetch | null = null
    const mayHandOff = () => queue.waiting > 0 && count + 1 < LOCK_HANDOFFS_MAX && Date.now() - takenAt < leaseMs / 2
    const claimFresh = (floor: number) => {
      if (!nonces) throw new Error('acquireNonceLock was given no nonce stream')
      return claimNextNonce(store, { ...nonces, lockKey: key, lockToken: token, floor })
    }
    return {
      token,
      claimNonce: async (floor) => {
        const ready = await inherited
        inherited = null
        return ready?.kind === 'claimed' ? ready : claimFresh(floor)
      },
      prefetchForSuccessor: (floor) => {
        if (!nonces || prefetch || !mayHandOff()) return
        prefetch = claimFresh(floor).catch(() => null)
      },
      dropPrefetch: async () => {
        const dropped = prefetch
        prefetch = null
        await giveBack(dropped)
      },
      previousSend,
      handOffBeforeSend: (sending) => {
        if (released || handedOff || !mayHandOff()) return false
        handedOff = true
        clearTimeout(lapse)
        queue.handoff = { token, takenAt, count: count + 1, prefetch, previousSend: sending }
        turn.done()
        return true
      },
      release: async () => {
        if (released) return
        released = true
        if (handedOff) return
        clearTimeout(lapse)
        // A nonce inherited and never asked for goes back first (claimNonce was not called: the deploy stopped early).
        if (inherited) await giveBack(inherited)
        // The previous deploy's send is settled before the store lock goes to another instance.
        await previousSend
        if (mayHandOff()) {
          queue.handoff = { token, takenAt, count: count + 1, prefetch, previousSend: null }
        } else {
          queue.handoff = null
          await giveBack(prefetch)
          await store.releaseLock(key, token).then(
            () => undefined,
            () => undefined,
          )
        }
        turn.done()
      },
    }
  }
  const handed = queue.handoff
  queue.handoff = null
  if (handed) return held(handed.token, handed.takenAt, handed.count, handed.prefetch, handed.previousSend)
  try {
    let pause = LOCK_POLL_MS
    for (;;) {
      const token = await store.acquireLock(key, leaseMs)
      if (token) return held(token, Date.now(), 0, null, null)
      if (Date.now() + pause > deadline) {
        turn.done()
        return null
      }
      await new Promise((r) => setTimeout(r, pause))
      pause = Math.min(LOCK_POLL_MAX_MS, Math.round(pause * 1.5))
    }
  } catch (error) {
    turn.done()
    throw error
  }
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
export type ReplaceStuckDeploysReturnType = { ok: true; replaced: { from: Hex; to: Hex; record: DeployRecord }[] } | DeployFailure

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
  const replaced: { from: Hex; to: Hex; record: DeployRecord }[] = []
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
    const outcome = await sendReplacement({ ...parameters, record, fees: next })
    if (outcome.kind === 'failed') return outcome.failure
    if (outcome.kind === 'mined') {
      await removeFromIndex(store, unminedKey, record.txHash)
      continue
    }
    replaced.push({ from: record.txHash, to: outcome.txHash, record })
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
    originalTxHash: record.originalTxHash ?? record.txHash,
    replacedBy: undefined,
    maxFeePerGas: fees.maxFeePerGas.toString(),
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
  }
  await recordDeploy({ store, keys, signer: signer.address, record: replacement, inAgentHistory: false })
  try {
    await publicClient.sendRawTransaction({ serializedTransaction: serialized })
  } catch (error) {
    const message = shortMessage(error)
    const refusal = nodeRefusalOf(error)
    // The nonce is used: either the original was mined meanwhile (the replacement can never be, so it is forgotten),
    // or the node already holds this replacement. The chain tells which.
    if (refusal === 'nonce-used' && (await nonceMined(publicClient, signer.address, record.nonce))) {
      await removeFromIndex(store, keys.unmined(signer.address), txHash)
      await store.delete(keys.record(txHash))
      return { kind: 'mined' }
    }
    if (!isTransportFailure(error) && refusal !== 'nonce-used') {
      await removeFromIndex(store, keys.unmined(signer.address), txHash)
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
    removeFromIndex(store, keys.unmined(signer.address), record.txHash),
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

/** Whether the signer's `nonce` is mined (the latest block's count is past it); on no answer, assumed not. */
async function nonceMined(publicClient: PublicClient, address: Address, nonce: number): Promise<boolean> {
  const mined = await publicClient.getTransactionCount({ address, blockTag: 'latest' }).catch(() => 0)
  return mined > nonce
}
