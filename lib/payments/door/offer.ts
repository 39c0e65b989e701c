import type { B20Variant } from '../../chain/b20Variants.js'
import { type DeployFailure, failure } from '../../deploy/outcome.js'
import type { DeployIntent } from '../../deploy/pipeline/intent.js'
import { variantNotActive } from '../../deploy/pipeline/variantActive.js'
import { errorAnswerOf } from '../../platform/errorAnswer.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { errorName, processLogger } from '../../platform/log.js'
import { accepted, type Result, refused } from '../../platform/result.js'
import { takeSlots } from '../../store/slidingLog.js'
import type { Store } from '../../store/types.js'
import type { PaymentsConfig } from '../config.js'
import { paymentKeys } from '../keys.js'
import type { DoorChain } from '../verdict/doorChain.js'
import { domainAnswer, doorError, paymentRequiredAnswer } from './doorAnswers.js'
import { paymentRequirementsOf } from './requirements.js'

// What the door offers before anyone pays: its terms, read from the chain (the asset's, once per instance; a variant's
// activation, kept a few minutes), and the answers of a request without a payment: the 402, or why there is none (the
// paid cap full). No KMS, no verify: an unpaid request costs the throttle, the chain's terms an instance keeps, and for
// a deploy that could be sold, one store command to look at the paid cap.

/** What the door offers for a deploy: its settings priced, or why not, with its answer. */
export type Offer = Result<{ config: PaymentsConfig }, 'CONFIG_INVALID' | 'RPC_UNAVAILABLE' | 'VARIANT_NOT_ACTIVE', { answer: HttpAnswer }>

/** Parameters of {@link offerFor}. */
export type OfferForParameters = {
  chain: DoorChain
  /** The variant a deploy asks for; null for a request that names none it could be sold (the 402 of a refusal). */
  variant: B20Variant | null
}

/**
 * What the door offers, asked of the chain before any 402, verify or signature. The price at the asset's own
 * `decimals()`, with the EIP-712 domain the token signs with: else 500 CONFIG_INVALID (the log names the setting),
 * never a wrong price. The variant switched on by Base's ActivationRegistry: else VARIANT_NOT_ACTIVE. An RPC that
 * cannot tell the asset's terms stops the sale (503 RPC_UNAVAILABLE, nothing charged: no price is guessed); one that
 * cannot tell the variant's state lets the deploy's simulation decide, which reverts `FeatureNotActivated` before
 * anything is settled.
 */
export async function offerFor({ chain, variant }: OfferForParameters): Promise<Offer> {
  let unanswered: unknown = null
  const [priced, active] = await Promise.all([
    chain.priced().catch((error: unknown) => {
      unanswered = error
      return null
    }),
    variant === null ? null : chain.activation.isActive(variant),
  ])
  if (priced === null) {
    processLogger().warn('rpc_unavailable', { operation: 'x402-asset-terms', error: errorName(unanswered), effect: 'no price offered' })
    const error =
      'The chain RPC did not answer what the payment asset is (its decimals and EIP-712 domain), so no price can be asked; nothing was charged. Retry after Retry-After.'
    return refused('RPC_UNAVAILABLE', { answer: doorError(503, 'RPC_UNAVAILABLE', error, { 'retry-after': '5' }) })
  }
  if (!priced.ok) return refused('CONFIG_INVALID', { answer: errorAnswerOf(priced.error, { endpoint: 'x402-deploy' }) })
  if (variant !== null && active === false)
    return refused('VARIANT_NOT_ACTIVE', { answer: domainAnswer(variantNotActive(variant, 'nothing was asked, charged or signed')) })
  return accepted({ config: priced.config })
}

