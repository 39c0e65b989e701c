import { type DeployFailure, failure, storeFailureOf } from '../outcome.js'
import { type DeployRecord, recordDeploy } from '../records/history.js'
import type { DeployBroadcast, DeployedToken, DeploySimulated } from '../responses.js'
import type { DeployServices } from '../services.js'
import { notifyAgent, notifyReplaced } from '../webhooks/outbox.js'
import { type DeployContext, keysOf, type ReservedDeploy, reserveAndPrepare, storeFailure } from './beforeLock.js'
import { chainFailure } from './chainErrors.js'
import { BLOCK_MS, feesOfBlock } from './feeCache.js'
import { createHoldings, type Holdings } from './holdings.js'
import type { DeployIntent } from './intent.js'
import { type NonceLock, type NonceLocks, signerLock } from './nonceLock.js'
import { type DeployPrice, feesFrom, planDeploy } from './plan.js'
import { dryRunDeploy, readySigner } from './prepare.js'
import { replaceStuckDeploys } from './replaceStuck.js'
import { sendDeploy } from './send.js'
import { type SignedDeploy, serialiseDeploy, signDeploy } from './sign.js'

export type { DeployBroadcast, DeployedToken, DeploySimulated }

/** Every answer of {@link deployToken}. */
export type DeployTokenReturnType = DeployBroadcast | DeploySimulated | DeployFailure

/** Parameters of {@link deployToken}. */
export type DeployTokenParameters = {
  services: DeployServices
  intent: DeployIntent
  /** Allowlist digest of the calling agent (for the per-agent cap). */
  agentDigest: string
  /** This agent's own daily cap (a key issued with one); null or absent: `DEPLOY_AGENT_DAILY_CAP`. */
  agentDailyCap?: number | null
}

/**
 * Deploys a B20 token for an agent, in named steps. Plan (pure), then before the nonce lock, all at once: reserve a
 * cap slot and prepare (the simulation of `createB20` from the signer, gas, fees, chain id, the node's pending
 * count). Under the lock (deploys one after another across instances): replace a stuck earlier deploy, claim the
 * fenced nonce, serialise, sign with KMS, record, send; the next deploy of this instance signs while this one sends.
 * The slot is kept only when the transaction went out. A dry run stops after the simulation and signs nothing.
 */
export async function deployToken({
  services,
  intent,
  agentDigest,
  agentDailyCap = null,
}: DeployTokenParameters): Promise<DeployTokenReturnType> {
  const { store, nonceLocks } = services
  if (!services.getSigner)
    return failure(
      'SIGNER_NOT_CONFIGURED',
      'The deploy signer is not configured on this server (KMS_KEY_ID is unset); no deploy can be signed.',
    )
  if (!store || !nonceLocks)
    return failure('DEPLOYS_DISABLED', 'Deploys need the shared store (Upstash Redis) on this deployment, and none is configured.')
  const ready = await readySigner(services)
  if (!ready.ok) return ready
  const { signer } = ready
  const plan = planDeploy({ intent, signer: signer.address, salt: intent.salt ?? services.randomSalt() })
  if (intent.dryRun) return dryRunDeploy(services, plan, signer)

  const reserved = await reserveAndPrepare({ services, store, signer, plan, agentDigest, agentDailyCap })
  if (!reserved.ok) return reserved
  return sendUnderNonceLock({ services, store, nonceLocks, signer, plan, intent, agentDigest, ...reserved })
}

/** A deploy ready for the nonce lock: reserved, prepared, with its intent and the instance's locks. */
type LockedDeploy = DeployContext & Omit<ReservedDeploy, 'ok'> & { intent: DeployIntent; nonceLocks: NonceLocks }

/** Steps 3 to 7 under the nonce lock; whatever did not go out is given back, and the lock passes on. */
async function sendUnderNonceLock(deploy: LockedDeploy): Promise<DeployTokenReturnType> {
  const { services, signer, reservation } = deploy
  const { config } = services
  let lock: NonceLock | null
  try {
    lock = await deploy.nonceLocks.acquire(
      signerLock({
        storePrefix: config.storePrefix,
        chainId: config.chainId,
        signer: signer.address,
        leaseMs: services.lockLeaseMs,
        waitMs: services.lockWaitMs,
      }),
    )
  } catch (error) {
    await reservation.release().catch(() => undefined)
    return storeFailure(services, 'nonce-lock', error)
  }
  if (!lock) {
    await reservation.release()
    return failure('DEPLOY_BUSY', 'Other deploys are in progress; nothing was signed. Retry in a few seconds.', { retryAfterSeconds: 3 })
  }
  const keys = keysOf(deploy)
  const holdings = createHoldings({
    store: deploy.store,
    signer: signer.address,
    reservation,
    lock,
    lockKeys: keys.lock,
    historyKeys: keys.history,
  })
  try {
    return await runUnderLock(deploy, lock, holdings)
  } catch (error) {
    // Only a store failure is "Redis failed"; anything else is thrown on and answered as unexpected. Either way the
    // holdings give back what did not go out (finally, below).
    return storeFailureOf(error, {
      logger: services.logger,
      operation: 'deploy',
      effect: 'deploy refused',
      message: 'The deploy coordinator (Redis) failed mid-deploy; this deploy was not broadcast. Try again shortly.',
    })
  } finally {
    await holdings.settle()
  }
}

