import type { DeployBroadcast } from '../answers/deployAnswers.js'
import { type DeployFailure, type DeployResult, failure } from '../outcome.js'
import { receiptAnswerOf } from '../records/readReceipt.js'
import { claimAndPrice } from '../sender/claim.js'
import { BLOCK_MS } from '../sender/feeCache.js'
import type { TransactionPrice } from '../sender/fees.js'
import { signAndKeep } from '../sender/keep.js'
import type { NonceLock } from '../sender/nonceLock.js'
import { deploysOnly, replaceStuckDeploys } from '../sender/replaceStuck.js'
import { broadcastSigned } from '../sender/sendCall.js'
import type { SignedTransaction } from '../sender/sign.js'
import { notifyReplaced } from '../webhooks/outbox.js'
import { announceBroadcast } from './announceBroadcast.js'
import { keysOf, type LockedDeploy } from './beforeLock.js'
import type { Holdings } from './holdings.js'
import { authorizeDelegation, deployRecordOf, deployTransaction } from './launchBatch.js'

/** A deploy's transaction, signed and kept. */
type SignedDeploy = { ok: true } & SignedTransaction

// Steps 3 to 7 of a deploy, under the signer's nonce lock: what must go one after another.

/**
 * Under the lock: 3. replace a stuck earlier deploy (it would hold this one behind it), 4. claim the nonce, 5. serialise
 * and sign, 6. record, then wait for the previous send of this instance (moving into its nonce if the node refused
 * it), and 7. send.
 */
export async function runUnderLock(deploy: LockedDeploy, lock: NonceLock, holdings: Holdings): Promise<DeployBroadcast | DeployFailure> {
  const { services, signer } = deploy
  const { config } = services
  if (deploy.stuckSeen) {
    const unjammed = await replaceStuckDeploys({
      store: deploy.store,
      keys: keysOf(deploy).history,
      publicClient: services.publicClient,
      signer,
      chainId: config.chainId,
      logger: services.logger,
      now: services.clock.now(),
      stuckMs: config.stuckSeconds * 1000,
      maxFeePerGas: config.maxFeePerGasWei,
    })
    // What went out is told to its agents even when a later step failed: it is on its way either way.
    notifyReplaced({ webhooks: services.webhooks, background: services.background, replaced: deploysOnly(unjammed.replaced) })
    if (!unjammed.ok) return unjammed.failure
  }
  const claimed = await claimNonceAndPrice(deploy, lock, holdings)
  if (!claimed.ok) return claimed
  let signed = await signAndRecord(deploy, lock, claimed.nonce, claimed.price, holdings)
  if (!signed.ok) return signed
  const previous = lock.previousSend ? await lock.previousSend : 'sent'
  const renumbered = previous !== 'sent'
  if (renumbered) {
    const moved = await moveIntoGap(deploy, lock, holdings, claimed.price)
    if (!moved.ok) return moved
    signed = moved
  }
  return sendSigned(deploy, lock, holdings, signed, renumbered)
}

/**
 * Step 7: the send, of a plain deploy and a pooled launch alike (one transaction either way). The usual way, the lock goes to the next deploy of this instance before the send (it signs
 * meanwhile and sends after this one, moving into its nonce if the node refused it). With `waitSeconds` the send
 * (`eth_sendRawTransactionSync`) answers only at inclusion, so the lock is let go before it: nobody waits for a block
 * behind this deploy. Its nonce is claimed and fenced already; if the node refuses it after all, the nonce goes back
 * and the fence hands it to the next claim first, so a gap lasts only until the next deploy (docs/architecture.md).
 */
