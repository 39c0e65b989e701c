import type { KmsAccount } from '../../chain/kmsAccount.js'
import type { Logger } from '../../platform/log.js'
import type { Store } from '../../store/types.js'
import type { DeployHistoryKeys } from '../keys.js'
import type { DeployResult } from '../outcome.js'
import { type SignedTransaction, signCalls, type UnsignedTransaction } from './sign.js'
import { recordTransaction, type TransactionRecord } from './signedTransactions.js'

// Sign, then keep before the broadcast: a transaction that may go out is always on record first, so a lost answer
// is still followed and, when stuck, replaced.

/** What the caller says of a transaction's record; the sender adds what signing decided (hash, call, nonce, price). */
export type RecordFields = Omit<
  TransactionRecord,
  'txHash' | 'to' | 'data' | 'value' | 'nonce' | 'gas' | 'maxFeePerGas' | 'maxPriorityFeePerGas' | 'status' | 'authorization'
>

/** The record of a signed transaction (pure): the caller's fields and what was signed, as sent. */
export function recordOf(
  fields: RecordFields,
  { call, nonce, price, authorizationList }: UnsignedTransaction,
  signed: SignedTransaction,
): TransactionRecord {
  const [authorization] = authorizationList ?? []
  return {
    ...fields,
    ...(authorization
      ? {
          authorization: {
            address: authorization.address,
            chainId: authorization.chainId,
            nonce: authorization.nonce,
            r: authorization.r,
            s: authorization.s,
            yParity: authorization.yParity ?? 0,
          },
        }
      : {}),
    txHash: signed.txHash,
    to: call.to,
    data: call.data,
    ...(call.value ? { value: call.value.toString() } : {}),
    nonce,
    gas: price.gas.toString(),
    maxFeePerGas: price.maxFeePerGas.toString(),
    maxPriorityFeePerGas: price.maxPriorityFeePerGas.toString(),
    status: 'broadcast',
  }
}

/** A record to write, and whether it goes in its agent's history (what the agent asked for) or only the signer's lists. */
export type KeptRecord = { record: TransactionRecord; inAgentHistory: boolean }

/** Parameters of {@link signAndKeep}. */
export type SignAndKeepParameters = {
  store: Store
  keys: DeployHistoryKeys
  signer: KmsAccount
  chainId: number
  logger: Logger
  /** The transactions, at their claimed nonces, in nonce order. */
  transactions: readonly UnsignedTransaction[]
  /** Their records, in the same order, once their hashes are known. */
  recordsOf: (signed: readonly SignedTransaction[]) => readonly KeptRecord[]
  /** Told of the records before they are written: a store failure halfway, the caller gives back what was written. */
  holding?: (records: readonly TransactionRecord[]) => void
}

/** A signed transaction and its record, written. */
export type KeptTransaction = SignedTransaction & { record: TransactionRecord }

/**
 * Signs the transactions with KMS (one failure: `SIGNER_UNAVAILABLE`, nothing written), then writes their records
 * in order, before any of them is broadcast.
 */
export async function signAndKeep(parameters: SignAndKeepParameters): Promise<DeployResult<{ kept: KeptTransaction[] }>> {
  const { store, keys, signer, chainId, logger, transactions } = parameters
  const signed = await signCalls({ signer, chainId, transactions, logger })
  if (!signed.ok) return signed
  // Each record names its sender: the account a deploy's token is created by, whatever signer the service has later.
  const records = parameters.recordsOf(signed.signed).map(({ record, inAgentHistory }) => ({
    record: { ...record, from: signer.address },
    inAgentHistory,
  }))
  parameters.holding?.(records.map(({ record }) => record))
  for (const { record, inAgentHistory } of records) await recordTransaction({ store, keys, signer: signer.address, record, inAgentHistory })
  return { ok: true, kept: signed.signed.map((one, i) => ({ ...one, record: records[i]!.record })) }
}