/** Parameters of {@link unpaidAnswer}. */
export type UnpaidAnswerParameters = {
  /** The shared store, where the paid cap is counted (none: the 402 goes out, and the cap is taken exactly later). */
  store: Store | null
  /** The door's terms for this deploy (a pooled launch's price for one). */
  config: PaymentsConfig
  /** The door's URL on the public origin: the 402's resource. */
  resourceUrl: string
  /** Now, on the door's clock. */
  now: number
  /** The deploy asked for: the 402 says who will own the token. */
  intent: Pick<DeployIntent, 'admin' | 'birth'>
}

/**
 * Who the token's admin and minter will be, as the 402 says it before anyone paid: the payer (the payment's `from`,
 * unknown until it pays) unless the body names an admin; nobody, ever, for a fixed supply.
 */
function ownerOfPaidLaunch({ admin, birth }: Pick<DeployIntent, 'admin' | 'birth'>): string {
  if (birth.fixedSupply) return 'with no admin and no minter, ever (fixedSupply)'
  if (admin) return `with ${admin} (the body's admin) as its admin and minter`
  return 'with you, the payer (the payment’s from), as its admin and minter: you own it from birth (name admin to choose another)'
}

/** An unpaid deploy that could be sold: DEPLOY_CAP_REACHED when the paid cap is full (one store command), else the 402. */
export async function unpaidAnswer({ store, config, resourceUrl, now, intent }: UnpaidAnswerParameters): Promise<HttpAnswer> {
  const windowMs = config.capWindowSeconds * 1000
  const cap = { key: paymentKeys(config).cap, limit: config.dailyCap, windowMs }
  // A look without a take (count 0). A store that cannot say lets the 402 through: the cap is taken, exactly, later.
  const seen = store ? await takeSlots(store, { windows: [cap], count: 0, member: 'look', now }).catch(() => null) : null
  const window = seen?.windows[0]
  if (window && window.used >= config.dailyCap) {
    const retryAt = new Date(window.oldestAt + windowMs).toISOString()
    return domainAnswer(
      failure(
        'DEPLOY_CAP_REACHED',
        `The rolling cap of ${config.dailyCap} paid deploys is reached; a slot frees up at ${retryAt}. Nothing was charged.`,
        {
          retryAt,
          retryAfterSeconds: Math.max(1, Math.ceil((window.oldestAt + windowMs - now) / 1000)),
        },
      ),
    )
  }
  return paymentRequiredAnswer({
    requirements: paymentRequirementsOf(config),
    resourceUrl,
    code: 'PAYMENT_REQUIRED',
    error: `A deploy costs ${config.price} ${config.asset.name}: pay with x402 (an x402 client answers this 402 by itself), then the token is deployed ${ownerOfPaidLaunch(intent)}.`,
  })
}

/** Parameters of {@link refusedUnpaidAnswer}. */
export type RefusedUnpaidAnswerParameters = {
  /** The door's plain terms (no body says what it would buy). */
  config: PaymentsConfig
  /** The door's URL on the public origin: the 402's resource. */
  resourceUrl: string
  /** Why the request would be refused once paid: the refusal every door gives (INVALID_INTENT, UNKNOWN_ACTION). */
  refusal: DeployFailure
}

/**
 * The 402 of an unpaid request the door would refuse (an invalid body, an unknown action, a GET): the terms all the
 * same, so that a catalog's probe (`POST {}`) and an agent asking what a deploy costs both see them, with what to fix
 * named in `error` and `details`. No store command: nothing could be sold, so the paid cap is not looked at. Were it
 * paid as it is, the door would refuse it before any verify or settle.
 */
export function refusedUnpaidAnswer({ config, resourceUrl, refusal }: RefusedUnpaidAnswerParameters): Promise<HttpAnswer> {
  const details = refusal.details ?? []
  const fields = [...new Set(details.map((problem) => problem.field))].join(', ')
  return paymentRequiredAnswer({
    requirements: paymentRequirementsOf(config),
    resourceUrl,
    code: 'PAYMENT_REQUIRED',
    error: `A deploy costs ${config.price} ${config.asset.name}, paid with x402, but this request would be refused before any payment is taken (${fields}: see details): fix it, then pay.`,
    details,
  })
}
