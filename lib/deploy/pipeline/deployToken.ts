import type { DeployedToken } from '../answers/answerFields.js'
import type { DeployBroadcast, DeploySimulated } from '../answers/deployAnswers.js'
import { type DeployFailure, failure, storeFailureOf } from '../outcome.js'
import { startValuationUsd } from '../pool/startPrice.js'
import { type NonceLock, signerLock } from '../sender/nonceLock.js'
import type { DeployServices } from '../services.js'
import { agentKeyCaps, keysOf, type LockedDeploy, reserveAndPrepare, storeFailure } from './beforeLock.js'
import { planLaunch } from './deployPlan.js'
import { createHoldings } from './holdings.js'
import type { DeployIntent } from './intent.js'
import { dryRunDeploy, readySigner } from './prepare.js'
import type { DeployCap } from './reserve.js'
import { runUnderLock } from './underLock.js'
import { variantNotActive } from './variantActive.js'

export type { DeployBroadcast, DeployedToken, DeploySimulated }

/** Every answer of {@link deployToken}. */
export type DeployTokenReturnType = DeployBroadcast | DeploySimulated | DeployFailure

/**
 * Parameters of {@link deployToken}. `R` is what the caller's `beforeSigning` step answers when it refuses (its own
 * kind of answer: the paid door's 402), handed back as it is.
 */
export type DeployTokenParameters<R = never> = {
  services: DeployServices
  intent: DeployIntent
  /** Who the deploy is recorded for: the calling agent key's allowlist digest, or a paid agent's id (`x402:<payer>`). */
  agentId: string
  /** A paid deploy's payment nonce: its record names the payment that bought it (the payer is in `agentId`). */
  paymentNonce?: string
  /**
   * The rolling caps the deploy takes a slot of, taken with the simulation and given back unless it goes out. Default:
   * `DEPLOY_DAILY_CAP` and the agent key's own (`agentDailyCap`, else `DEPLOY_AGENT_DAILY_CAP`); paid deploys pass
   * their own, so payers never take the allowlisted agents' slots.
   */
  caps?: readonly DeployCap[]
  /** This agent key's own daily cap (a key issued with one), for the default caps; null or absent: `DEPLOY_AGENT_DAILY_CAP`. */
  agentDailyCap?: number | null
  /**
   * A step between "the caps and the simulation passed" and the nonce lock (the paid door settles the payment here).
   * It may refuse (its answer is returned as it is): nothing is signed and the slots go back. Once it has passed,
   * something was spent for this deploy, so its cap slots are kept whatever happens next.
   */
  beforeSigning?: () => Promise<R | null>
}

/**
 * Deploys a B20 token for an agent, in named steps. A variant the network has switched off is refused first
 * (`VARIANT_NOT_ACTIVE`, a dry run too). Plan (pure), then before the nonce lock, all at once: reserve the
 * cap slots and prepare (the simulation of `createB20` from the signer, gas, fees, chain id, the node's pending
 * count); then the caller's `beforeSigning` step, if any. Under the lock (deploys one after another across
 * instances): replace a stuck earlier deploy, claim the fenced nonce, serialise, sign with KMS, record, send; the
 * next deploy of this instance signs while this one sends. The slots are kept only when the transaction went out (or
 * `beforeSigning` passed). A dry run stops after the simulation and signs nothing.
 */
export async function deployToken<R = never>(parameters: DeployTokenParameters<R>): Promise<DeployTokenReturnType | R> {
  const { services, intent, agentId, paymentNonce, agentDailyCap = null, beforeSigning } = parameters
  const { store, nonceLocks } = services
  if (!services.getSigner)
    return failure(
      'SIGNER_NOT_CONFIGURED',
      'The deploy signer is not configured on this server (KMS_KEY_ID is unset); no deploy can be signed.',
    )
  if (!store || !nonceLocks)
    return failure('DEPLOYS_DISABLED', 'Deploys need the shared store (Upstash Redis) on this deployment, and none is configured.')
  // The variant's activation is asked beside the signer (kept a few minutes); only a registry that says "off" refuses.
  const [ready, active] = await Promise.all([readySigner(services), services.activation.isActive(intent.variant)])
  if (!ready.ok) return ready
  if (active === false) return variantNotActive(intent.variant, 'nothing was simulated or signed, and no cap slot was used')
  const { signer } = ready
  const planned = planLaunch({
    intent,
    signer: signer.address,
    salt: intent.salt ?? services.randomSalt(),
    addresses: services.config.uniswapV4,
    marketCap: services.config.poolMarketCap,
    nowSeconds: Math.floor(services.clock.now() / 1000),
  })
  if (!planned.ok) return planned
  const { plan } = planned
  if (intent.dryRun) {
    // WETH's price is asked beside the simulation: a dry run's pool says its first price in USD too.
    const [simulated, wethUsd] = await Promise.all([dryRunDeploy(services, plan, signer), plan.pool ? services.wethUsd() : null])
    return simulated.ok && simulated.pool
      ? { ...simulated, pool: { ...simulated.pool, ...startValuationUsd(simulated.pool, wethUsd) } }
      : simulated
  }

  const caps = parameters.caps ?? agentKeyCaps({ services, agentDigest: agentId, agentDailyCap })
  const reserved = await reserveAndPrepare({ services, store, signer, plan, agentId, caps })
  if (!reserved.ok) return reserved
  if (beforeSigning) {
    const refused = await beforeSigning().catch(async (error: unknown) => {
      await reserved.reservation.release().catch(() => undefined)
      throw error
    })
    if (refused) {
      await reserved.reservation.release()
      return refused
    }
    reserved.reservation.keep()
  }
  return sendUnderNonceLock({ services, store, nonceLocks, signer, plan, intent, agentId, paymentNonce, ...reserved })
}

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
