import { type Address, type Hex, keccak256, type SignedAuthorization } from 'viem'
import type { KmsAccount } from '../../chain/kmsAccount.js'
import { errorName, type Logger } from '../../platform/log.js'
import { type DeployFailure, type DeployResult, failure } from '../outcome.js'
import type { TransactionPrice } from './fees.js'

// The one place a transaction is signed: KMS signs (the private key never leaves it), and a KMS failure reads the
// same wherever it happens.

/** A call the signer makes: where, with what calldata and value (wei, default 0). */
export type Call = { to: Address; data: Hex; value?: bigint }

/**
 * A call at its nonce and price: one transaction, ready to sign. With `authorizationList` it is an EIP-7702 (type 4)
 * transaction carrying them (the signer's own delegation, signed by {@link signDelegation}).
 */
export type UnsignedTransaction = {
  call: Call
  nonce: number
  price: TransactionPrice
  authorizationList?: readonly SignedAuthorization[]
}

/** A signed transaction: the raw transaction and its hash (known before it is sent). */
export type SignedTransaction = { serialized: Hex; txHash: Hex }

/**
 * The signer could not be reached or refused (KMS), before anything was sent: the one answer of that failure, logged
 * with the KMS operation that failed.
 */
export function signerUnavailable(logger: Logger, operation: 'Sign' | 'GetPublicKey', error: unknown): DeployFailure {
  logger.error('kms_unavailable', { operation, error: errorName(error) })
  return failure('SIGNER_UNAVAILABLE', 'The signing service (KMS) is unavailable; nothing was signed or sent. Try again shortly.', {
    retryAfterSeconds: 10,
  })
}

/** Parameters of {@link signCalls}. */
export type SignCallsParameters = {
  signer: KmsAccount
  chainId: number
  transactions: readonly UnsignedTransaction[]
  logger: Logger
}

/** Signs transactions with KMS, all at once; if any signature fails, none is used: `SIGNER_UNAVAILABLE`. */
export async function signCalls({
  signer,
  chainId,
  transactions,
  logger,
}: SignCallsParameters): Promise<DeployResult<{ signed: SignedTransaction[] }>> {
  try {
    const signed = await Promise.all(
      transactions.map(async ({ call, nonce, price, authorizationList }) => {
        const serialized = await signer.signTransaction({
          ...(authorizationList?.length ? { type: 'eip7702', authorizationList } : { type: 'eip1559' }),
          chainId,
          to: call.to,
          data: call.data,
          value: call.value ?? 0n,
          nonce,
          gas: price.gas,
          maxFeePerGas: price.maxFeePerGas,
          maxPriorityFeePerGas: price.maxPriorityFeePerGas,
        })
        return { serialized, txHash: keccak256(serialized) }
      }),
    )
    return { ok: true, signed }
  } catch (error) {
    return signerUnavailable(logger, 'Sign', error)
  }
}

/** Signs one transaction with KMS (see {@link signCalls}). */
export async function signCall(
  parameters: Omit<SignCallsParameters, 'transactions'> & { transaction: UnsignedTransaction },
): Promise<({ ok: true } & SignedTransaction) | DeployFailure> {
  const { transaction, ...rest } = parameters
  const signed = await signCalls({ ...rest, transactions: [transaction] })
  return signed.ok ? { ok: true, ...signed.signed[0]! } : signed
}

/** Parameters of {@link signDelegation}. */
export type SignDelegationParameters = {
  signer: KmsAccount
  chainId: number
  /** The contract the signer's account delegates to (the batch executor). */
  delegate: Address
  /**
   * The signer's nonce the authorization takes: the transaction carrying it is the signer's own, and its nonce rises
   * before authorizations are processed, so this is that transaction's nonce + 1.
   */
  nonce: number
  logger: Logger
}

/**
 * Signs the signer's EIP-7702 authorization with KMS (low-s, as every signature of the KMS account): the delegation of
 * its account to `delegate` on this chain, at `nonce`; a KMS failure is `SIGNER_UNAVAILABLE`.
 */
export async function signDelegation({
  signer,
  chainId,
  delegate,
  nonce,
  logger,
}: SignDelegationParameters): Promise<DeployResult<{ authorization: SignedAuthorization }>> {
  try {
    const authorization = await signer.signAuthorization!({ chainId, contractAddress: delegate, nonce })
    return { ok: true, authorization: authorization as SignedAuthorization }
  } catch (error) {
    return signerUnavailable(logger, 'Sign', error)
  }
}