async function sendSigned(
  deploy: LockedDeploy,
  lock: NonceLock,
  holdings: Holdings,
  signed: SignedTransaction,
  renumbered: boolean,
): Promise<DeployBroadcast | DeployFailure> {
  const { services, plan, intent } = deploy
  const { config } = services
  const explorerUrl = `${config.explorerUrl}/tx/${signed.txHash}`
  const how = renumbered ? 'renumbered' : 'sent'
  const { waitSeconds } = intent
  // The lock passes on before the send: let go for a waiting send, handed to the next local deploy for a plain one.
  const passOn = waitSeconds > 0 ? holdings.letLockGo(how) : lock.handOffBeforeSend(holdings.sending)
  const [sent] = await Promise.all([broadcastSigned({ services, transaction: signed, explorerUrl, waitSeconds }), passOn])
  if (sent.kind === 'refused') return sent.failure
  holdings.wentOut(how)
  if (sent.kind === 'uncertain') return sent.failure
  const poolId = plan.pool?.view.poolId
  const broadcast: DeployBroadcast = {
    ...announceBroadcast({ deploy, record: holdings.record, txHash: signed.txHash, explorerUrl, ...(poolId ? { poolId } : {}) }),
    // The pool is seeded in the launch's own transaction: nothing after it to send or to fail on its own.
    ...(plan.pool ? { pool: { ...plan.pool.view, seedTxHashes: [], status: 'sent' as const } } : {}),
  }
  if (sent.kind !== 'mined') return broadcast
  // Mined in time: the answer carries what action "receipt" would say now, from the receipt in hand.
  const keys = keysOf(deploy).history
  const receipt = await receiptAnswerOf({
    services,
    keys,
    record: holdings.record,
    txHash: signed.txHash,
    input: plan.request.data,
    receipt: sent.receipt,
  })
  return { ...broadcast, receipt }
}

/**
 * Step 4: the nonce, fenced (the next of the signer's stream, never below the node's pending count; signed at most
 * once even if this lock's lease ran out under us; claimed by the previous deploy of this instance when it could),
 * with the block's fees (read again only when 3 blocks old). The next deploy waiting here gets its nonce claimed now.
 */
async function claimNonceAndPrice(
  deploy: LockedDeploy,
  lock: NonceLock,
  holdings: Holdings,
): Promise<DeployResult<{ nonce: number; price: TransactionPrice }>> {
  const { services, prepared } = deploy
  const claimed = await claimAndPrice({ lock, floor: prepared.pending, fees: services.fees, maxAgeMs: 3 * BLOCK_MS, gas: prepared.gas })
  if (claimed.nonce !== null) holdings.tookNonce(claimed.nonce)
  if (!claimed.ok) return claimed.failure
  // A launch that sets the delegation claims its authorization's nonce first: the successor's comes after it.
  if (!prepared.authorize) lock.prefetchForSuccessor(prepared.pending)
  return claimed
}

/**
 * Steps 5 and 6: sign with KMS, then keep the transaction before the broadcast: the agent's history and the signer's
 * unmined list. A launch that sets the signer's delegation signs its authorization first, on the nonce after this one
 * (claimed here): two KMS calls that once, one every other time. A deploy whose broadcast is refused outright gives
 * them back.
 */
async function signAndRecord(
  deploy: LockedDeploy,
  lock: NonceLock,
  nonce: number,
  price: TransactionPrice,
  holdings: Holdings,
): Promise<SignedDeploy | DeployFailure> {
  const { services, signer, prepared } = deploy
  let authorization = null
  if (prepared.authorize) {
    const authorized = await authorizeDelegation(deploy, lock, holdings, nonce)
    if (!authorized.ok) return authorized
    authorization = authorized.authorization
    lock.prefetchForSuccessor(prepared.pending)
  }
  const transaction = deployTransaction(deploy, nonce, price, authorization)
  const kept = await signAndKeep({
    store: deploy.store,
    keys: keysOf(deploy).history,
    signer,
    chainId: services.config.chainId,
    logger: services.logger,
    transactions: [transaction],
    recordsOf: deployRecordOf(deploy, transaction, services.clock.now()),
    holding: ([record]) => holdings.recorded(record!),
  })
  if (!kept.ok) return kept
  const [sent] = kept.kept
  return { ok: true, serialized: sent!.serialized, txHash: sent!.txHash }
}

/**
 * The node refused the previous deploy of this instance, so its nonce went back: this one, signed meanwhile, moves
 * down into the gap (its record and nonce given back, a new nonce claimed, signed and recorded again).
 */
async function moveIntoGap(
  deploy: LockedDeploy,
  lock: NonceLock,
  holdings: Holdings,
  price: TransactionPrice,
): Promise<SignedDeploy | DeployFailure> {
  const { prepared } = deploy
  await holdings.giveBackNonceAndRecord()
  const again = await lock.claimNonce(prepared.pending)
  if (again.kind !== 'claimed')
    return failure(
      'DEPLOY_BUSY',
      'An earlier deploy was refused by the node and its nonce is not free yet; nothing was sent. Retry shortly.',
      {
        retryAfterSeconds: 3,
      },
    )
  holdings.tookNonce(again.nonce)
  if (!prepared.authorize) lock.prefetchForSuccessor(prepared.pending)
  return signAndRecord(deploy, lock, again.nonce, price, holdings)
}
