import type { PaymentRequirements } from '@x402/core/types'
import { encodePacked, getAddress, type Hex, keccak256 } from 'viem'
import type { DeployIntent } from '../../deploy/pipeline/intent.js'
import type { DeployServices } from '../../deploy/services.js'
import type { Clock } from '../../platform/clock.js'
import type { Store } from '../../store/types.js'
import type { PaymentsConfig } from '../config.js'
import type { PaymentSummary } from '../discovery/paidDoorSchemas.js'
import type { DecodedPayment } from '../door/paymentPayload.js'
import type { PaymentFacilitator } from '../facilitator/httpFacilitator.js'
import type { PaymentKeys } from '../keys.js'
import type { PaymentRecord, PaymentRef } from '../ledger/paymentRecord.js'

// One purchase: a payment and the deploy it buys, as the steps of the paid door pass it along.

/** What the paid door works with for one request: the deploy side, the store, its settings and the facilitator. */
export type PaidDeployContext = {
  services: DeployServices
  store: Store
  config: PaymentsConfig
  facilitator: PaymentFacilitator
  /** The door's clock: an authorization's validity window, and the pause before the chain is asked again. */
  clock: Clock
  keys: PaymentKeys
  /** The server's own requirements: every new payment is held, verified and settled against these, and every 402 offers them. */
  requirements: PaymentRequirements
  /**
   * The terms a payment already taken was taken under, when today's differ (the operator changed the price, payTo or
   * asset since): its signature is checked and its settle resumed against these, never today's.
   */
  keptTerms?: PaymentRequirements
  /** The door's URL on the public origin (the 402's resource, the receipt's resourceUrl), never the request's. */
  resourceUrl: string
  /** When the paid request's work began, on the door's clock: a settle starts only within a budget of it. */
  startedAt: number
}

/** A payment being worked on, under its lease. */
export type Purchase = PaymentRef & {
  payment: DecodedPayment
  /** The deploy request it pays for, and its hash. */
  body: Record<string, unknown>
  bodyHash: string
  intent: DeployIntent
  /** SHA-256 of the payer's Idempotency-Key (or payment id), when one came. */
  keyHash: string | null
  /** The lease token; null once it was let go (with the final answer). */
  lease: string | null
}

/** Where the payment stands as its deploy begins. */
export type Paying =
  | { kind: 'new' }
  /** A settle was asked for before and nobody saw it end; the chain shows the authorization still unused. */
  | { kind: 'settling'; record: PaymentRecord }
  /** Paid already: a credit being redeemed, with no new settlement (confirmed on chain first, if it was not yet). */
  | { kind: 'paid'; record: PaymentRecord }

/**
 * The salt of a paid deploy that names none, from its payment: every attempt to deploy for one payment creates the
 * same token, so the chain itself refuses a second one (TokenAlreadyExists) should a record ever be lost.
 */
export function saltOfPayment(payer: string, nonce: Hex): Hex {
  return keccak256(encodePacked(['string', 'address', 'bytes32'], ['x402 paid deploy', payer as `0x${string}`, nonce]))
}

/**
 * The intent as the paid door deploys it: a paid launch has no key, so a body that names no admin gets the payer (the
 * authorization's `from`) as its admin, and so as its minter (the deploy grants the mint role to the admin), where a
 * keyed deploy would get the signer or `pool.owner`. A body's own admin stands; a fixed supply has none. Decided as the
 * purchase is made, before the simulation: what is simulated, claimed, signed, answered and replayed is the payer's.
 */
export function payerOwnedIntent(intent: DeployIntent, payer: string): DeployIntent {
  return intent.admin !== undefined || intent.birth.fixedSupply ? intent : { ...intent, admin: getAddress(payer) }
}

/** Whether the payment this request carries is the purchase's own (not the one an Idempotency-Key went with first). */
export const carriesOwnPayment = (purchase: Purchase): boolean => purchase.payment.authorization.nonce.toLowerCase() === purchase.nonce

/** The first record of a payment: `verifying` (its Idempotency-Key claimed, before verify) or `settling`. */
export function paymentRecordOf(context: PaidDeployContext, purchase: Purchase, state: 'verifying' | 'settling'): PaymentRecord {
  const { authorization } = purchase.payment
  return {
    state,
    bodyHash: purchase.bodyHash,
    payer: purchase.payer,
    nonce: purchase.nonce,
    amount: context.config.amount,
    asset: context.config.asset.address,
    network: context.config.network,
    validBefore: Number(authorization.validBefore),
    at: context.services.clock.now(),
    transaction: null,
    confirmed: false,
    credit: null,
    answer: null,
    payTo: context.config.payTo.toLowerCase(),
    assetName: context.config.asset.name,
    assetVersion: context.config.asset.version,
    ...(context.config.poolPart !== '0' ? { poolPart: context.config.poolPart } : {}),
  }
}

/** What a settled record says was paid. */
export function summaryOf(record: PaymentRecord): PaymentSummary {
  return {
    payer: getAddress(record.payer),
    transaction: record.transaction ?? '',
    amount: record.amount,
    asset: record.asset,
    network: record.network,
    ...(record.poolCredit ? { poolCredit: { id: record.poolCredit.id, amount: record.poolCredit.amount } } : {}),
  }
}
