import {
  type Address,
  type Hex,
  TransactionNotFoundError,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
  BaseError as ViemBaseError,
} from 'viem'
import { B20_FACTORY_ADDRESS, CREATE_B20_SELECTOR } from '../../chain/b20.js'
import { VARIANT_BY_ID } from '../../chain/b20Variants.js'
import { batchCallTo } from '../../chain/batchAccount.js'
import { birthViewOf, mintsInLogs } from '../../chain/birthView.js'
import { KmsSignerError } from '../../chain/kmsAccount.js'
import { errorName } from '../../platform/log.js'
import type { Store } from '../../store/types.js'
import type { TokenMarket } from '../answers/answerFields.js'
import type { ReceiptAction, ReceiptConfirmed, ReceiptPending, ReceiptReplaced } from '../answers/receipts.js'
import { type DeployHistoryKeys, deployHistoryKeys } from '../keys.js'
import { type DeployFailure, failure } from '../outcome.js'
import { signerUnavailable } from '../sender/sign.js'
import { readTransactionRecord, type TransactionRecord } from '../sender/signedTransactions.js'
import type { DeployServices } from '../services.js'
import { isTokenAction } from '../webhooks/eventTypes.js'
import { actionReceiptOf, rememberMined } from './actionReceipt.js'
import { readLaunchFailure } from './launchFailure.js'
import { decodeB20Created } from './minedDetails.js'
import { readPoolReceipt } from './poolReceipt.js'
import { readTokenMarkets } from './tokenMarkets.js'

/** Every answer of {@link readDeployReceipt}. */
export type ReadDeployReceiptReturnType = ReceiptPending | ReceiptConfirmed | ReceiptReplaced | ReceiptAction | DeployFailure

/** Parameters of {@link readDeployReceipt}. */
export type ReadDeployReceiptParameters = {
  services: DeployServices
  txHash: Hex
  /** Seconds to wait for the transaction to be mined before answering `pending` (default 0; the action bounds it). */
  waitSeconds?: number
}

/** Most replacements followed from one hash. */
const REPLACEMENT_HOPS_MAX = 5

const notFound = (error: unknown) =>
  error instanceof ViemBaseError &&
  Boolean(error.walk((e) => e instanceof TransactionNotFoundError || e instanceof TransactionReceiptNotFoundError))

/** The signer's address without signing: from KMS (cached), else `SIGNER_ADDRESS`. */
async function signerAddress(services: Pick<DeployServices, 'getSigner' | 'config'>): Promise<Address | null> {
  if (services.getSigner) return (await services.getSigner()).address
  return services.config.signerAddress
}

/** A receipt answer that may still change: the transaction (or its replacement) is not mined yet. */
const isPending = (answer: ReadDeployReceiptReturnType) =>
  answer.ok && (answer.status === 'pending' || (answer.status === 'replaced' && answer.replacementStatus === 'pending'))

/**
 * Answers where a deploy stands: pending (known, not mined, and for how long), confirmed (with the token address from
 * the `B20Created` log), reverted, or replaced (a higher-fee copy took its nonce; the replacement's outcome is
 * followed). With `waitSeconds`, answers as soon as it is mined or when the time is up, checking once per block
 * interval (`receiptPollMs`, 2 s on Base). Refuses hashes that are not a `createB20` sent by this service's signer.
 */
export async function readDeployReceipt({
  services,
  txHash,
  waitSeconds = 0,
}: ReadDeployReceiptParameters): Promise<ReadDeployReceiptReturnType> {
  let signer: Address | null
  try {
    signer = await signerAddress(services)
  } catch (error) {
    if (error instanceof KmsSignerError && error.reason === 'address-mismatch')
      return failure('SIGNER_MISMATCH', `Refusing to answer: ${error.shortMessage}.`)
    return signerUnavailable(services.logger, 'GetPublicKey', error)
  }
  if (!signer) return failure('SIGNER_NOT_CONFIGURED', 'The deploy signer is not configured on this server (KMS_KEY_ID is unset).')

  const keys = deployHistoryKeys({ storePrefix: services.config.storePrefix, chainId: services.config.chainId })
  // Waits run on the services' clock, as the records' stamps do: a test moves both at once.
  const { clock } = services
  const deadline = clock.now() + Math.max(waitSeconds, 0) * 1000
  let answer = await lookUp(services, keys, signer, txHash)
  while (isPending(answer) && clock.now() < deadline) {
    // One chain request per block interval: the receipt of the transaction being waited for.
    await clock.sleep(Math.min(services.receiptPollMs, deadline - clock.now()))
    const watched = answer.ok && answer.status === 'replaced' ? answer.replacedBy : txHash
    if ((await isMined(services, watched)) || (await replacedSince(services.store, keys, watched)) || clock.now() >= deadline) {
      answer = await lookUp(services, keys, signer, txHash)
    }
  }
  return answer
}

