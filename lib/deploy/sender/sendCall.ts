import type { Address, PublicClient, SignedAuthorization, TransactionReceipt } from 'viem'
import { AUTHORIZATION_GAS, delegationDesignator, isDelegatedTo } from '../../chain/batchAccount.js'
import type { KmsAccount } from '../../chain/kmsAccount.js'
import type { Clock } from '../../platform/clock.js'
import type { Logger } from '../../platform/log.js'
import type { Store } from '../../store/types.js'
import { deployHistoryKeys, deployStoreKeys } from '../keys.js'
import { type DeployFailure, type DeployResult, failure } from '../outcome.js'
import { type BroadcastReturnType, broadcast } from './broadcast.js'
import { chainFailure } from './chainErrors.js'
import { claimAndPrice } from './claim.js'
import type { FeeCache } from './feeCache.js'
import { gasWithHeadroom } from './fees.js'
import { type RecordFields, recordOf, signAndKeep } from './keep.js'
import { releaseNonce } from './nonceFence.js'
import { type NonceLock, type NonceLocks, signerLock } from './nonceLock.js'
import type { SyncSender, SyncSendReturnType } from './sendSync.js'
import { type Call, type SignedTransaction, signDelegation } from './sign.js'
import { forgetTransaction, type TransactionRecord } from './signedTransactions.js'

// The one way the signer sends a call: simulate it (a revert decoded), claim the nonce under the lock, price it, sign
// it with KMS, keep its record, broadcast it (waiting for its block when asked), and give everything back when the
// node refuses it outright. One call today; a batch through the signer's EIP-7702 delegate is one call too (to the
// signer itself, the batch as its calldata), so it goes the same way.

/** What the sender talks to: the node (and the waiting send), the fees of the block, the store, the clock, the log. */
export type SenderServices = {
  publicClient: PublicClient
  fees: FeeCache
  syncSender: SyncSender
  clock: Clock
  logger: Logger
  config: { chainId: number; storePrefix: string; explorerUrl: string }
}

/** Parameters of {@link broadcastSigned}. */
export type BroadcastSignedParameters = {
  services: Pick<SenderServices, 'publicClient' | 'syncSender'>
  transaction: SignedTransaction
  explorerUrl: string
  /** Above 0: the waiting send (`eth_sendRawTransactionSync`), answering at inclusion or when the wait is over. */
  waitSeconds?: number
}

/** Broadcasts a signed transaction, the plain way or the waiting way, and says how it went. */
export function broadcastSigned({
  services,
  transaction,
  explorerUrl,
  waitSeconds = 0,
}: BroadcastSignedParameters): Promise<SyncSendReturnType> {
  const sent = { serialized: transaction.serialized, txHash: transaction.txHash, explorerUrl }
  if (waitSeconds > 0) return services.syncSender.send({ ...sent, waitSeconds })
  return broadcast({ publicClient: services.publicClient, ...sent })
}

/** Parameters of {@link sendCall}. */
export type SendCallParameters = {
  services: SenderServices
  store: Store
  signer: KmsAccount
  /** The signer's nonce lock, held by the caller (and released by it). */
  lock: NonceLock
  call: Call
  /**
   * The signer's EIP-7702 delegate, when `call` is a batch to the signer itself: while the signer's account is not
   * delegated yet, the transaction carries the authorization that sets it (at its nonce + 1).
   */
  delegate?: Address
  /** What the record says besides the transaction itself: its kind, its agent, what it belongs to. */
  record: Omit<RecordFields, 'createdAt' | 'sentAt'>
  /** Whether the transaction goes in its agent's history (what the agent asked for) or only the signer's lists. */
  inAgentHistory: boolean
  waitSeconds?: number
}

/** How a call went out: sent (or mined in time, with its receipt), or perhaps (no answer: it is followed all the same). */
export type SendCallReturnType = DeployResult<{
  outcome: 'sent' | 'mined' | 'uncertain'
  record: TransactionRecord
  receipt?: TransactionReceipt
  failure?: DeployFailure
}>

/**
 * Sends one call from the signer under the nonce lock the caller holds: simulated and estimated first (a revert is
 * `SIMULATION_REVERTED`, decoded, nothing signed), then the fenced nonce (`DEPLOY_BUSY` when it cannot be had), the
 * block's fees, KMS, the record, the broadcast. A KMS failure or an outright refusal gives the nonce (and the record)
 * back; a broadcast with no answer keeps both, since it may be on its way.
 */
