import type { Hex, PublicClient } from 'viem'
import { type DeployFailure, failure } from '../outcome.js'
import { isTransportFailure, nodeRefusalOf, shortMessage } from './chainErrors.js'

/**
 * How a broadcast ended: sent; uncertain (no answer, or a retry that met its own first attempt: it may have gone out,
 * so its cap slot and nonce stay taken); or refused by the node (nothing went out).
 */
export type SendDeployReturnType =
  | { kind: 'sent' }
  | { kind: 'uncertain'; failure: DeployFailure }
  | { kind: 'refused'; failure: DeployFailure }

/** Parameters of {@link sendDeploy}. */
export type SendDeployParameters = { publicClient: PublicClient; serialized: Hex; txHash: Hex; explorerUrl: string }

/** Broadcasts a signed deploy and says how it went. */
export async function sendDeploy({ publicClient, serialized, txHash, explorerUrl }: SendDeployParameters): Promise<SendDeployReturnType> {
  try {
    await publicClient.sendRawTransaction({ serializedTransaction: serialized })
    return { kind: 'sent' }
  } catch (error) {
    // No answer, or the node already has this nonce (this very transaction, most likely): the broadcast may have landed.
    if (isTransportFailure(error) || nodeRefusalOf(error) === 'nonce-used') {
      return {
        kind: 'uncertain',
        failure: failure(
          'BROADCAST_UNCERTAIN',
          'The RPC did not answer the broadcast; the transaction may or may not be on its way. Poll action "receipt" with txHash before deploying again.',
          { txHash, explorerUrl },
        ),
      }
    }
    const message = shortMessage(error)
    if (nodeRefusalOf(error) === 'insufficient-funds')
      return {
        kind: 'refused',
        failure: failure(
          'SIGNER_UNFUNDED',
          'The signer wallet lacks ETH on Base to pay gas; nothing was broadcast. The operator must fund it.',
        ),
      }
    return { kind: 'refused', failure: failure('RPC_REJECTED', `The node refused the transaction: ${message}`) }
  }
}
