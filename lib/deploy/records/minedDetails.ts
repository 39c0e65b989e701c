// What a mined transaction's receipt says of a token's creation, pure: its `B20Created` log, and what the agent's
// webhook event of a mined transaction carries.
import { decodeEventLog, type TransactionReceipt } from 'viem'
import { B20_FACTORY_ADDRESS, b20FactoryAbi } from '../../chain/b20.js'
import type { TransactionRecord } from '../sender/signedTransactions.js'

/** The `B20Created` event of a mined receipt (the factory's log), or null when it created no token. */
export function decodeB20Created(receipt: TransactionReceipt) {
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== B20_FACTORY_ADDRESS.toLowerCase()) continue
    try {
      return decodeEventLog({ abi: b20FactoryAbi, eventName: 'B20Created', data: log.data, topics: log.topics }).args
    } catch {
      // another factory event
    }
  }
  return null
}

/** What a deploy's `deploy.confirmed` or `deploy.reverted` event says of its mined transaction. */
export function minedEventDetails(receipt: TransactionReceipt, record: TransactionRecord) {
  const created = receipt.status === 'success' ? decodeB20Created(receipt) : null
  return {
    ...(receipt.status === 'success' ? { tokenAddress: created?.token ?? record.predictedAddress } : {}),
    blockNumber: Number(receipt.blockNumber),
    gasUsed: receipt.gasUsed.toString(),
    minedTxHash: receipt.transactionHash,
  }
}
