import { type Accepted, accepted, type Refused, refused } from '../../platform/result.js'
import { type DeployFailure, failure } from '../outcome.js'
import { chainFailure } from './chainErrors.js'
import type { FeeCache } from './feeCache.js'
import { feesFrom, type TransactionPrice } from './fees.js'
import type { NonceLock } from './nonceLock.js'

/** Parameters of {@link claimAndPrice}. */
export type ClaimAndPriceParameters = {
  /** The signer's nonce lock, held. */
  lock: NonceLock
  /** The node's pending count: no nonce below it. */
  floor: number
  fees: FeeCache
  /** How old the block's fees may be (default one block). */
  maxAgeMs?: number
  /** The transaction's gas limit. */
  gas: bigint
}

/**
 * A claim and a price: the nonce, or why none (`nonce` is set when it was claimed before the fees failed: the caller
 * gives it back).
 */
export type ClaimAndPriceReturnType =
  | Accepted<{ nonce: number; price: TransactionPrice }>
  | Refused<DeployFailure['code'], { failure: DeployFailure; nonce: number | null }>

/**
 * Claims the signer's next nonce under the lock, fenced (never below the node's pending count; signed at most once
 * even if the lock's lease ran out; claimed by the previous holder of this instance when it could), beside the
 * block's fees.
 */
export async function claimAndPrice({ lock, floor, fees, maxAgeMs, gas }: ClaimAndPriceParameters): Promise<ClaimAndPriceReturnType> {
  const [claim, read] = await Promise.all([lock.claimNonce(floor), fees.ofBlock(maxAgeMs).catch((error: unknown) => error as Error)])
  if (claim.kind === 'held') {
    const why = `Nonce ${claim.nonce} is held by another deploy that has not reached the chain yet; nothing was signed. Retry shortly.`
    return refused('DEPLOY_BUSY', { failure: failure('DEPLOY_BUSY', why, { retryAfterSeconds: 5 }), nonce: null })
  }
  if (claim.kind === 'lock-lost') {
    const why = 'The deploy lock expired before signing; nothing was signed. Retry shortly.'
    return refused('DEPLOY_BUSY', { failure: failure('DEPLOY_BUSY', why, { retryAfterSeconds: 3 }), nonce: null })
  }
  if (read instanceof Error) {
    const why = chainFailure(read)
    return refused(why.code, { failure: why, nonce: claim.nonce })
  }
  return accepted({ nonce: claim.nonce, price: { gas, ...feesFrom(read) } })
}
