// A pooled launch of the four-transaction kind whose seed failed after the token existed (the mint reverted: someone
// initialised the pool first at another price; or the node refused a seed transaction) left the pool's share with the
// signer. The tick gives it to the pool's owner, the one who would have held the position: one transfer from the
// signer, under the nonce lock. A launch today is one batch that reverts whole, so it leaves nothing with the signer:
// this stays for the records of launches sent before it, and settles a failed batch's pool with nothing to send.
import { type Address, encodeFunctionData, type Hex, parseAbi } from 'viem'
import type { KmsAccount } from '../../chain/kmsAccount.js'
import { removeFromIndex } from '../../store/recordIndex.js'
import { defineScript, type Store } from '../../store/types.js'
import type { DeployHistoryKeys } from '../keys.js'
import { readPoolReceipt } from '../records/poolReceipt.js'
import type { NonceLock } from '../sender/nonceLock.js'
import { sendCall } from '../sender/sendCall.js'
import { type TransactionRecord, updateTransactionRecord } from '../sender/signedTransactions.js'
import type { DeployServices } from '../services.js'
import { notifyAgent } from '../webhooks/outbox.js'

const erc20Abi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function transfer(address to, uint256 amount) returns (bool)',
])

/** What one look at the open pools did. */
export type SettleOpenPoolsReturnType = { seeded: number; returned: number; pending: number }

/** Parameters of {@link settleOpenPools}. */
export type SettleOpenPoolsParameters = {
  services: Pick<
    DeployServices,
    'publicClient' | 'config' | 'logger' | 'store' | 'clock' | 'webhooks' | 'background' | 'fees' | 'syncSender'
  >
  store: Store
  keys: DeployHistoryKeys
  /** The signer's pooled launches not settled yet, as the follow-up read them. */
  open: readonly TransactionRecord[]
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
      // A launch in one batch leaves nothing to give back: it reverted whole (launches before it left the share).
      const leftShare = (launch.pool?.seedTxHashes.length ?? 0) > 0
      if (pool?.status === 'failed' && !returnTxHash && leftShare) {
        lock ??= await parameters.acquireLock()
        if (!lock) return result
        const returned = await returnShare({ ...parameters, signer: await parameters.getSigner(), lock, launch })
        if (!returned) continue
        returnTxHash = returned === true ? undefined : returned
        result.returned++
      } else if (pool?.status === 'seeded') result.seeded++
      // A paid launch whose pool failed is listed first, for the paid door to credit the pool's part of its price.
      if (pool?.status === 'failed' && launch.paymentNonce) await listPaidPoolFailed(store, keys, launch, services.clock.now())
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
  parameters: Omit<SettleOpenPoolsParameters, 'signer'> & { signer: KmsAccount; lock: NonceLock; launch: TransactionRecord },
): Promise<Hex | boolean> {
  const { services, store, keys, signer, lock, launch } = parameters
  const { publicClient, logger } = services
  const pool = launch.pool!
  const token = pool.currency1 as Address
  const held = await publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [signer.address] })
  const amount = held < BigInt(pool.amount) ? held : BigInt(pool.amount)
  if (amount === 0n) return true
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [pool.owner as Address, amount] })
  const { agent, predictedAddress, name, symbol, variant, decimals } = launch
  const sent = await sendCall({
    services,
    store,
    signer,
    lock,
    call: { to: token, data },
    // The share given back is the launch's business: kept with it (`of`), in no agent's history.
    record: { kind: 'return', of: launch.txHash, agent, predictedAddress, name, symbol, variant, decimals },
    inAgentHistory: false,
  })
  if (!sent.ok) {
    logger.error('pool_share_return_refused', { txHash: launch.txHash, code: sent.code, message: sent.error })
    return false
  }
  const { txHash } = sent.record
  await updateTransactionRecord(store, keys, { ...launch, pool: { ...pool, returnTxHash: txHash } })
  logger.warn('pool_share_returned', { txHash: launch.txHash, returnTxHash: txHash, owner: pool.owner, amount: amount.toString() })
  return txHash
}

/** Lists a paid launch whose pool failed, by its transaction (its record is the launch's own: nothing new is kept). */
async function listPaidPoolFailed(store: Store, keys: DeployHistoryKeys, launch: TransactionRecord, now: number): Promise<void> {
  await store.run(listScript, [keys.paidPoolsFailed], [now, launch.txHash.toLowerCase(), PAID_POOLS_FAILED_TTL_MS])
}

/** How long a failed paid pool waits on the list for the paid door's tick (as long as the records). */
const PAID_POOLS_FAILED_TTL_MS = 30 * 86_400_000

/** KEYS[1] the list; ARGV: now (ms), the launch's transaction, the list's ttl. */
const listScript = defineScript<number>({
  name: 'paid-pools-failed add',
  lua: `redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`,
  inProcess: (data, [key], [now, member, ttl]) => {
    data.zadd(key!, Number(now), member!)
    data.pexpire(key!, Number(ttl))
    return 1
  },
})
