import type { Address } from 'viem'
import { type DeployFailure, failure } from '../outcome.js'
import { sendCallUnderLock } from '../sender/sendCall.js'
import type { Call } from '../sender/sign.js'
import type { TransactionKind } from '../sender/signedTransactions.js'
import type { DeployServices } from '../services.js'
import { readySigner } from './prepare.js'

// What an action that sends a transaction calls: its call goes through the one sender (simulated, the nonce under the
// lock, KMS, the record before the broadcast, the broadcast), recorded in the calling agent's history under the
// action's own kind, so a new action of this sort is its module and a line in the registry.

/** The token a transaction acts on, as the agent's history lists it. */
export type ActedOnToken = { address: Address; name: string; symbol: string; variant: 'asset' | 'stablecoin'; decimals: number }

/** Parameters of {@link sendActionTransaction}. */
export type SendActionTransactionParameters = {
  services: DeployServices
  /** The calling agent: its key's digest, under which the transaction is recorded. */
  agent: { digest: string }
  /** The record's kind: the action's own word (lower-case words joined by `_`). */
  kind: TransactionKind
  call: Call
  /** The signer's EIP-7702 delegate, when `call` is a batch to the signer itself (see sendCall.ts). */
  delegate?: Address
  token: ActedOnToken
  /** Above 0: wait up to this long for the transaction's block. */
  waitSeconds?: number
}

/** The answer of an action whose transaction went out: its hash, where to see it, and whether it was mined in the wait. */
export type SentTransaction = {
  ok: true
  status: 'broadcast'
  kind: TransactionKind
  txHash: `0x${string}`
  explorerUrl: string
  mined: boolean
}

/**
 * Sends one call for the calling agent through the one sender and answers what became of it: broadcast (mined or
 * not), or the refusal, decoded, with nothing signed where nothing was (a revert found by the simulation, a busy
 * lock, KMS down) and `BROADCAST_UNCERTAIN` with the hash where the node did not say.
 */
export async function sendActionTransaction(parameters: SendActionTransactionParameters): Promise<SentTransaction | DeployFailure> {
  const { services, agent, kind, call, token, waitSeconds } = parameters
  const { store, nonceLocks } = services
  if (!services.getSigner)
    return failure('SIGNER_NOT_CONFIGURED', 'The signer is not configured on this server (KMS_KEY_ID is unset); nothing can be signed.')
  if (!store || !nonceLocks)
    return failure('DEPLOYS_DISABLED', 'Transactions need the shared store (Upstash Redis) on this deployment, and none is configured.')
  const ready = await readySigner(services)
  if (!ready.ok) return ready
  const sent = await sendCallUnderLock({
    services: { ...services, nonceLocks },
    store,
    signer: ready.signer,
    call,
    ...(parameters.delegate ? { delegate: parameters.delegate } : {}),
    record: {
      kind,
      agent: agent.digest,
      predictedAddress: token.address,
      name: token.name,
      symbol: token.symbol,
      variant: token.variant,
      decimals: token.decimals,
    },
    inAgentHistory: true,
    ...(waitSeconds ? { waitSeconds } : {}),
  })
  if (!sent.ok) return sent
  if (sent.outcome === 'uncertain' && sent.failure) return sent.failure
  const { txHash } = sent.record
  const explorerUrl = `${services.config.explorerUrl}/tx/${txHash}`
  // Mined within the wait, but reverted: gas was spent and nothing happened.
  if (sent.outcome === 'mined' && sent.receipt?.status === 'reverted')
    return failure('REVERTED', `The ${kind} transaction was mined but reverted (gas was spent); nothing changed.`, {
      status: 'reverted',
      txHash,
      explorerUrl,
    })
  return {
    ok: true,
    status: 'broadcast',
    kind,
    txHash,
    explorerUrl,
    mined: sent.outcome === 'mined',
  }
}