async function isMined(services: Pick<DeployServices, 'publicClient'>, txHash: Hex): Promise<boolean> {
  try {
    await services.publicClient.getTransactionReceipt({ hash: txHash })
    return true
  } catch {
    return false
  }
}

async function replacedSince(store: Store | null, keys: DeployHistoryKeys, txHash: Hex): Promise<boolean> {
  if (!store) return false
  return Boolean((await readTransactionRecord(store, keys, txHash).catch(() => null))?.replacedBy)
}

/** One full look at a hash: the chain first (a replaced transaction may still have been mined), then the records. */
async function lookUp(
  services: DeployServices,
  keys: DeployHistoryKeys,
  signer: Address,
  txHash: Hex,
  hops = 0,
): Promise<ReadDeployReceiptReturnType> {
  const { publicClient, config, store, logger } = services
  const explorerUrl = `${config.explorerUrl}/tx/${txHash}`
  const record = store ? await readTransactionRecord(store, keys, txHash).catch(() => null) : null
  try {
    let tx: Awaited<ReturnType<typeof publicClient.getTransaction>> | null = null
    try {
      tx = await publicClient.getTransaction({ hash: txHash })
    } catch (error) {
      if (!notFound(error)) throw error
    }
    if (tx) {
      // A createB20 to the factory, or a pooled launch: the signer's batch to itself with a createB20 in it.
      const fromSigner = tx.from.toLowerCase() === signer.toLowerCase()
      const isCreation =
        tx.to?.toLowerCase() === B20_FACTORY_ADDRESS.toLowerCase() && tx.input.toLowerCase().startsWith(CREATE_B20_SELECTOR)
      const isLaunch =
        tx.to?.toLowerCase() === signer.toLowerCase() &&
        !!batchCallTo(tx.input, B20_FACTORY_ADDRESS)?.data.toLowerCase().startsWith(CREATE_B20_SELECTOR)
      const isDeploy = fromSigner && (isCreation || isLaunch)
      // An action on a token the service sent for an agent (its record names its kind): its own receipt.
      const action = fromSigner && record && isTokenAction(record) ? record : null
      if (!isDeploy && !action)
        return failure('NOT_A_DEPLOY', 'This transaction is not a createB20 deploy sent by this service’s signer.', { txHash })
      if (tx.blockNumber !== null && action) {
        const receipt = await publicClient.getTransactionReceipt({ hash: txHash })
        return await actionReceiptOf({ services, keys, record: action, receipt, txHash })
      }
      if (tx.blockNumber !== null) return await minedAnswer(services, keys, record, txHash, tx.input)
    }
    if (record?.replacedBy && hops < REPLACEMENT_HOPS_MAX) {
      const next = await lookUp(services, keys, signer, record.replacedBy, hops + 1)
      return replacedAnswer(txHash, explorerUrl, next)
    }
    if (tx) {
      const pendingSeconds = record ? Math.max(0, Math.round((services.clock.now() - record.sentAt) / 1000)) : undefined
      return { ok: true, status: 'pending', txHash, explorerUrl, ...(pendingSeconds !== undefined ? { pendingSeconds } : {}) }
    }
    return failure('TX_NOT_FOUND', 'No such transaction is known to the chain (not mined and not pending). Check tx_hash.', { txHash })
  } catch (error) {
    logger.warn('rpc_unavailable', { operation: 'receipt', error: errorName(error) })
    return failure('RPC_UNAVAILABLE', 'The chain RPC is unavailable. Try again shortly.', { retryAfterSeconds: 5 })
  }
}

