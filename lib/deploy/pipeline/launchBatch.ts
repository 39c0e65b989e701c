// A pooled launch under the nonce lock: one transaction from the signer to itself, `executeBatch` of the creation and
// the pool's calls, run by the account's EIP-7702 delegate. The first launch also carries the authorization that sets
// the delegation: signed by the same key, so it takes the signer's next nonce after the transaction's (the sender's
// nonce rises before authorizations are processed), and that nonce is claimed under the lock like any other.
import type { SignedAuthorization } from 'viem'
import { type DeployResult, failure } from '../outcome.js'
import type { TransactionPrice } from '../sender/fees.js'
import { type KeptRecord, recordOf } from '../sender/keep.js'
import type { NonceLock } from '../sender/nonceLock.js'
import { type SignedTransaction, signDelegation, type UnsignedTransaction } from '../sender/sign.js'
import type { LockedDeploy } from './beforeLock.js'
import type { Holdings } from './holdings.js'

/**
 * The nonce the delegation's authorization takes (the transaction's + 1), claimed and held (given back unless the
 * launch goes out), then the authorization signed with KMS for it. Another nonce than the next one cannot carry it:
 * `DEPLOY_BUSY`, nothing signed.
 */
export async function authorizeDelegation(
  deploy: LockedDeploy,
  lock: NonceLock,
  holdings: Holdings,
  nonce: number,
): Promise<DeployResult<{ authorization: SignedAuthorization }>> {
  const { services, signer } = deploy
  const claim = await lock.claimNonce(deploy.prepared.pending)
  if (claim.kind === 'claimed') holdings.tookSeedNonce(claim.nonce)
  if (claim.kind !== 'claimed' || claim.nonce !== nonce + 1)
    return failure('DEPLOY_BUSY', 'The nonce the delegation’s authorization needs is not free yet; nothing was signed. Retry shortly.', {
      retryAfterSeconds: 3,
    })
  return signDelegation({
    signer,
    chainId: services.config.chainId,
    delegate: services.config.delegate,
    nonce: claim.nonce,
    logger: services.logger,
  })
}

/** The deploy's one transaction: `createB20`, or a pooled launch's batch to the signer itself (with the authorization when it sets the delegation). */
export function deployTransaction(
  deploy: LockedDeploy,
  nonce: number,
  price: TransactionPrice,
  authorization: SignedAuthorization | null,
): UnsignedTransaction {
  const { to, data } = deploy.plan.request
  return { call: { to, data }, nonce, price, ...(authorization ? { authorizationList: [authorization] } : {}) }
}

/**
 * The record of a deploy's transaction, once signed: `deploy`, or `launch` with its pool (its seed is in the same
 * transaction: no seed transactions of its own), in the agent's history.
 */
export function deployRecordOf(
  deploy: LockedDeploy,
  transaction: UnsignedTransaction,
  sentAt: number,
): (signed: readonly SignedTransaction[]) => KeptRecord[] {
  const { plan, intent } = deploy
  return ([signed]) => {
    const record = recordOf(
      {
        agent: deploy.agentId,
        predictedAddress: plan.predictedAddress,
        name: intent.name,
        symbol: intent.symbol,
        variant: intent.variant,
        decimals: intent.decimals,
        createdAt: sentAt,
        sentAt,
        kind: plan.pool ? 'launch' : 'deploy',
        ...(deploy.paymentNonce ? { paymentNonce: deploy.paymentNonce } : {}),
        ...(plan.pool
          ? {
              pool: {
                ...plan.pool.view,
                amount: plan.pool.seed.taken.toString(),
                seedTxHashes: [],
                deadline: plan.pool.deadline.toString(),
              },
            }
          : {}),
      },
      transaction,
      signed!,
    )
    return [{ record, inAgentHistory: true }]
  }
}
