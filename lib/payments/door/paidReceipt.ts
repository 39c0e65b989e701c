import { getAddress, type Hex } from 'viem'
import { isPaidAgent, PAID_AGENT_PREFIX } from '../../deploy/agents/paidAgent.js'
import { deployHistoryKeys } from '../../deploy/keys.js'
import { failure, storeFailureOf } from '../../deploy/outcome.js'
import { type ReadDeployReceiptReturnType, readDeployReceipt } from '../../deploy/records/readReceipt.js'
import { readTransactionRecord, type TransactionRecord } from '../../deploy/sender/signedTransactions.js'
import type { DeployServices } from '../../deploy/services.js'
import { errorName } from '../../platform/log.js'
import type { PaymentStanding } from '../discovery/paidDoorSchemas.js'
import { paymentKeys } from '../keys.js'
import { type PaymentRecord, paymentIdOf, readPaymentRecord } from '../ledger/paymentRecord.js'

// `{ "action": "receipt", "tx_hash" }` on the paid door: free, and answered as /api/b20-skill's receipt, for the
// deploys paid through this door (their records name a paid agent, `x402:<payer>`), with the payment that bought it
// beside it: its record names the payment's nonce (written before the broadcast), and the ledger says where it stands.
// Anyone may ask: a paid deploy's receipt, and its settlement, are what the chain shows anyway.

/** Parameters of {@link readPaidReceipt}. */
export type ReadPaidReceiptParameters = { services: DeployServices; txHash: Hex; waitSeconds: number }

/** A paid deploy's receipt: the deploy's, with its payment when the ledger holds it. */
export type ReadPaidReceiptReturnType = ReadDeployReceiptReturnType | (ReadDeployReceiptReturnType & { payment: PaymentStanding })

/** Where a payment stands, as a receipt shows it. */
export function paymentStandingOf(record: PaymentRecord): PaymentStanding {
  return {
    id: paymentIdOf(record.payer, record.nonce),
    state: record.state,
    payer: getAddress(record.payer),
    amount: record.amount,
    asset: getAddress(record.asset),
    transaction: record.transaction,
  }
}

/** The payer of a paid deploy's record (its agent is `x402:<payer>`). */
const payerOf = (record: TransactionRecord) => record.agent.slice(PAID_AGENT_PREFIX.length)

/** The receipt of a deploy paid through the door; NOT_A_DEPLOY for any other hash. */
export async function readPaidReceipt({ services, txHash, waitSeconds }: ReadPaidReceiptParameters): Promise<ReadPaidReceiptReturnType> {
  const { store, config, logger } = services
  const notPaid = failure(
    'NOT_A_DEPLOY',
    'This transaction is not a deploy paid through this door (use the txHash a paid deploy answered).',
    {
      txHash,
    },
  )
  if (!store) return notPaid
  let record: TransactionRecord | null
  try {
    record = await readTransactionRecord(store, deployHistoryKeys({ storePrefix: config.storePrefix, chainId: config.chainId }), txHash)
    if (!record || !isPaidAgent(record.agent)) return notPaid
  } catch (error) {
    return storeFailureOf(error, {
      logger,
      operation: 'x402-receipt',
      message: 'The deploy records (Redis) cannot be read; try again shortly.',
    })
  }
  const receipt = await readDeployReceipt({ services, txHash, waitSeconds })
  if (!receipt.ok || !record.paymentNonce) return receipt
  // One read of the ledger, after the receipt: the payment's state is as fresh as the deploy's. A store that cannot
  // say leaves the payment out rather than guess it.
  const keys = paymentKeys({ storePrefix: config.storePrefix, chainId: config.chainId })
  const payment = await readPaymentRecord(store, { keys, payer: payerOf(record), nonce: record.paymentNonce }).catch((error: unknown) => {
    logger.error('store_unavailable', { operation: 'x402-receipt-payment', error: errorName(error), effect: 'payment left out' })
    return null
  })
  return payment ? { ...receipt, payment: paymentStandingOf(payment) } : receipt
}
