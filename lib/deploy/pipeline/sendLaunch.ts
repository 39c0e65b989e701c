import type { Hex, TransactionReceipt } from 'viem'
import { errorName } from '../../platform/log.js'
import type { DeployBroadcast } from '../answers/deployAnswers.js'
import type { DeployFailure } from '../outcome.js'
import { receiptAnswerOf } from '../records/readReceipt.js'
import { broadcastSigned } from '../sender/sendCall.js'
import { updateTransactionRecord } from '../sender/signedTransactions.js'
import { announceBroadcast } from './announceBroadcast.js'
import { keysOf, type LockedDeploy } from './beforeLock.js'
import type { Holdings } from './holdings.js'
import type { SignedLaunch } from './launchSeed.js'

// Step 7 of a pooled launch: the creation, then its seed transactions in nonce order, all in this hold of the lock
// (no hand-off before the send: the next deploy's nonce comes after the seed's). With `waitSeconds`, the last seed
// goes out the synchronous way once the lock is let go: its inclusion means the whole launch is mined.

/**
 * Sends a signed pooled launch. The creation refused: nothing went out, the holdings give everything back. A seed
 * refused: it and those after it are given back, and the answer says the pool was not seeded (the pool's share then
 * sits with the signer). A creation whose broadcast is uncertain still has its seed sent after it, since the two
 * stand or fall together on their nonces.
 */
export async function sendLaunch(
  deploy: LockedDeploy,
  holdings: Holdings,
  signed: SignedLaunch,
  renumbered: boolean,
): Promise<DeployBroadcast | DeployFailure> {
  const { services, plan, intent } = deploy
  const { config, publicClient } = services
  const how = renumbered ? 'renumbered' : 'sent'
  const explorerUrlOf = (hash: Hex) => `${config.explorerUrl}/tx/${hash}`
  const created = await broadcastSigned({ services, transaction: signed, explorerUrl: explorerUrlOf(signed.txHash) })
  if (created.kind === 'refused') return created.failure
  holdings.wentOut(how)
  let seedFailure: string | null = null
  let refusedAt: number | null = null
  let seeded: TransactionReceipt | null = null
  for (const [index, seed] of signed.seeds.entries()) {
    const explorerUrl = explorerUrlOf(seed.txHash)
    // The last seed waits for its block when asked, once the lock is let go: nobody waits behind a launch's block.
    const waitSeconds = index === signed.seeds.length - 1 ? intent.waitSeconds : 0
    const [sent] = await Promise.all([
      broadcastSigned({ services, transaction: seed, explorerUrl, waitSeconds }),
      waitSeconds > 0 ? holdings.letLockGo(how) : null,
    ])
    if (sent.kind === 'refused') {
      await holdings.giveBackSeedsFrom(index)
      refusedAt = index
      seedFailure = `the node refused the pool's transaction ${index + 1} of ${signed.seeds.length} (${sent.failure.error}); the pool's tokens go back to the owner`
      services.logger.error('pool_seed_refused', { txHash: signed.txHash, seedTxHash: seed.txHash, nonce: seed.record.nonce })
      break
    }
    if (sent.kind === 'mined') seeded = sent.receipt
  }
  if (seedFailure && holdings.record?.pool) {
    // The launch's record says so at once: the tick gives the pool's share to its owner.
    const { pool } = holdings.record
    const sent = pool.seedTxHashes.slice(0, refusedAt ?? undefined)
    await updateTransactionRecord(deploy.store, keysOf(deploy).history, {
      ...holdings.record,
      pool: { ...pool, seedTxHashes: sent, failure: seedFailure },
    }).catch((error: unknown) => services.logger.error('pool_failure_not_recorded', { txHash: signed.txHash, error: errorName(error) }))
  }
  if (created.kind === 'uncertain') return created.failure
  const explorerUrl = explorerUrlOf(signed.txHash)
  const broadcast: DeployBroadcast = {
    ...announceBroadcast({ deploy, record: holdings.record, txHash: signed.txHash, explorerUrl, poolId: plan.pool!.view.poolId }),
    pool: {
      ...plan.pool!.view,
      seedTxHashes: signed.seeds.map((seed) => seed.txHash),
      ...(seedFailure ? { status: 'failed' as const, reason: seedFailure } : { status: 'sent' as const }),
    },
  }
  if (!seeded) return broadcast
  // The seed was mined in time, so the creation before it was too: the answer carries what "receipt" says now.
  const receipt = await publicClient.getTransactionReceipt({ hash: signed.txHash })
  const answer = await receiptAnswerOf({
    services,
    keys: keysOf(deploy).history,
    record: holdings.record,
    txHash: signed.txHash,
    input: plan.data,
    receipt,
  })
  return { ...broadcast, receipt: answer }
}
