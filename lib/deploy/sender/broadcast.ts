import type { Hex, PublicClient } from 'viem'
import { type DeployFailure, failure } from '../outcome.js'
import { isTransportFailure, nodeRefusalOf, shortMessage } from './chainErrors.js'

/**
 * How a broadcast ended: sent; uncertain (no answer, or a retry that met its own first attempt: it may have gone out,
 * so its cap slot and nonce stay taken); or refused by the node (nothing went out).
 */
export type BroadcastReturnType =
  | { kind: 'sent' }
  /** `nonceUsed`: the node has a transaction at this nonce already (this one, a copy of it, or one mined before). */
  | { kind: 'uncertain'; failure: DeployFailure; nonceUsed: boolean }
  /** `message`: the node's own words. */
  | { kind: 'refused'; failure: DeployFailure; message: string }

/** Parameters of {@link broadcast}. */
export type BroadcastParameters = { publicClient: PublicClient; serialized: Hex; txHash: Hex; explorerUrl?: string }

/** Broadcasts a signed transaction and says how it went. */
export async function broadcast({ publicClient, serialized, txHash, explorerUrl }: BroadcastParameters): Promise<BroadcastReturnType> {
  try {
    await publicClient.sendRawTransaction({ serializedTransaction: serialized })
    return { kind: 'sent' }
  } catch (error) {
    // No answer, or the node already has this nonce (this very transaction, most likely): the broadcast may have landed.
    const nonceUsed = nodeRefusalOf(error) === 'nonce-used'
    if (isTransportFailure(error) || nonceUsed) {
      return {
        kind: 'uncertain',
        nonceUsed,
        failure: failure(
          'BROADCAST_UNCERTAIN',
          'The RPC did not answer the broadcast; the transaction may or may not be on its way. Poll action "receipt" with txHash before deploying again.',
          { txHash, ...(explorerUrl ? { explorerUrl } : {}) },
        ),
      }
    }
    const message = shortMessage(error)
    if (nodeRefusalOf(error) === 'insufficient-funds')
      return {
        kind: 'refused',
        message,
        failure: failure(
          'SIGNER_UNFUNDED',
          'The signer wallet lacks ETH on Base to pay gas; nothing was broadcast. The operator must fund it.',
        ),
      }
    return { kind: 'refused', message, failure: failure('RPC_REJECTED', `The node refused the transaction: ${message}`) }
  }
}
