import { paidAgentId } from '../../deploy/agents/paidAgent.js'
import { failure } from '../../deploy/outcome.js'
import { type DeployTokenReturnType, deployToken } from '../../deploy/pipeline/deployToken.js'
import type { DeployCap } from '../../deploy/pipeline/reserve.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { errorName } from '../../platform/log.js'
import { withOfferReceipt } from '../discovery/offerReceipt.js'
import { domainAnswer, settledAnswer } from '../door/doorAnswers.js'
import { claimPaidAddress, findSentDeploy } from '../ledger/deployOfPayment.js'
import { type PaymentRecord, savePaymentDone } from '../ledger/paymentRecord.js'
import { countRefusedAttempt } from '../ledger/refusedAttempt.js'
import { type PaidDeployContext, type Purchase, paymentRecordOf, saltOfPayment, summaryOf } from './purchase.js'
import { keepCredit, refusePayment, resumeSettling, type SettleStep, settleForDeploy } from './settle.js'

// Steps 4 to 8 of a paid deploy: the deploy recipe of every agent (caps, simulation, lock, fence, KMS, send), with the
// payment's own caps and its settle between the simulation and the signature. Then the answer is kept: done (the
// deploy went out, or may have), a credit (paid, not deployed), or nothing (refused before any settle).

/** Where the payment stands as its deploy begins. */
export type Paying =
  | { kind: 'new' }
  /** A settle was asked for before and nobody saw it end; the chain shows the authorization still unused. */
  | { kind: 'settling'; record: PaymentRecord }
  /** Paid already: a credit being redeemed, with no new settlement (confirmed on chain first, if it was not yet). */
  | { kind: 'paid'; record: PaymentRecord }

/** Another payment's deploy creates the token at this address (the same salt): refused before its settle. */
const takenAddress = failure(
  'SIMULATION_REVERTED',
  'Another paid deploy is creating a token at this address (the same salt); nothing was settled or signed. Choose another salt.',
)

/** The caps of a paid deploy: `X402_DAILY_CAP` for all paid deploys, `X402_PAYER_DAILY_CAP` for this payer. */
export function paidCaps(context: Pick<PaidDeployContext, 'config' | 'keys'>, payer: string): DeployCap[] {
  const { config, keys } = context
  return [
    { key: keys.cap, limit: config.dailyCap, code: 'DEPLOY_CAP_REACHED', who: 'paid deploys on this service' },
    { key: keys.payerCap(payer), limit: config.payerDailyCap, code: 'DEPLOY_CAP_REACHED', who: 'this payer' },
  ]
}

/**
 * The settle step of a deploy, as where the payment stands asks for it: a new payment is settled; one whose earlier
 * settle the chain shows unused is settled again (the token uses a nonce once at most: this can never pay twice); a
 * credit the chain did not show yet is looked up on chain first, and settled again only if still unused.
 */
async function settleStep(context: PaidDeployContext, purchase: Purchase, paying: Paying): Promise<SettleStep> {
  if (paying.kind === 'new') return settleForDeploy(context, purchase)
  if (paying.kind === 'settling') return settleForDeploy(context, purchase, paying.record)
  const resumed = await resumeSettling(context, purchase, paying.record)
  return resumed.kind === 'settle-again' ? settleForDeploy(context, purchase, paying.record) : resumed
}

/**
 * Deploys for a payment and keeps the answer. A new payment takes its caps' slots, is simulated, then settled and
 * confirmed on chain (steps 4-7) before the signature; a credit deploys without a settlement, taking its slots again
 * (a full cap leaves it a credit, with retryAt).
 */
