// Where a pooled launch's pool stands, for its receipt: the pool's mint (the launch's own batch; for a launch before the
// batch, its last seed transaction; or the copy that replaced either) mined and the position's id read from its logs;
// or not mined yet; or reverted: a batch leaves no token and nothing with the signer, an older launch's failed seed
// left the pool's share with the signer until the tick gave it back. Either way the reason names the real cause.
import { decodeEventLog, formatUnits, type Hex, parseAbi, type TransactionReceipt } from 'viem'
import { wholeSupplyOf } from '../../chain/birthView.js'
import type { ReceiptPool } from '../answers/receipts.js'
import type { DeployHistoryKeys } from '../keys.js'
import { startValuation } from '../pool/startPrice.js'
import { readTransactionRecord, type TransactionRecord } from '../sender/signedTransactions.js'
import type { DeployServices } from '../services.js'
import { readLaunchFailure } from './launchFailure.js'

/** An ERC-721 transfer (the token id indexed): the PositionManager minting the position to its owner. */
const erc721TransferAbi = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 indexed id)'])

/** Most replacements of one seed transaction followed to the copy that was mined. */
const REPLACED_HOPS_MAX = 8

/** The position minted in a seed's receipt: the PositionManager's ERC-721 transfer from nobody; null when none. */
export function positionIdInLogs(receipt: Pick<TransactionReceipt, 'logs'>, positionManager: Hex): string | null {
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== positionManager.toLowerCase() || log.topics.length !== 4) continue
    try {
      const { args } = decodeEventLog({ abi: erc721TransferAbi, data: log.data, topics: log.topics })
      if (/^0x0{40}$/i.test(args.from)) return args.id.toString()
    } catch {
      // not the PositionManager's transfer
    }
  }
  return null
}

/** Parameters of {@link readPoolReceipt}. */
export type ReadPoolReceiptParameters = {
  services: Pick<DeployServices, 'publicClient' | 'store' | 'config'>
  keys: DeployHistoryKeys
  /** The launch's record (its transaction, its pool and, before the batch, its seed transactions; the creation's calldata: the supply the cap is over). */
  record: Pick<TransactionRecord, 'pool' | 'decimals' | 'txHash' | 'data'>
}

/** The pool part of a pooled launch's receipt, from the chain (null for a launch without a pool). */
export async function readPoolReceipt({ services, keys, record }: ReadPoolReceiptParameters): Promise<ReceiptPool | null> {
  const { pool } = record
  if (!pool) return null
  const { seedTxHashes, amount, failure, returnTxHash, deadline: _deadline, ...key } = pool
  const view = {
    ...key,
    amount: formatUnits(BigInt(amount), record.decimals),
    // Worked out from the first price kept in the record, so receipts of launches sent before these fields say them too.
    ...startValuation({ sqrtPriceX96: BigInt(key.sqrtPriceX96), decimals: record.decimals, wholeSupply: wholeSupplyOf(record.data) ?? 0n }),
  }
  // A launch in one batch: the pool stands or falls with the launch itself, and nothing is ever left to give back.
  const batched = seedTxHashes.length === 0 && !failure
  // Where the share is once the seed failed: given back to the owner, or about to be (the tick's next run).
  const where = returnTxHash
    ? `the pool’s tokens were given back to the owner (${returnTxHash})`
    : 'the pool’s tokens go back to the owner with the service’s next scheduled run (about a minute)'
  const failed = (why: string): ReceiptPool => ({
    ...view,
    status: 'failed',
    reason: `${why}; ${where}`,
    ...(returnTxHash ? { returnTxHash } : {}),
  })
  if (failure) return failed(failure.replace(/; the pool's tokens go back to the owner$/, ''))
  const last = batched ? record.txHash : seedTxHashes.at(-1)
  if (!last) return failed('the pool’s transactions were never sent')
  let mint: Hex = last
  for (let hop = 0; hop <= REPLACED_HOPS_MAX; hop++) {
    const receipt = await services.publicClient.getTransactionReceipt({ hash: mint }).catch(() => null)
    if (receipt?.status === 'success') {
      const positionId = positionIdInLogs(receipt, services.config.uniswapV4.positionManager)
      return { ...view, status: 'seeded', ...(positionId ? { positionId } : {}) }
    }
    if (receipt) {
      const cause = await readLaunchFailure({ services, receipt, poolId: pool.poolId }).catch(() => null)
      const why = cause?.why ?? 'the reason could not be read from the chain'
      if (batched)
        return {
          ...view,
          status: 'failed',
          reason: `the launch reverted whole: ${why}; no token was created and nothing stays with the signer`,
          ...(cause ? { cause: cause.cause } : {}),
        }
      return { ...failed(`the pool’s creation and mint reverted: ${why}`), ...(cause ? { cause: cause.cause } : {}) }
    }
    // Not mined: it may have been replaced with higher fees, and the copy mined instead.
    const copy: TransactionRecord | null = services.store ? await readTransactionRecord(services.store, keys, mint).catch(() => null) : null
    if (!copy?.replacedBy) break
    mint = copy.replacedBy
  }
  return { ...view, status: 'pending' }
}