/**
 * Under the lock: 3. replace a stuck earlier deploy (it would hold this one behind it), 4. claim the nonce, 5. serialise
 * and sign, 6. record, then wait for the previous send of this instance (moving into its nonce if the node refused
 * it), and 7. send.
 */
async function runUnderLock(deploy: LockedDeploy, lock: NonceLock, holdings: Holdings): Promise<DeployTokenReturnType> {
  const { services, signer, plan } = deploy
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
    notifyReplaced({ webhooks: services.webhooks, background: services.background, replaced: unjammed.replaced })
    if (unjammed.kind === 'refused') return unjammed.failure
  }
  const claimed = await claimNonceAndPrice(deploy, lock, holdings)
  if (!claimed.ok) return claimed
  let signed = await signAndRecord(deploy, claimed.nonce, claimed.price, holdings)
  if (!signed.ok) return signed
  const previous = lock.previousSend ? await lock.previousSend : 'sent'
  const renumbered = previous !== 'sent'
  if (renumbered) {
    const moved = await moveIntoGap(deploy, lock, holdings, claimed.price)
    if (!moved.ok) return moved
    signed = moved
  }
  // The next deploy waiting here signs while this one sends.
  lock.handOffBeforeSend(holdings.sending)
  const explorerUrl = `${config.explorerUrl}/tx/${signed.txHash}`
  const sent = await sendDeploy({ publicClient: services.publicClient, serialized: signed.serialized, txHash: signed.txHash, explorerUrl })
  if (sent.kind === 'refused') return sent.failure
  holdings.wentOut(renumbered ? 'renumbered' : 'sent')
  if (sent.kind === 'uncertain') return sent.failure
  // Told once, by the deploy that sent it (a replayed answer sends nothing again).
  if (holdings.record) {
    const details = { explorerUrl, signer: signer.address, chainId: config.chainId }
    notifyAgent({
      webhooks: services.webhooks,
      background: services.background,
      type: 'deploy.broadcast',
      record: holdings.record,
      details,
    })
  }
  return {
    ok: true,
    status: 'broadcast',
    txHash: signed.txHash,
    predictedAddress: plan.predictedAddress,
    explorerUrl,
    token: plan.token,
    signer: signer.address,
    chainId: config.chainId,
  }
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
): Promise<{ ok: true; nonce: number; price: DeployPrice } | DeployFailure> {
  const { services, prepared } = deploy
  const [claim, fees] = await Promise.all([
    lock.claimNonce(prepared.pending),
    feesOfBlock({ publicClient: services.publicClient, maxAgeMs: 3 * BLOCK_MS }).catch((error: unknown) => error as Error),
  ])
  if (claim.kind === 'held')
    return failure(
      'DEPLOY_BUSY',
      `Nonce ${claim.nonce} is held by another deploy that has not reached the chain yet; nothing was signed. Retry shortly.`,
      { retryAfterSeconds: 5 },
    )
  if (claim.kind === 'lock-lost')
    return failure('DEPLOY_BUSY', 'The deploy lock expired before signing; nothing was signed. Retry shortly.', { retryAfterSeconds: 3 })
  holdings.tookNonce(claim.nonce)
  if (fees instanceof Error) return chainFailure(fees)
  lock.prefetchForSuccessor(prepared.pending)
  return { ok: true, nonce: claim.nonce, price: { gas: prepared.gas, ...feesFrom(fees) } }
}

/**
 * Steps 5 and 6: serialise and sign with KMS, then keep the transaction before the broadcast: the agent's history and
 * the signer's unmined list. A deploy whose broadcast is refused outright gives both back.
 */
async function signAndRecord(
  deploy: LockedDeploy,
  nonce: number,
  price: DeployPrice,
  holdings: Holdings,
): Promise<SignedDeploy | DeployFailure> {
  const { services, signer, plan, intent } = deploy
  const signed = await signDeploy(signer, serialiseDeploy({ plan, chainId: services.config.chainId, nonce, price }), services.logger)
  if (!signed.ok) return signed
  const sentAt = services.clock.now()
  const record: DeployRecord = {
    txHash: signed.txHash,
    agent: deploy.agentDigest,
    predictedAddress: plan.predictedAddress,
    name: intent.name,
    symbol: intent.symbol,
    variant: intent.variant,
    decimals: intent.decimals,
    createdAt: sentAt,
    sentAt,
    status: 'broadcast',
    nonce,
    gas: price.gas.toString(),
    maxFeePerGas: price.maxFeePerGas.toString(),
    maxPriorityFeePerGas: price.maxPriorityFeePerGas.toString(),
    data: plan.data,
  }
  await recordDeploy({
    store: deploy.store,
    keys: keysOf(deploy).history,
    signer: signer.address,
    record,
    inAgentHistory: true,
  })
  holdings.recorded(record)
  return signed
}

/**
 * The node refused the previous deploy of this instance, so its nonce went back: this one, signed meanwhile, moves
 * down into the gap (its record and nonce given back, a new nonce claimed, signed and recorded again).
 */
async function moveIntoGap(
  deploy: LockedDeploy,
  lock: NonceLock,
  holdings: Holdings,
  price: DeployPrice,
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
  lock.prefetchForSuccessor(prepared.pending)
  return signAndRecord(deploy, again.nonce, price, holdings)
}