/** The answer for the original hash of a replaced deploy, from what its replacement's look found. */
function replacedAnswer(txHash: Hex, explorerUrl: string, next: ReadDeployReceiptReturnType): ReadDeployReceiptReturnType {
  if (!next.ok) {
    if (next.code === 'REVERTED' && next.txHash)
      return { ok: true, status: 'replaced', txHash, explorerUrl, replacedBy: next.txHash as Hex, replacementStatus: 'reverted' }
    return next
  }
  // A replacement of a replacement: the last one is where the deploy stands.
  if (next.status === 'replaced') return { ...next, txHash, explorerUrl }
  if (next.status === 'pending')
    return { ok: true, status: 'replaced', txHash, explorerUrl, replacedBy: next.txHash as Hex, replacementStatus: 'pending' }
  // An action on a token: the copy that was mined answers for it, under its own hash.
  if ('kind' in next) return next
  return {
    ok: true,
    status: 'replaced',
    txHash,
    explorerUrl,
    replacedBy: next.txHash,
    replacementStatus: 'confirmed',
    tokenAddress: next.tokenAddress,
    blockNumber: next.blockNumber,
    token: next.token,
    minted: next.minted,
    market: next.market,
  }
}

/** A deployed token's market as the tick last saw it; null when none is known or the store cannot say. */
async function marketOf(services: Pick<DeployServices, 'store' | 'config'>, token: Address): Promise<TokenMarket | null> {
  if (!services.store) return null
  const [market] = await readTokenMarkets(services.store, services.config.storePrefix, services.config.chainId, [token]).catch(() => [null])
  return market ?? null
}

/** A mined transaction: fetches its receipt, then answers as {@link receiptAnswerOf}. */
async function minedAnswer(
  services: DeployServices,
  keys: DeployHistoryKeys,
  record: TransactionRecord | null,
  txHash: Hex,
  input: Hex,
): Promise<ReadDeployReceiptReturnType> {
  const receipt = await services.publicClient.getTransactionReceipt({ hash: txHash })
  return receiptAnswerOf({ services, keys, record, txHash, input, receipt })
}

/** Parameters of {@link receiptAnswerOf}. */
export type ReceiptAnswerOfParameters = {
  services: DeployServices
  keys: DeployHistoryKeys
  /** The deploy's record, when the service kept one: it learns the outcome. */
  record: TransactionRecord | null
  txHash: Hex
  /** The transaction's calldata (what the token got at birth is read back from it). */
  input: Hex
  receipt: TransactionReceipt
}

/**
 * The `receipt` answer of a mined transaction, from its receipt in hand: confirmed with the token from the
 * `B20Created` log, its birth from the calldata and its mints from the receipt's `Transfer` logs (no RPC call), or
 * reverted. The record learns it too, and the agent's webhook is told. A deploy that waited for its block
 * (`waitSeconds`) answers with this as its `receipt`.
 */
export async function receiptAnswerOf(parameters: ReceiptAnswerOfParameters): Promise<ReceiptConfirmed | DeployFailure> {
  const { services, keys, record, txHash, input, receipt } = parameters
  const { config } = services
  const explorerUrl = `${config.explorerUrl}/tx/${txHash}`
  const remember = (status: 'confirmed' | 'reverted') => rememberMined({ services, keys, record, receipt, status })
  if (receipt.status !== 'success') {
    await remember('reverted')
    // A pooled launch reverts whole: its answer says why, in the words of the real cause.
    const launch = record?.pool ? await readLaunchFailure({ services, receipt, poolId: record.pool.poolId }).catch(() => null) : null
    const why = launch
      ? `: ${launch.why}; no token was created, no pool either, and nothing stays with the signer`
      : '; no token was created'
    return failure('REVERTED', `The ${record?.pool ? 'launch' : 'deploy'} transaction was mined but reverted${why} (gas was spent).`, {
      status: 'reverted',
      txHash,
      explorerUrl,
      ...(launch ? { cause: launch.cause, failedCall: launch.failedCall, ...(launch.revert ? { revert: launch.revert } : {}) } : {}),
    })
  }
  const created = decodeB20Created(receipt)
  if (created) {
    await remember('confirmed')
    return {
      ok: true,
      status: 'confirmed',
      txHash,
      tokenAddress: created.token,
      blockNumber: Number(receipt.blockNumber),
      explorerUrl,
      token: {
        name: created.name,
        symbol: created.symbol,
        decimals: created.decimals,
        variant: VARIANT_BY_ID[created.variant] ?? 'asset',
        ...birthViewOf(input, created.decimals),
      },
      minted: mintsInLogs(receipt.logs, created.token, created.decimals),
      market: await marketOf(services, created.token),
      ...(record?.pool ? { pool: (await readPoolReceipt({ services, keys, record }))! } : {}),
    }
  }
  return failure('NOT_A_DEPLOY', 'The transaction succeeded but created no B20 token.', { txHash, explorerUrl })
}
