// What a mined transaction of the service tells: its record learns the outcome, and its agent is told (the event its
// kind names); a token's creation is announced as a launch. The receipt of an action on a token (not a creation) is
// answered here too.
import type { Hex, TransactionReceipt } from 'viem'
import type { Store } from '../../store/types.js'
import type { ReceiptAction } from '../answers/receipts.js'
import type { DeployHistoryKeys } from '../keys.js'
import { type DeployFailure, failure } from '../outcome.js'
import { DEPLOY_HISTORY_TTL_MS, type TransactionRecord, updateTransactionRecord } from '../sender/signedTransactions.js'
import type { DeployServices } from '../services.js'
import { createsToken, minedEventType } from '../webhooks/eventTypes.js'
import { notifyAgent } from '../webhooks/outbox.js'
import { minedEventDetails } from './minedDetails.js'

/** Parameters of {@link rememberMined}. */
export type RememberMinedParameters = {
  services: Pick<DeployServices, 'store' | 'webhooks' | 'background' | 'announceConfirmed'>
  keys: DeployHistoryKeys
  record: TransactionRecord | null
  receipt: TransactionReceipt
  status: 'confirmed' | 'reverted'
}

/** Writes a mined transaction's outcome on its record (once) and tells its agent; a creation confirmed is announced. */
export async function rememberMined({ services, keys, record, receipt, status }: RememberMinedParameters): Promise<void> {
  const { store } = services
  if (!store || !record || record.status === status) return
  // A copy mined after all (its replacement lost the race) is this transaction's outcome.
  const { replacedBy: _replacedBy, ...rest } = record
  await updateTransactionRecord(store, keys, { ...rest, status }).catch(() => undefined)
  await tellMined({ services: { ...services, store }, keys, record, receipt, status })
}

/** Parameters of {@link tellMined}. */
export type TellMinedParameters = Omit<RememberMinedParameters, 'record' | 'services'> & {
  services: Omit<RememberMinedParameters['services'], 'store'> & { store: Store }
  record: TransactionRecord
}

/**
 * What a mined transaction's outcome sets off, once its record knows it (the receipt's path and the tick's alike): its
 * agent told the event its kind names, and a creation confirmed pointed at and announced as a launch.
 */
export async function tellMined({ services, keys, record, receipt, status }: TellMinedParameters): Promise<void> {
  const type = minedEventType(record.kind, status)
  const details = { ...minedEventDetails(receipt, record), ...(createsToken(record.kind) ? {} : { kind: record.kind }) }
  notifyAgent({ webhooks: services.webhooks, background: services.background, type, record, details })
  if (status !== 'confirmed' || !createsToken(record.kind)) return
  await pointLaunchAt(services.store, keys, record)
  await services.announceConfirmed(record)
}

/**
 * Points a lookup by the token's address at the creation that landed (a same-salt retry may have been recorded first,
 * and can only revert). Best effort: the pointer written with the record stands otherwise.
 */
export async function pointLaunchAt(store: Store, keys: DeployHistoryKeys, record: TransactionRecord): Promise<void> {
  const hash = (record.originalTxHash ?? record.txHash).toLowerCase()
  await store.set(keys.launchOf(record.predictedAddress), hash, DEPLOY_HISTORY_TTL_MS).catch(() => undefined)
}

/** Parameters of {@link actionReceiptOf}. */
export type ActionReceiptOfParameters = Omit<RememberMinedParameters, 'status' | 'record'> & {
  services: RememberMinedParameters['services'] & Pick<DeployServices, 'config'>
  record: TransactionRecord
  txHash: Hex
}

/** The receipt of a mined action on a token: confirmed (its effect is on chain), or `REVERTED` (nothing changed). */
export async function actionReceiptOf(parameters: ActionReceiptOfParameters): Promise<ReceiptAction | DeployFailure> {
  const { services, record, receipt, txHash } = parameters
  const explorerUrl = `${services.config.explorerUrl}/tx/${txHash}`
  const status = receipt.status === 'success' ? 'confirmed' : 'reverted'
  await rememberMined({ ...parameters, status })
  if (status === 'reverted')
    return failure('REVERTED', `The ${record.kind} transaction was mined but reverted: nothing changed on the token (gas was spent).`, {
      status: 'reverted',
      txHash,
      explorerUrl,
    })
  return {
    ok: true,
    status: 'confirmed',
    kind: record.kind,
    txHash,
    tokenAddress: record.predictedAddress,
    blockNumber: Number(receipt.blockNumber),
    gasUsed: receipt.gasUsed.toString(),
    explorerUrl,
  }
}
