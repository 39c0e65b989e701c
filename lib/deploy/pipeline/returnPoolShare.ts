// A pooled launch whose seed failed after the token existed (the mint reverted: someone initialised the pool first at
// another price; or the node refused a seed transaction) leaves the pool's share with the signer. The tick gives it to
// the pool's owner, the one who would have held the position: one transfer from the signer, under the nonce lock.
import { type Address, encodeFunctionData, type Hex, keccak256, parseAbi } from 'viem'
import type { KmsAccount } from '../../chain/kmsAccount.js'
import { errorName } from '../../platform/log.js'
import { removeFromIndex } from '../../store/recordIndex.js'
import type { Store } from '../../store/types.js'
import { type DeployHistoryKeys, deployStoreKeys } from '../keys.js'
import { type DeployRecord, forgetDeploy, recordDeploy, updateDeployRecord } from '../records/history.js'
import { readPoolReceipt } from '../records/poolReceipt.js'
import type { DeployServices } from '../services.js'
import { notifyAgent } from '../webhooks/outbox.js'
import { isTransportFailure, nodeRefusalOf, shortMessage } from './chainErrors.js'
import { currentFees } from './fees.js'
import { releaseNonce } from './nonceFence.js'
import type { NonceLock } from './nonceLock.js'
import { feesFrom, gasWithHeadroom } from './plan.js'

const erc20Abi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function transfer(address to, uint256 amount) returns (bool)',
])

/** What one look at the open pools did. */
export type SettleOpenPoolsReturnType = { seeded: number; returned: number; pending: number }

/** Parameters of {@link settleOpenPools}. */
export type SettleOpenPoolsParameters = {
  services: Pick<DeployServices, 'publicClient' | 'config' | 'logger' | 'store' | 'clock' | 'webhooks' | 'background'>
  store: Store
  keys: DeployHistoryKeys
  /** The signer's pooled launches not settled yet, as the follow-up read them. */
  open: readonly DeployRecord[]
  /** The signer's address; its key (a KMS call in a fresh instance) is asked for only when a share must go back. */
  signer: Address
  getSigner: () => Promise<KmsAccount>
  /** Takes the nonce lock only when a share must go back (null: another holds it; the next tick tries again). */
  acquireLock: () => Promise<NonceLock | null>
}

/**
 * Looks at the signer's pooled launches not yet settled: a seeded pool leaves the list; a failed one has the signer's
 * holding of the token (at most the pool's share) transferred to the pool's owner, recorded on the launch
 * (`pool.returnTxHash`) and followed like any transaction of the signer; a pending one waits.
 */
export async function settleOpenPools(parameters: SettleOpenPoolsParameters): Promise<SettleOpenPoolsReturnType> {
  const { services, store, keys, signer, open } = parameters
  const result: SettleOpenPoolsReturnType = { seeded: 0, returned: 0, pending: 0 }
  let lock: NonceLock | null | undefined
  try {
    for (const launch of open) {
      const pool = await readPoolReceipt({ services: { ...services, store }, keys, record: launch })
      if (pool?.status === 'pending') {
        result.pending++
        continue
      }
      let returnTxHash = launch.pool?.returnTxHash
      if (pool?.status === 'failed' && !returnTxHash) {
        lock ??= await parameters.acquireLock()
        if (!lock) return result
        const returned = await returnShare({ ...parameters, signer: await parameters.getSigner(), lock, launch })
        if (!returned) continue
        returnTxHash = returned === true ? undefined : returned
        result.returned++
      } else if (pool?.status === 'seeded') result.seeded++
      await removeFromIndex(store, keys.poolsOpen(signer), launch.txHash.toLowerCase())
      // Told once the pool is settled (the event's id comes from the launch, so a second look tells nothing new).
      if (pool) {
        const { webhooks, background } = services
        // A share just given back: the reason as the receipt says it now, naming the transfer.
        const told =
          returnTxHash && !launch.pool?.returnTxHash
            ? ((await readPoolReceipt({
                services: { ...services, store },
                keys,
                record: { ...launch, pool: { ...launch.pool!, returnTxHash } },
              })) ?? pool)
            : pool
        const details =
          told.status === 'seeded'
            ? { poolId: told.poolId, positionId: told.positionId ?? null, owner: told.owner }
            : { poolId: told.poolId, owner: told.owner, reason: told.reason ?? null, returnTxHash: returnTxHash ?? null }
        notifyAgent({ webhooks, background, type: pool.status === 'seeded' ? 'pool.seeded' : 'pool.failed', record: launch, details })
      }
    }
    return result
  } finally {
    await lock?.release()
  }
}

