import { randomUUID } from 'node:crypto'
import type { KmsAccount } from '../../chain/kmsAccount.js'
import type { Accepted } from '../../platform/result.js'
import { oldestInIndex } from '../../store/recordIndex.js'
import type { Store } from '../../store/types.js'
import { deployCapKeys, deployHistoryKeys, deployStoreKeys } from '../keys.js'
import { type DeployFailure, type DeployResult, storeFailureOf } from '../outcome.js'
import type { NonceLocks } from '../sender/nonceLock.js'
import type { DeployServices } from '../services.js'
import type { DeployPlan } from './deployPlan.js'
import type { DeployIntent } from './intent.js'
import { type PreparedDeploy, prepareDeploy } from './prepare.js'
import { type CapReservation, createCapReservation, type DeployCap } from './reserve.js'

// What a deploy does before the nonce lock: its cap slots and the chain reads, at once.

/** What a deploy under way carries from step to step. */
export type DeployContext = {
  services: DeployServices
  store: Store
  signer: KmsAccount
  plan: DeployPlan
  /** Who the deploy is recorded for: an agent key's allowlist digest, or a paid agent's id (`x402:<payer>`). */
  agentId: string
  /** The EIP-3009 nonce of the payment that bought it (a paid deploy): kept in its record, before the broadcast. */
  paymentNonce?: string
}

/** A deploy that holds its cap slots and knows the chain's state: ready for the nonce lock. */
export type ReservedDeploy = { reservation: CapReservation; prepared: PreparedDeploy; stuckSeen: boolean }

/** A deploy ready for the nonce lock: reserved, prepared, with its intent and the instance's locks. */
export type LockedDeploy = DeployContext & ReservedDeploy & { intent: DeployIntent; nonceLocks: NonceLocks }

/**
 * The store's failure before anything was signed: deploys fail closed. Any other error is thrown on (see
 * {@link storeFailureOf}): it is not the store's, and the caller answers it as unexpected.
 */
export function storeFailure(services: Pick<DeployServices, 'logger'>, operation: string, error: unknown): DeployFailure {
  return storeFailureOf(error, {
    logger: services.logger,
    operation,
    effect: 'deploy refused',
    message: 'The deploy coordinator (Redis) is unavailable; deploys fail closed and nothing was signed. Try again shortly.',
  })
}

/** The store keys of a deploy: its signer's lock and nonces, and the deploy history. */
export const keysOf = ({ services, signer }: { services: Pick<DeployServices, 'config'>; signer: Pick<KmsAccount, 'address'> }) => ({
  lock: deployStoreKeys({ storePrefix: services.config.storePrefix, chainId: services.config.chainId, signer: signer.address }),
  history: deployHistoryKeys({ storePrefix: services.config.storePrefix, chainId: services.config.chainId }),
})

/** Parameters of {@link agentKeyCaps}. */
export type AgentKeyCapsParameters = {
  services: Pick<DeployServices, 'config'>
  /** The calling agent key's allowlist digest. */
  agentDigest: string
  /** Its own daily cap (a key issued with one); null: `DEPLOY_AGENT_DAILY_CAP`. */
  agentDailyCap: number | null
}

/** The caps a deploy with an agent key takes a slot of: `DEPLOY_DAILY_CAP`, and the key's own when it has one. */
export function agentKeyCaps({ services, agentDigest, agentDailyCap }: AgentKeyCapsParameters): DeployCap[] {
  const { config } = services
  const keys = deployCapKeys({ storePrefix: config.storePrefix, chainId: config.chainId })
  const caps: DeployCap[] = [{ key: keys.cap, limit: config.dailyCap, code: 'DEPLOY_CAP_REACHED', who: 'this service' }]
  const agentCap = agentDailyCap ?? config.agentDailyCap
  if (agentCap !== null) caps.push({ key: keys.agentCap(agentDigest), limit: agentCap, code: 'AGENT_CAP_REACHED', who: 'your agent key' })
  return caps
}

/**
 * Steps 1 and 2, reserve and prepare, at once: the cap slots (exact across instances on their own), the chain reads
 * of {@link prepareDeploy}, and a look at the oldest unmined deploy (one sent long ago may be stuck). Nothing of it
 * depends on the nonce, so the lock holds only what must go one after another. A refusal gives the slots back.
 */
export async function reserveAndPrepare(context: DeployContext & { caps: readonly DeployCap[] }): Promise<DeployResult<ReservedDeploy>> {
  const { services, store, signer, plan, caps } = context
  const { config } = services
  const keys = keysOf(context)
  const now = services.clock.now()
  const reservation = createCapReservation({ store, caps, member: `${now}:${randomUUID()}`, windowMs: config.capWindowSeconds * 1000, now })
  try {
    const [capped, prepared, oldest] = await Promise.all([
      reservation.reserve(),
      prepareDeploy(services, plan, signer),
      oldestInIndex(store, keys.history.unmined(signer.address)),
    ])
    const refused = capped ?? (prepared.ok ? null : prepared)
    if (refused) {
      await reservation.release()
      return refused
    }
    const stuckSeen = oldest !== null && now - oldest >= config.stuckSeconds * 1000
    return { ok: true, reservation, prepared: prepared as Accepted<PreparedDeploy>, stuckSeen }
  } catch (error) {
    await reservation.release().catch(() => undefined)
    return storeFailure(services, 'deploy-prepare', error)
  }
}
