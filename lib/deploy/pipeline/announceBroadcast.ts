import type { DeployBroadcast } from '../answers/deployAnswers.js'
import type { TransactionRecord } from '../sender/signedTransactions.js'
import { type NotifyAgentParameters, notifyAgent } from '../webhooks/outbox.js'
import type { DeployContext } from './beforeLock.js'

/** Parameters of {@link announceBroadcast}: the deploy sent, its record (null: a replayed answer) and its tx. */
export type AnnounceBroadcastParameters = {
  deploy: Pick<DeployContext, 'services' | 'signer' | 'plan'>
  record: TransactionRecord | null
  txHash: `0x${string}`
  explorerUrl: string
  /** A pooled launch's pool id, which the webhook's details carry too. */
  poolId?: string
}

/**
 * The broadcast answer of a deploy that went out, plain or pooled alike (a pooled launch adds its `pool`), and its
 * `deploy.broadcast` webhook, told once, by the deploy that sent it: a replayed answer has no record and tells nothing.
 */
export function announceBroadcast({ deploy, record, txHash, explorerUrl, poolId }: AnnounceBroadcastParameters): DeployBroadcast {
  const { services, signer, plan } = deploy
  const chainId = services.config.chainId
  if (record) {
    const details: NotifyAgentParameters['details'] = { explorerUrl, signer: signer.address, chainId, ...(poolId ? { poolId } : {}) }
    notifyAgent({ webhooks: services.webhooks, background: services.background, type: 'deploy.broadcast', record, details })
  }
  return {
    ok: true,
    status: 'broadcast',
    txHash,
    predictedAddress: plan.predictedAddress,
    explorerUrl,
    token: plan.token,
    signer: signer.address,
    chainId,
  }
}
