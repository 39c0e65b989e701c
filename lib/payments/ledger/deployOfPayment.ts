import type { Hex } from 'viem'
import { paidAgentId } from '../../deploy/agents/paidAgent.js'
import type { DeployBroadcast } from '../../deploy/answers/deployAnswers.js'
import { deployHistoryKeys } from '../../deploy/keys.js'
import { planDeploy } from '../../deploy/pipeline/deployPlan.js'
import type { DeployIntent } from '../../deploy/pipeline/intent.js'
import { listAgentDeploys } from '../../deploy/records/agentDeploys.js'
import { parseTransactionRecord } from '../../deploy/sender/signedTransactions.js'
import type { DeployServices } from '../../deploy/services.js'
import { listIndexed } from '../../store/recordIndex.js'
import type { Store } from '../../store/types.js'
import type { PaymentKeys } from '../keys.js'
import { PAYMENT_RECORD_TTL_MS } from './lifetimes.js'

// A paid deploy resumed after its instance stopped past the signature (the store write of its answer failed, or the
// function hit its maxDuration): the deploy pipeline writes every signed transaction to the agent's history before
// it is broadcast (write-ahead), so the deploy this payment may have sent is found there, by the address its salt
// (the payment's own) predicts. It is answered as it was, instead of being sent again and answered as a credit.

/** How many of the paying agent's latest deploys are looked through: a payer's cap is a few a day. */
const LOOKED_THROUGH = 100

/** Parameters of {@link findSentDeploy}. */
export type FindSentDeployParameters = {
  context: { services: DeployServices; store: Store; keys: PaymentKeys }
  payer: string
  /** The intent with the salt the deploy is sent with. */
  intent: DeployIntent & { salt: Hex }
}

/** The deploy's plan as the signer would send it (its KMS address is read once per instance). */
async function paidPlan(context: { services: DeployServices }, intent: DeployIntent & { salt: Hex }) {
  const { services } = context
  if (!services.getSigner) return null
  const signer = await services.getSigner()
  return { signer, plan: planDeploy({ intent, signer: signer.address, salt: intent.salt }) }
}

/**
 * Claims the address the deploy creates for this payment, across instances, before its settle: two paid deploys of
 * one salt (two payers, or one payer retrying without a key) would both pass the simulation and both settle, and the
 * second would revert on chain. The claim is the payment's for as long as its record (a credit redeems the same
 * address). False when another payment holds it.
 */
export async function claimPaidAddress({ context, payer, nonce, intent }: FindSentDeployParameters & { nonce: string }): Promise<boolean> {
  const planned = await paidPlan(context, intent)
  if (!planned) return true
  const key = context.keys.address(planned.plan.predictedAddress)
  const owner = `${payer.toLowerCase()}:${nonce.toLowerCase()}`
  if (await context.store.setIfAbsent(key, owner, PAYMENT_RECORD_TTL_MS)) return true
  return (await context.store.get(key)) === owner
}

/**
 * Gives the address back when its payment's attempt ended unpaid (its settle refused before anything moved): the
 * payer's next payment for the same request takes it. Only this payment's claim is removed (compare and delete).
 */
export async function releasePaidAddress({ context, payer, nonce, intent }: FindSentDeployParameters & { nonce: string }): Promise<void> {
  const planned = await paidPlan(context, intent)
  if (!planned) return
  await context.store.releaseLock(context.keys.address(planned.plan.predictedAddress), `${payer.toLowerCase()}:${nonce.toLowerCase()}`)
}

/** The broadcast answer of the deploy this payment sent before, or null when none was signed for it. */
export async function findSentDeploy({ context, payer, intent }: FindSentDeployParameters): Promise<DeployBroadcast | null> {
  const { services, store } = context
  const planned = await paidPlan(context, intent)
  if (!planned) return null
  const { plan, signer } = planned
  const { config } = services
  const keys = deployHistoryKeys({ storePrefix: config.storePrefix, chainId: config.chainId })
  const deploys = await listAgentDeploys({ store, keys, agentDigest: paidAgentId(payer), limit: LOOKED_THROUGH })
  const sent = deploys.find((d) => d.predictedAddress.toLowerCase() === plan.predictedAddress.toLowerCase())
  if (!sent) return null
  const txHash = sent.txHash as Hex
  return {
    ok: true,
    status: 'broadcast',
    txHash,
    predictedAddress: plan.predictedAddress,
    explorerUrl: `${config.explorerUrl}/tx/${txHash}`,
    token: plan.token,
    signer: signer.address,
    chainId: config.chainId,
  }
}

/** Parameters of {@link paymentSignedDeploy}. */
export type PaymentSignedDeployParameters = {
  store: Store
  config: Pick<DeployServices['config'], 'storePrefix' | 'chainId'>
  payer: string
  nonce: string
}

/**
 * Whether a deploy was signed for this payment: the paying agent's history holds a deploy naming it (written before
 * its broadcast; one left unmined is re-sent by the tick's follow-up of deploys). Read without the deploy's request,
 * by the payment alone.
 */
export async function paymentSignedDeploy({ store, config, payer, nonce }: PaymentSignedDeployParameters): Promise<boolean> {
  const keys = deployHistoryKeys({ storePrefix: config.storePrefix, chainId: config.chainId })
  const agent = paidAgentId(payer)
  const values = await listIndexed(store, { indexKey: keys.agent(agent), recordPrefix: keys.recordPrefix, limit: LOOKED_THROUGH })
  return values
    .map(parseTransactionRecord)
    .some((r) => r !== null && r.agent === agent && r.paymentNonce?.toLowerCase() === nonce.toLowerCase())
}
