import type { Clock } from '../../platform/clock.js'
import type { Store } from '../../store/types.js'
import { deployStoreKeys } from '../keys.js'
import { type ClaimNextNonceReturnType, claimNextNonce, type NonceFenceKeys, releaseNonce } from './nonceFence.js'

// The signer's nonce lock, shared by every instance through the store: deploys sign one after another. Within one
// instance, waiters queue in memory and the holder hands the lock straight to the next (with its nonce claimed),
// so a burst of deploys costs one store lock, not one each.

/** How long a claimed nonce stays reserved when its transaction never shows up. */
export const NONCE_CLAIM_MS = 120_000
/** How often a waiter first asks the store for the lock: at most one round trip per 20 ms. */
export const LOCK_POLL_MS = 20
/** The longest pause between a waiter's asks, reached by backing off 1.5 times per ask while another instance holds. */
export const LOCK_POLL_MAX_MS = 100
/**
 * Deploys of one instance that may follow each other under one store lock: the holder hands the lock straight to the
 * next local waiter (no store round trip, no poll) this many times, then gives it back so other instances get a turn.
 */
export const LOCK_HANDOFFS_MAX = 8

/** How a send ended, for the deploy after it: its nonce used, used after a move down, or given back (refused). */
export type SendOutcome = 'sent' | 'renumbered' | 'refused'

/** A nonce lock's life: held by its deploy, handed to the next local waiter before its own send, or given back. */
export type NonceLockState = 'held' | 'handed-off' | 'released'

/** The nonce lock, held: its owner token (the fence checks it), the nonces it hands out, and how to give it back. */
export type NonceLock = {
  readonly token: string
  /** Where the lock is in its life; every method below says which states it acts in. */
  readonly state: NonceLockState
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
  readonly previousSend: Promise<SendOutcome> | null
  /**
   * While held: hands the lock to the next local waiter before this deploy's own send, when one waits (and the
   * hand-off budget allows), so it signs while this one sends. Answers whether it did.
   */
  handOffBeforeSend(sending: Promise<SendOutcome>): boolean
  /** While held: gives the lock on to a local waiter, or back to the store. Once handed off or released: nothing. */
  release(): Promise<void>
}

/** Parameters of {@link NonceLocks.acquire}. */
export type AcquireNonceLockParameters = {
  /** The lock's store key. */
  key: string
  /** The store lock's lease: past it, another instance may take the lock (and the local turn ends too). */
  leaseMs: number
  /** How long to wait for the lock before answering null. */
  waitMs: number
  /** The signer's nonce stream, which the lock's holder claims from. */
  nonces: NonceFenceKeys
}

/** This instance's nonce locks. */
export type NonceLocks = {
  /** Waits for the nonce lock; answers it, or null after `waitMs`. Store failures propagate (fail closed). */
  acquire(parameters: AcquireNonceLockParameters): Promise<NonceLock | null>
}

/** How long the signer's next-nonce counter outlives its last deploy (the node's pending count takes over after). */
const NONCE_COUNTER_TTL_MS = 86_400_000

/** Parameters of {@link signerLock}. */
export type SignerLockParameters = { storePrefix: string; chainId: number; signer: string; leaseMs: number; waitMs: number }

/** The nonce lock of a signer, with its nonce stream: what every deploy and the tick's replacements take. */
export function signerLock({ storePrefix, chainId, signer, leaseMs, waitMs }: SignerLockParameters): AcquireNonceLockParameters {
  const keys = deployStoreKeys({ storePrefix, chainId, signer })
  return {
    key: keys.lock,
    leaseMs,
    waitMs,
    nonces: { counterKey: keys.nonceNext, fencePrefix: keys.noncePrefix, fenceTtlMs: NONCE_CLAIM_MS, counterTtlMs: NONCE_COUNTER_TTL_MS },
  }
}

/** Parameters of {@link createNonceLocks}. */
export type CreateNonceLocksParameters = {
  store: Store
  /** The clock the waits run on: a waiter's patience, its polls, and the local turn's lapse. */
  clock: Clock
}

type Prefetch = Promise<ClaimNextNonceReturnType | null>

/** A lock on its way to the next local waiter: its token, when the store lock was taken, hand-offs so far, its nonce. */
type Handoff = { token: string; takenAt: number; count: number; prefetch: Prefetch | null; previousSend: Promise<SendOutcome> | null }

/** One lock key's local queue: the tail of its waiters, how many wait, and a lock handed on to the next. */
type LocalQueue = { tail: Promise<void>; waiting: number; handoff: Handoff | null }

/**
 * The nonce locks of one instance (built once with its deploy services). Only the head of a key's local queue asks
 * the store, every 20 ms backing off to every 100 ms while another instance holds it.
 */
