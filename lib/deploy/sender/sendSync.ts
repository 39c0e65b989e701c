import {
  type Hex,
  InvalidParamsRpcError,
  MethodNotFoundRpcError,
  MethodNotSupportedRpcError,
  type PublicClient,
  RpcRequestError,
  type TransactionReceipt,
  BaseError as ViemBaseError,
} from 'viem'
import type { Clock } from '../../platform/clock.js'
import { type BroadcastReturnType, broadcast } from './broadcast.js'

export { DEPLOY_WAIT_SECONDS_MAX } from './waitSeconds.js'

// A deploy that asked for waitSeconds goes out with eth_sendRawTransactionSync (EIP-7966): the node answers with the
// receipt once the transaction is included, or error 4 (data: the hash) when its wait is over. Nodes differ: Base's
// take the wait in ms as a second parameter (at most 6,000), anvil 1.7.1 refuses any second parameter (-32602), some
// have no such method (-32601). The sender learns which once per instance and keeps to it.

/** How long past the asked wait the service still waits for the node's own answer before asking whether it has it. */
const ANSWER_GRACE_MS = 1500

/** EIP-7966's error code for "not included before the timeout"; its data is the transaction's hash. */
const SYNC_TIMEOUT_CODE = 4

/** How a sync send ended: mined in time (with its receipt), sent but not mined in time, refused, or uncertain. */
export type SyncSendReturnType = { kind: 'mined'; receipt: TransactionReceipt } | BroadcastReturnType

/** Parameters of {@link SyncSender.send}. */
export type SyncSendParameters = { serialized: Hex; txHash: Hex; explorerUrl: string; waitSeconds: number }

/** How the node takes the method: with the timeout, without it, or not at all. */
export type SyncSendForm = 'with-timeout' | 'without-timeout' | 'unsupported'

/** Sends signed deploys the synchronous way, in the form the node takes (learnt once). */
export type SyncSender = {
  send(parameters: SyncSendParameters): Promise<SyncSendReturnType>
  /** The form in use (for tests and the log). */
  readonly form: SyncSendForm
}

/** Parameters of {@link createSyncSender}. */
export type CreateSyncSenderParameters = {
  /** A client whose timeout outlasts the longest wait (`DEPLOY_WAIT_SECONDS_MAX` s and more). */
  syncClient: PublicClient
  /** The usual client: the plain send on a node without the method, and the look after a wait with no answer. */
  publicClient: PublicClient
  /** The clock the wait for the node's answer runs on. */
  clock: Clock
}

/** The sender of one instance: it tries the node's form first with the timeout, as Base takes it. */
export function createSyncSender({ syncClient, publicClient, clock }: CreateSyncSenderParameters): SyncSender {
  let form: SyncSendForm = 'with-timeout'
  const plain = (parameters: SyncSendParameters) => broadcast({ publicClient, ...parameters })

  /** One call in the current form; the node's answer, or "none in time" (the grace past the asked wait is over). */
  const call = (parameters: SyncSendParameters, withTimeout: boolean) => {
    const request = syncClient.sendRawTransactionSync({
      serializedTransaction: parameters.serialized,
      ...(withTimeout ? { timeout: parameters.waitSeconds * 1000 } : {}),
    })
    const answered = new AbortController()
    const late = clock.sleep(parameters.waitSeconds * 1000 + ANSWER_GRACE_MS, { signal: answered.signal }).then(() => 'late' as const)
    // The request runs on after a late answer; its outcome no longer matters.
    request.catch(() => undefined)
    return Promise.race([request, late]).finally(() => answered.abort())
  }

  const send = async (parameters: SyncSendParameters): Promise<SyncSendReturnType> => {
    if (form === 'unsupported') return plain(parameters)
    try {
      const answered = await call(parameters, form === 'with-timeout')
      if (answered !== 'late') return { kind: 'mined', receipt: answered }
      // No answer within the wait: a refusal comes at once, so the node most likely holds it for inclusion. Ask.
      return (await isKnown(publicClient, parameters.txHash)) ? { kind: 'sent' } : plain(parameters)
    } catch (error) {
      if (isSyncTimeout(error)) return { kind: 'sent' }
      if (form === 'with-timeout' && isRpcError(error, InvalidParamsRpcError)) {
        // anvil takes one parameter only: nothing was sent, so the same transaction goes again without the timeout.
        form = 'without-timeout'
        return send(parameters)
      }
      if (isRpcError(error, MethodNotFoundRpcError) || isRpcError(error, MethodNotSupportedRpcError)) {
        form = 'unsupported'
        return plain(parameters)
      }
      // Any other refusal or failure reads as a plain send's would: the plain way tells them apart. Nothing was
      // accepted when the node refused, so the plain send meets the same refusal and says so.
      return plain(parameters)
    }
  }
  return {
    send,
    get form() {
      return form
    },
  }
}

/** True for EIP-7966's "not included in time" (error 4): the transaction was accepted and waits for a block. */
function isSyncTimeout(error: unknown): boolean {
  return error instanceof ViemBaseError && Boolean(error.walk((e) => e instanceof RpcRequestError && e.code === SYNC_TIMEOUT_CODE))
}

/** True when viem raised (or wrapped) an RPC error of `type`. */
function isRpcError(error: unknown, type: abstract new (...args: never[]) => Error): boolean {
  return error instanceof ViemBaseError && Boolean(error.walk((e) => e instanceof type))
}

/** Whether the node knows the transaction (pending or mined); false when it cannot say. */
async function isKnown(publicClient: PublicClient, hash: Hex): Promise<boolean> {
  try {
    await publicClient.getTransaction({ hash })
    return true
  } catch {
    return false
  }
}