/**
 * Sends the transfer of the pool's share back to its owner: its hash once it went out, true when there was nothing
 * to return, false when it must wait for a later tick.
 */
async function returnShare(
  parameters: Omit<SettleOpenPoolsParameters, 'signer'> & { signer: KmsAccount; lock: NonceLock; launch: DeployRecord },
): Promise<Hex | boolean> {
  const { services, store, keys, signer, lock, launch } = parameters
  const { publicClient, config, logger } = services
  const pool = launch.pool!
  const token = pool.currency1 as Address
  const held = await publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [signer.address] })
  const amount = held < BigInt(pool.amount) ? held : BigInt(pool.amount)
  if (amount === 0n) return true
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [pool.owner as Address, amount] })
  const [pending, estimate, fees] = await Promise.all([
    publicClient.getTransactionCount({ address: signer.address, blockTag: 'pending' }),
    publicClient.estimateGas({ account: signer.address, to: token, data }),
    currentFees(publicClient),
  ])
  const claim = await lock.claimNonce(pending)
  if (claim.kind !== 'claimed') return false
  const nonces = deployStoreKeys({ storePrefix: config.storePrefix, chainId: config.chainId, signer: signer.address })
  const price = { gas: gasWithHeadroom(estimate), ...feesFrom(fees) }
  let serialized: Hex
  try {
    serialized = await signer.signTransaction({
      type: 'eip1559',
      chainId: config.chainId,
      to: token,
      data,
      value: 0n,
      nonce: claim.nonce,
      ...price,
    })
  } catch (error) {
    await releaseNonce(store, { counterKey: nonces.nonceNext, fencePrefix: nonces.noncePrefix, nonce: claim.nonce })
    logger.error('kms_unavailable', { operation: 'Sign', error: errorName(error) })
    return false
  }
  const txHash: Hex = keccak256(serialized)
  const now = services.clock.now()
  const { pool: _pool, paymentNonce: _paymentNonce, ...shared } = launch
  const record: DeployRecord = {
    ...shared,
    txHash,
    nonce: claim.nonce,
    createdAt: now,
    sentAt: now,
    status: 'broadcast',
    gas: price.gas.toString(),
    maxFeePerGas: price.maxFeePerGas.toString(),
    maxPriorityFeePerGas: price.maxPriorityFeePerGas.toString(),
    data,
    to: token,
    seedOf: launch.txHash,
  }
  await recordDeploy({ store, keys, signer: signer.address, record, inAgentHistory: false })
  try {
    await publicClient.sendRawTransaction({ serializedTransaction: serialized })
  } catch (error) {
    // No answer, or the nonce already taken (by this very transaction, most likely): it may be on its way, and is followed.
    if (!isTransportFailure(error) && nodeRefusalOf(error) !== 'nonce-used') {
      await forgetDeploy(store, keys, signer.address, record)
      await releaseNonce(store, { counterKey: nonces.nonceNext, fencePrefix: nonces.noncePrefix, nonce: claim.nonce })
      logger.error('pool_share_return_refused', { txHash: launch.txHash, message: shortMessage(error) })
      return false
    }
  }
  await updateDeployRecord(store, keys, { ...launch, pool: { ...pool, returnTxHash: txHash } })
  logger.warn('pool_share_returned', { txHash: launch.txHash, returnTxHash: txHash, owner: pool.owner, amount: amount.toString() })
  return txHash
}