export function createNonceLocks({ store, clock }: CreateNonceLocksParameters): NonceLocks {
  const { now } = clock
  const queues = new Map<string, LocalQueue>()

  /** Takes a place in the key's queue: `ready` resolves when every earlier local waiter is done. */
  const takeTurn = (key: string) => {
    const queue: LocalQueue = queues.get(key) ?? { tail: Promise.resolve(), waiting: 0, handoff: null }
    queues.set(key, queue)
    const ready = queue.tail
    const mine = Promise.withResolvers<void>()
    const tail = ready.then(() => mine.promise)
    queue.tail = tail
    queue.waiting++
    void tail.then(() => {
      if (queue.tail === tail && queues.get(key) === queue && queue.waiting === 0) queues.delete(key)
    })
    return { queue, ready, done: () => mine.resolve() }
  }

  return {
    async acquire({ key, leaseMs, waitMs, nonces }) {
      const deadline = now() + waitMs
      const turn = takeTurn(key)
      const { queue } = turn
      const giveBack = async (prefetch: Prefetch | null) => {
        const claim = await prefetch
        if (claim?.kind === 'claimed') await releaseNonce(store, { ...nonces, nonce: claim.nonce }).catch(() => undefined)
      }
      // The wait for the turn ends when the turn comes or after `waitMs`, whichever is first.
      const turnCame = new AbortController()
      const inTime = await Promise.race([turn.ready.then(() => true), clock.sleep(waitMs, { signal: turnCame.signal }).then(() => false)])
      turnCame.abort()
      queue.waiting--
      if (!inTime) {
        // Gave up while queued: the turn passes on as soon as it comes, and a lock handed to it goes to the next
        // waiter, or back to the store (with its nonce) when none is left.
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
      const hold = (handoff: Handoff) => holdNonceLock({ store, key, leaseMs, nonces, clock, queue, handoff, endTurn: turn.done, giveBack })
      const handed = queue.handoff
      queue.handoff = null
      if (handed) return hold(handed)
      try {
        let pause = LOCK_POLL_MS
        for (;;) {
          const token = await store.acquireLock(key, leaseMs)
          if (token) return hold({ token, takenAt: now(), count: 0, prefetch: null, previousSend: null })
          if (now() + pause > deadline) {
            turn.done()
            return null
          }
          await clock.sleep(pause)
          pause = Math.min(LOCK_POLL_MAX_MS, Math.round(pause * 1.5))
        }
      } catch (error) {
        turn.done()
        throw error
      }
    },
  }
}

/** Parameters of {@link holdNonceLock}: the lock as it reached this deploy, and its queue. */
type HoldNonceLockParameters = {
  store: Store
  key: string
  leaseMs: number
  nonces: NonceFenceKeys
  clock: Clock
  queue: LocalQueue
  handoff: Handoff
  endTurn: () => void
  giveBack: (prefetch: Prefetch | null) => Promise<void>
}

/** The lock as one deploy holds it, from `held` to `handed-off` or `released`. */
function holdNonceLock(parameters: HoldNonceLockParameters): NonceLock {
  const { store, key, leaseMs, nonces, clock, queue, endTurn, giveBack } = parameters
  const { now } = clock
  const { token, takenAt, count, previousSend } = parameters.handoff
  let state: NonceLockState = 'held'
  let inherited = parameters.handoff.prefetch
  let prefetch: Prefetch | null = null
  // The local turn ends with the lease at the latest, as the store's lock does: nothing can jam the queue. A nonce
  // claimed for a successor then is left to its fence's expiry, after which the stream takes it again.
  // The lapse is a wait that giving the lock on or back cuts short; it keeps no process alive on its own.
  const lapse = new AbortController()
  void clock.sleep(leaseMs, { signal: lapse.signal, holdsProcess: false }).then(() => {
    if (lapse.signal.aborted) return
    queue.handoff = null
    endTurn()
  })
  const mayHandOff = () => queue.waiting > 0 && count + 1 < LOCK_HANDOFFS_MAX && now() - takenAt < leaseMs / 2
  const claimFresh = (floor: number) => claimNextNonce(store, { ...nonces, lockKey: key, lockToken: token, floor, now: now() })
  const handTo = (next: Pick<Handoff, 'prefetch' | 'previousSend'>) => {
    queue.handoff = { token, takenAt, count: count + 1, ...next }
  }
  return {
    token,
    get state() {
      return state
    },
    previousSend,
    async claimNonce(floor) {
      const ready = await inherited
      inherited = null
      return ready?.kind === 'claimed' ? ready : claimFresh(floor)
    },
    prefetchForSuccessor(floor) {
      if (prefetch || !mayHandOff()) return
      prefetch = claimFresh(floor).catch(() => null)
    },
    async dropPrefetch() {
      const dropped = prefetch
      prefetch = null
      await giveBack(dropped)
    },
    handOffBeforeSend(sending) {
      if (state !== 'held' || !mayHandOff()) return false
      state = 'handed-off'
      lapse.abort()
      handTo({ prefetch, previousSend: sending })
      endTurn()
      return true
    },
    async release() {
      if (state !== 'held') return
      state = 'released'
      lapse.abort()
      // A nonce inherited and never asked for goes back first (claimNonce was not called: the deploy stopped early).
      if (inherited) await giveBack(inherited)
      // The previous deploy's send is settled before the store lock goes to another instance.
      await previousSend
      if (mayHandOff()) handTo({ prefetch, previousSend: null })
      else {
        queue.handoff = null
        await giveBack(prefetch)
        await store.releaseLock(key, token).catch(() => undefined)
      }
      endTurn()
    },
  }
}
