import type { Store } from '../../store/types.js'
import type { DeployHistoryKeys, deployStoreKeys } from '../keys.js'
import { releaseNonce } from '../sender/nonceFence.js'
import type { NonceLock, SendOutcome } from '../sender/nonceLock.js'
import { forgetTransaction, type TransactionRecord } from '../sender/signedTransactions.js'
import type { CapReservation } from './reserve.js'

/**
 * What a deploy under the lock holds and must give back unless its transaction went out: its cap slots, its claimed
 * nonce, its record, a nonce claimed for its successor. Its one owner: every step says what it took, and `settle`
 * gives back whatever did not go out, tells the next deploy how this send ended, and lets the lock go.
 */
export type Holdings = {
  /** The send of this deploy, as the next deploy of this instance waits for it. */
  readonly sending: Promise<SendOutcome>
  readonly nonce: number | null
  readonly record: TransactionRecord | null
  tookNonce(nonce: number): void
  recorded(record: TransactionRecord): void
  /**
   * A nonce claimed after the deploy's own: the authorization a launch carries to set the signer's delegation (the
   * seed transactions of launches before the batch took theirs the same way).
   */
  tookSeedNonce(nonce: number): void
  /** The seed transactions' records, in nonce order. */
  recordedSeeds(records: TransactionRecord[]): void
  /**
   * Gives back the seed nonces and records from `index` on, highest first (a seed the node refused, and those after
   * it, never went out: the creation did).
   */
  giveBackSeedsFrom(index: number): Promise<void>
  /** Gives back the nonce and record taken so far, seeds included (the deploy moves to another nonce, or stops). */
  giveBackNonceAndRecord(): Promise<void>
  /** The transaction went out (or may have): nothing is given back. */
  wentOut(outcome: 'sent' | 'renumbered'): void
  /**
   * Lets the lock go before a send whose answer comes only at inclusion (`eth_sendRawTransactionSync`): the next
   * deploy is told this one went out, and the lock passes on (to a local waiter, or back to the store). Should the
   * node refuse it after all, `settle` still gives back its nonce (the fence hands it to the next claim first), its
   * record and its cap slots, but no longer the successor's nonce: that one is the successor's now.
   */
  letLockGo(outcome: 'sent' | 'renumbered'): Promise<void>
  settle(): Promise<void>
}

/** Parameters of {@link createHoldings}. */
export type CreateHoldingsParameters = {
  store: Store
  /** The signer's address. */
  signer: string
  reservation: CapReservation
  lock: NonceLock
  lockKeys: ReturnType<typeof deployStoreKeys>
  historyKeys: DeployHistoryKeys
}

/** The holdings of one deploy under the nonce lock, as {@link Holdings}. */
export function createHoldings({ store, signer, reservation, lock, lockKeys, historyKeys }: CreateHoldingsParameters): Holdings {
  const sending = Promise.withResolvers<SendOutcome>()
  let nonce: number | null = null
  let record: TransactionRecord | null = null
  let outcome: SendOutcome = 'refused'
  let lockGone = false
  let seedNonces: number[] = []
  let seedRecords: TransactionRecord[] = []
  const release = (taken: number) =>
    releaseNonce(store, { counterKey: lockKeys.nonceNext, fencePrefix: lockKeys.noncePrefix, nonce: taken })
  // Highest first: a nonce goes back to the counter only when nothing after it is claimed.
  const giveBackSeedsFrom = async (index: number) => {
    const [nonces, records] = [seedNonces.slice(index), seedRecords.slice(index)]
    seedNonces = seedNonces.slice(0, index)
    seedRecords = seedRecords.slice(0, index)
    for (const kept of records) await forgetTransaction(store, historyKeys, signer, kept)
    for (const taken of nonces.reverse()) await release(taken)
  }
  const giveBackNonceAndRecord = async () => {
    if (!lockGone) await lock.dropPrefetch()
    await giveBackSeedsFrom(0)
    const [taken, kept] = [nonce, record]
    nonce = null
    record = null
    if (kept) await forgetTransaction(store, historyKeys, signer, kept)
    if (taken !== null) await release(taken)
  }
  return {
    sending: sending.promise,
    get nonce() {
      return nonce
    },
    get record() {
      return record
    },
    tookNonce: (taken) => {
      nonce = taken
    },
    recorded: (kept) => {
      record = kept
    },
    tookSeedNonce: (taken) => {
      seedNonces.push(taken)
    },
    recordedSeeds: (kept) => {
      seedRecords = [...kept]
    },
    giveBackSeedsFrom,
    giveBackNonceAndRecord,
    wentOut: (how) => {
      outcome = how
    },
    letLockGo: async (how) => {
      lockGone = true
      sending.resolve(how)
      if (!lock.handOffBeforeSend(sending.promise)) await lock.release()
    },
    async settle() {
      if (outcome === 'refused') {
        await reservation.release()
        // The successor's prefetched nonce goes back first, then this one's, so the stream keeps no gap.
        await giveBackNonceAndRecord().catch(() => undefined)
      }
      // Told only now, after its nonce went back: the next deploy then finds the gap to move into. (A deploy that let
      // the lock go has told already; resolving again changes nothing, and the lock is no longer its to release.)
      sending.resolve(outcome)
      await lock.release()
    },
  }
}