export async function buyDeploy(context: PaidDeployContext, purchase: Purchase, paying: Paying): Promise<HttpAnswer> {
  const { services } = context
  let paid: PaymentRecord | null = paying.kind === 'paid' && paying.record.confirmed ? paying.record : null
  let refusal: HttpAnswer | null = null
  let unpaid: PaymentRecord | null = null
  const { payer, nonce } = purchase
  const intent = { ...purchase.intent, salt: purchase.intent.salt ?? saltOfPayment(payer, nonce as `0x${string}`) }
  const beforeSigning = async (): Promise<HttpAnswer | null> => {
    if (!(await claimPaidAddress({ context, payer, nonce, intent }))) {
      if (paying.kind === 'new' && purchase.keyHash)
        await refusePayment(context, paymentRecordOf(context, purchase, 'verifying'), 'address_taken').catch(() => undefined)
      refusal = domainAnswer(takenAddress)
      return refusal
    }
    const step = await settleStep(context, purchase, paying)
    if (step.kind === 'refused') {
      refusal = step.answer
      unpaid = step.unpaid ?? null
      return step.answer
    }
    paid = step.record
    return null
  }
  // A deploy resumed past its signature (`deploying`, or `deployed` by the tick without its answer): the one it sent
  // is answered, never a second one (nor a credit for it).
  const resumed = paying.kind === 'paid' && (paying.record.state === 'deploying' || paying.record.state === 'deployed')
  const sent = resumed ? await findSentDeploy({ context, payer, intent }) : null
  if (sent && paid) return keepDeployed(context, purchase, paid, sent)
  const outcome = await deployToken<HttpAnswer>({
    services,
    intent,
    agentId: paidAgentId(payer),
    // The deploy's record names its payment (written before the broadcast): a receipt shows the payment beside it.
    paymentNonce: nonce,
    // A resumed or redeemed deploy takes its slots again (its first attempt gave them back); a full cap keeps it a
    // credit, answered with retryAt.
    caps: paidCaps(context, payer),
    beforeSigning: paid ? undefined : beforeSigning,
  })
  if (refusal !== null && outcome === refusal) {
    // Not paid after its settle: the attempt keeps a slot of the payer's cap, taken once the deploy's own went back
    // (counted before, with the deploy's slot still held, a cap one short of full would have had no room for it).
    if (unpaid) await countRefusedAttempt(context, unpaid).catch(() => undefined)
    return refusal
  }
  const deployed = outcome as DeployTokenReturnType
  const settled = paid as PaymentRecord | null
  if (!settled) {
    // Refused before this settle (a cap, the simulation, the signer): a new payment is unspent, `refused` (its key is
    // free for a new payment); one settled before whose outcome nobody knows stays as it is, for the chain to decide.
    if (paying.kind === 'new' && purchase.keyHash)
      await refusePayment(context, paymentRecordOf(context, purchase, 'verifying'), deployed.ok ? 'not_deployed' : deployed.code).catch(
        () => undefined,
      )
    return domainAnswer(deployed)
  }
  if (!deployed.ok && deployed.code !== 'BROADCAST_UNCERTAIN') return keepCredit(context, purchase, settled, deployed)
  return keepDeployed(context, purchase, settled, deployed)
}

/** Keeps a deploy's answer as the payment's (`deployed`, replayed from now on) and answers it. */
async function keepDeployed(
  context: PaidDeployContext,
  purchase: Purchase,
  settled: PaymentRecord,
  deployed: DeployTokenReturnType,
): Promise<HttpAnswer> {
  const { services } = context
  // Broadcast (or maybe: BROADCAST_UNCERTAIN is final, the receipt tells): the payment bought this deploy, for good.
  const answer = await withOfferReceipt(context, settledAnswer(deployed, summaryOf(settled)))
  const done: PaymentRecord = { ...settled, state: 'deployed', credit: null, answer }
  try {
    await savePaymentDone(context.store, purchase, { record: done, lease: purchase.lease ?? '', keyHash: purchase.keyHash })
    purchase.lease = null
  } catch (error) {
    // The deploy went out: it is answered. A retry finds the payment `deploying` and the deploy it sent in the agent's
    // history (written before the broadcast), and answers that one again: no second token, no credit.
    services.logger.error('store_unavailable', {
      operation: 'x402-done',
      error: errorName(error),
      effect: 'answer not kept',
      nonce: purchase.nonce,
    })
  }
  return answer
}
