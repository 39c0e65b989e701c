import type { Hex } from 'viem'
import { paidAgentId } from '../../deploy/agents/paidAgent.js'
import { failure } from '../../deploy/outcome.js'
import { type DeployTokenReturnType, deployToken } from '../../deploy/pipeline/deployToken.js'
import type { DeployIntent } from '../../deploy/pipeline/intent.js'
import type { DeployCap } from '../../deploy/pipeline/reserve.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { errorName } from '../../platform/log.js'
import { domainAnswer, settledAnswer } from '../door/doorAnswers.js'
import { claimPaidAddress, findSentDeploy, releasePaidAddress } from '../ledger/deployOfPayment.js'
import { type PaymentRecord, refusePayment, savePaymentDone } from '../ledger/paymentRecord.js'
import { savePoolCredit, withPoolCredit } from '../ledger/poolCredits.js'
import { countRefusedAttempt } from '../ledger/refusedAttempt.js'
import { type PaidDeployContext, type Paying, type Purchase, paymentRecordOf, saltOfPayment, summaryOf } from './purchase.js'
import { keepCredit, type SettleRefusal, type SettleStep, settleBeforeSigning } from './settle.js'
import { withOfferReceipt } from './signedAnswer.js'

// Steps 4 to 8 of a paid deploy: the deploy recipe of every agent (caps, simulation, lock, fence, KMS, send), with the
// payment's own caps and its settle between the simulation and the signature. Then the answer is kept: done (the
// deploy went out, or may have), a credit (paid, not deployed), or nothing (refused before any settle).

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
 * A new payment refused before its settle is unspent: `refused`, so that its Idempotency-Key is free for a new payment
 * (one without a key left no record). One settled before, whose outcome nobody knows, stays as it is for the chain.
 */
async function freeUnsettled(context: PaidDeployContext, purchase: Purchase, paying: Paying, reason: string): Promise<void> {
  if (paying.kind !== 'new' || !purchase.keyHash) return
  await refusePayment(context, paymentRecordOf(context, purchase, 'verifying'), reason).catch(() => undefined)
}

/** The step before the signature: the address the deploy creates, claimed for this payment, then the settle. */
async function claimThenSettle(
  context: PaidDeployContext,
  purchase: Purchase,
  paying: Paying,
  intent: DeployIntent & { salt: Hex },
): Promise<SettleStep> {
  const { payer, nonce } = purchase
  if (await claimPaidAddress({ context, payer, nonce, intent })) return settleBeforeSigning(context, purchase, paying)
  await freeUnsettled(context, purchase, paying, 'address_taken')
  return { kind: 'refused', answer: domainAnswer(takenAddress) }
}

/**
 * Deploys for a payment and keeps the answer. A new payment takes its caps' slots, is simulated, then settled and
 * confirmed on chain (steps 4-7) before the signature; a credit deploys without a settlement, taking its slots again
 * (a full cap leaves it a credit, with retryAt).
 */
export async function deployForPayment(context: PaidDeployContext, purchase: Purchase, paying: Paying): Promise<HttpAnswer> {
  const { payer, nonce } = purchase
  const intent = { ...purchase.intent, salt: purchase.intent.salt ?? saltOfPayment(payer, nonce as Hex) }
  // Paid and seen on chain: nothing to settle before the signature.
  const redeemed = paying.kind === 'paid' && paying.record.confirmed ? paying.record : null
  // A deploy resumed past its signature (`deploying`, or `deployed` by the tick without its answer): the one it sent
  // is answered, never a second one (nor a credit for it).
  if (redeemed?.state === 'deploying' || redeemed?.state === 'deployed') {
    const sent = await findSentDeploy({ context, payer, intent })
    if (sent) return keepDeployed(context, purchase, redeemed, sent)
  }
  // The one value the step before the signature hands back besides a refusal: the record it paid for.
  let settled = redeemed
  const outcome = await deployToken<SettleRefusal>({
    services: context.services,
    intent,
    agentId: paidAgentId(payer),
    // The deploy's record names its payment (written before the broadcast): a receipt shows the payment beside it.
    paymentNonce: nonce,
    // A resumed or redeemed deploy takes its slots again (its first attempt gave them back); a full cap keeps it a
    // credit, answered with retryAt.
    caps: paidCaps(context, payer),
    beforeSigning: redeemed
      ? undefined
      : async () => {
          const step = await claimThenSettle(context, purchase, paying, intent)
          if (step.kind === 'refused') return step
          settled = step.record
          return null
        },
  })
  if ('kind' in outcome) {
    // Not paid after its settle: the attempt keeps a slot of the payer's cap, taken once the deploy's own went back
    // (counted before, with the deploy's slot still held, a cap one short of full would have had no room for it).
    if (outcome.unpaid) await countRefusedAttempt(context, outcome.unpaid).catch(() => undefined)
    // Not paid: the address it claimed is free again for the payer's next payment (a claim kept 30 days would refuse it).
    if (outcome.unpaid) await releasePaidAddress({ context, payer, nonce, intent }).catch(() => undefined)
    return outcome.answer
  }
  if (!settled) {
    // Refused before any settle (a cap, the simulation, the signer).
    await freeUnsettled(context, purchase, paying, outcome.ok ? 'not_deployed' : outcome.code)
    return domainAnswer(outcome)
  }
  if (!outcome.ok && outcome.code !== 'BROADCAST_UNCERTAIN') return keepCredit(context, purchase, settled, outcome)
  return keepDeployed(context, purchase, settled, outcome)
}

/** Keeps a deploy's answer as the payment's (`deployed`, replayed from now on) and answers it. */
async function keepDeployed(
  context: PaidDeployContext,
  purchase: Purchase,
  settled: PaymentRecord,
  deployed: DeployTokenReturnType,
): Promise<HttpAnswer> {
  // Broadcast (or maybe: BROADCAST_UNCERTAIN is final, the receipt tells): the payment bought this deploy, for good. A
  // pool known failed at once (the node refused a seed) leaves the pool's part of the price a credit, said here.
  const pool = deployed.ok && 'pool' in deployed ? deployed.pool : undefined
  const poolFailed = pool !== undefined && 'status' in pool && pool.status === 'failed'
  const paid = (poolFailed && withPoolCredit(settled, context.clock.now())) || settled
  const answer = await withOfferReceipt(context, settledAnswer(deployed, summaryOf(paid)))
  const done: PaymentRecord = { ...paid, state: 'deployed', credit: null, answer }
  try {
    await savePaymentDone(context.store, purchase, { record: done, lease: purchase.lease ?? '', keyHash: purchase.keyHash })
    purchase.lease = null
    if (done.poolCredit) {
      await savePoolCredit(context.store, context.keys, done)
      context.services.logger.warn('x402_pool_credit', { credit: done.poolCredit.id, payer: done.payer, amount: done.poolCredit.amount })
    }
  } catch (error) {
    // The deploy went out: it is answered. A retry finds the payment `deploying` and the deploy it sent in the agent's
    // history (written before the broadcast), and answers that one again: no second token, no credit.
    context.services.logger.error('store_unavailable', {
      operation: 'x402-done',
      error: errorName(error),
      effect: 'answer not kept',
      nonce: purchase.nonce,
    })
  }
  return answer
}