export async function sendCall(parameters: SendCallParameters): Promise<SendCallReturnType> {
  const { services, store, signer, lock, call, waitSeconds } = parameters
  const { publicClient, config } = services
  const authorize = parameters.delegate ? await needsAuthorization(publicClient, signer.address, parameters.delegate) : null
  const request = {
    account: signer.address,
    to: call.to,
    data: call.data,
    value: call.value ?? 0n,
    ...(authorize ? { stateOverride: [{ address: signer.address, code: delegationDesignator(authorize) }] } : {}),
  }
  const [estimate, pending] = await Promise.allSettled([
    publicClient.estimateGas(request),
    publicClient.getTransactionCount({ address: signer.address, blockTag: 'pending' }),
  ])
  if (estimate.status === 'rejected') return chainFailure(estimate.reason)
  if (pending.status === 'rejected') return chainFailure(pending.reason)
  const gas = gasWithHeadroom(estimate.value + (authorize ? AUTHORIZATION_GAS : 0n))
  const claimed = await claimAndPrice({ lock, floor: pending.value, fees: services.fees, gas })
  const claimedNonces = claimed.nonce === null ? [] : [claimed.nonce]
  const giveBack = nonceGiver(store, config, signer.address, claimedNonces)
  if (!claimed.ok) {
    await giveBack()
    return claimed.failure
  }
  const authorization = authorize
    ? await authorizeAt({ services, lock, signer, delegate: authorize, nonce: claimed.nonce, floor: pending.value, claimedNonces })
    : null
  if (authorization && !authorization.ok) {
    await giveBack()
    return authorization
  }
  const keys = deployHistoryKeys(config)
  const transaction = {
    call,
    nonce: claimed.nonce,
    price: claimed.price,
    ...(authorization ? { authorizationList: [authorization.authorization] } : {}),
  }
  const now = services.clock.now()
  const fields = { ...parameters.record, createdAt: now, sentAt: now }
  const kept = await signAndKeep({
    store,
    keys,
    signer,
    chainId: config.chainId,
    logger: services.logger,
    transactions: [transaction],
    recordsOf: ([signed]) => [{ record: recordOf(fields, transaction, signed!), inAgentHistory: parameters.inAgentHistory }],
  }).catch(async (error: unknown) => {
    await giveBack()
    throw error
  })
  if (!kept.ok) {
    await giveBack()
    return kept
  }
  const [signed] = kept.kept
  const { record } = signed!
  const sent = await broadcastSigned({
    services,
    transaction: signed!,
    explorerUrl: `${config.explorerUrl}/tx/${signed!.txHash}`,
    waitSeconds,
  })
  return afterBroadcast({ sent, record, forget: () => forgetTransaction(store, keys, signer.address, record), giveBack })
}

/** The delegate to authorize when the signer's account is not delegated to it yet; null when it is. */
async function needsAuthorization(publicClient: PublicClient, signer: Address, delegate: Address): Promise<Address | null> {
  const code = await publicClient.getCode({ address: signer, blockTag: 'pending' })
  return isDelegatedTo(code, delegate) ? null : delegate
}

/**
 * The authorization that sets the signer's delegation, on the nonce after the transaction's (claimed under the lock and
 * added to `claimedNonces`, so it is given back with the other): another nonce cannot carry it, `DEPLOY_BUSY`.
 */
async function authorizeAt(parameters: {
  services: SenderServices
  lock: NonceLock
  signer: KmsAccount
  delegate: Address
  nonce: number
  floor: number
  claimedNonces: number[]
}): Promise<DeployResult<{ authorization: SignedAuthorization }>> {
  const { services, lock, signer, delegate, nonce, floor, claimedNonces } = parameters
  const claim = await lock.claimNonce(floor)
  if (claim.kind === 'claimed') claimedNonces.push(claim.nonce)
  if (claim.kind !== 'claimed' || claim.nonce !== nonce + 1)
    return failure('DEPLOY_BUSY', 'The nonce the delegation’s authorization needs is not free yet; nothing was signed. Retry shortly.', {
      retryAfterSeconds: 3,
    })
  return signDelegation({ signer, chainId: services.config.chainId, delegate, nonce: claim.nonce, logger: services.logger })
}

/** Parameters of {@link sendCallUnderLock}: those of {@link sendCall} but the lock, and the services' locks. */
export type SendCallUnderLockParameters = Omit<SendCallParameters, 'lock' | 'services'> & {
  services: SenderServices & { nonceLocks: NonceLocks; lockLeaseMs: number; lockWaitMs: number }
}

/**
 * Takes the signer's nonce lock (`DEPLOY_BUSY` when it cannot be had in `lockWaitMs`), sends one call with
 * {@link sendCall}, and lets the lock go: what an action that sends a transaction runs.
 */
export async function sendCallUnderLock(parameters: SendCallUnderLockParameters): Promise<SendCallReturnType> {
  const { services, signer } = parameters
  const { storePrefix, chainId } = services.config
  const lock = await services.nonceLocks.acquire(
    signerLock({ storePrefix, chainId, signer: signer.address, leaseMs: services.lockLeaseMs, waitMs: services.lockWaitMs }),
  )
  if (!lock)
    return failure('DEPLOY_BUSY', 'Other transactions of the signer are in progress; nothing was signed. Retry in a few seconds.', {
      retryAfterSeconds: 3,
    })
  try {
    return await sendCall({ ...parameters, lock })
  } finally {
    await lock.release()
  }
}

/** The answer once the broadcast is over; an outright refusal forgets the record and gives the nonce back. */
async function afterBroadcast(parameters: {
  sent: SyncSendReturnType | BroadcastReturnType
  record: TransactionRecord
  forget: () => Promise<void>
  giveBack: () => Promise<void>
}): Promise<SendCallReturnType> {
  const { sent, record } = parameters
  if (sent.kind === 'refused') {
    await parameters.forget()
    await parameters.giveBack()
    return sent.failure
  }
  if (sent.kind === 'uncertain') return { ok: true, outcome: 'uncertain', record, failure: sent.failure }
  if (sent.kind === 'mined') return { ok: true, outcome: 'mined', record, receipt: sent.receipt }
  return { ok: true, outcome: 'sent', record }
}

/** Gives the claimed nonces back to the signer's stream, the highest first (the fence hands them to the next claims). */
function nonceGiver(store: Store, config: SenderServices['config'], signer: Address, claimed: readonly number[]): () => Promise<void> {
  const nonces = deployStoreKeys({ storePrefix: config.storePrefix, chainId: config.chainId, signer })
  return async () => {
    for (const nonce of [...claimed].sort((a, b) => b - a))
      await releaseNonce(store, { counterKey: nonces.nonceNext, fencePrefix: nonces.noncePrefix, nonce })
  }
}
