import { BaseError, decodeEventLog, TransactionNotFoundError, TransactionReceiptNotFoundError, type Address, type Hex } from 'viem'
import { b20FactoryAbi, B20_FACTORY_ADDRESS, CREATE_B20_SELECTOR, type B20Variant } from '../chain/b20.js'
import { KmsSignerError } from '../chain/kmsAccount.js'
import type { DeployServices } from '../deployServices.js'
import { errorName } from '../log.js'
import type { ReceiptConfirmed, ReceiptPending } from './responses.js'
import { failure, type DeployFailure } from './outcome.js'

/** Every answer of {@link readDeployReceipt}. */
export type ReadDeployReceiptReturnType = ReceiptPending | ReceiptConfirmed | DeployFailure

/** Parameters of {@link readDeployReceipt}. */
export type ReadDeployReceiptParameters = { services: DeployServices; txHash: Hex }

const VARIANTS: Record<number, B20Variant> = { 0: 'asset', 1: 'stablecoin' }

const notFound = (error: unknown) =>
  error instanceof BaseError && Boolean(error.walk((e) => e instanceof TransactionNotFoundError || e instanceof TransactionReceiptNotFoundError))

/** The signer's address without signing: from KMS (cached), else `SIGNER_ADDRESS`. */
async function signerAddress(services: DeployServices): Promise<Address | null> {
  if (services.getSigner) return (await services.getSigner()).address
  return services.config.signerAddress
}

/**
 * Answers where a deploy stands: pending (known, not mined), confirmed (with the token address from the
 * `B20Created` log), or reverted. Refuses hashes that are not a `createB20` sent by this service's signer.
 */
export async function readDeployReceipt({ services, txHash }: ReadDeployReceiptParameters): Promise<ReadDeployReceiptReturnType> {
  const { publicClient, config } = services
  const explorerUrl = `${config.explorerUrl}/tx/${txHash}`
  let signer: Address | null
  try {
    signer = await signerAddress(services)
  } catch (error) {
    if (error instanceof KmsSignerError && /SIGNER_ADDRESS/.test(error.message)) return failure('SIGNER_MISMATCH', `Refusing to answer: ${error.message}.`)
    services.logger.error('kms_unavailable', { operation: 'GetPublicKey', error: errorName(error) })
    return failure('SIGNER_UNAVAILABLE', 'The signing service (KMS) is unavailable, so the signer cannot be checked. Try again shortly.', { retryAfterSeconds: 10 })
  }
  if (!signer) return failure('SIGNER_NOT_CONFIGURED', 'The deploy signer is not configured on this server (KMS_KEY_ID is unset).')

  try {
    const tx = await publicClient.getTransaction({ hash: txHash })
    const isDeploy =
      tx.from.toLowerCase() === signer.toLowerCase() &&
      tx.to?.toLowerCase() === B20_FACTORY_ADDRESS.toLowerCase() &&
      tx.input.toLowerCase().startsWith(CREATE_B20_SELECTOR)
    if (!isDeploy) return failure('NOT_A_DEPLOY', 'This transaction is not a createB20 deploy sent by this service’s signer.', { txHash })
    if (tx.blockNumber === null) return { ok: true, status: 'pending', txHash, explorerUrl }

    const receipt = await publicClient.getTransactionReceipt({ hash: txHash })
    if (receipt.status !== 'success') {
      return failure('REVERTED', 'The deploy transaction was mined but reverted; no token was created (gas was spent).', { status: 'reverted', txHash, explorerUrl })
    }
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== B20_FACTORY_ADDRESS.toLowerCase()) continue
      try {
        const event = decodeEventLog({ abi: b20FactoryAbi, eventName: 'B20Created', data: log.data, topics: log.topics })
        return {
          ok: true,
          status: 'confirmed',
          txHash,
          tokenAddress: event.args.token,
          blockNumber: Number(receipt.blockNumber),
          explorerUrl,
          token: { name: event.args.name, symbol: event.args.symbol, decimals: event.args.decimals, variant: VARIANTS[event.args.variant] ?? 'asset' },
        }
      } catch {
        // another factory event
      }
    }
    return failure('NOT_A_DEPLOY', 'The transaction succeeded but created no B20 token.', { txHash, explorerUrl })
  } catch (error) {
    if (notFound(error)) return failure('TX_NOT_FOUND', 'No such transaction is known to the chain (not mined and not pending). Check tx_hash.', { txHash })
    return failure('RPC_UNAVAILABLE', 'The chain RPC is unavailable. Try again shortly.', { retryAfterSeconds: 5 })
  }
}
