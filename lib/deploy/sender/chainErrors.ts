import {
  ExecutionRevertedError,
  type Hex,
  HttpRequestError,
  InsufficientFundsError,
  NonceTooLowError,
  TimeoutError,
  BaseError as ViemBaseError,
} from 'viem'
import { getNodeError } from 'viem/utils'
import { decodeB20Revert } from '../../chain/b20.js'
import { errorName } from '../../platform/log.js'
import { type DeployFailure, failure } from '../outcome.js'

// How an RPC error reads: a revert, no answer at all, or the node refusing.

/** Finds the revert data in a viem error chain. */
export function revertDataOf(error: unknown): Hex | undefined {
  if (!(error instanceof ViemBaseError)) return undefined
  let data: Hex | undefined
  error.walk((e) => {
    const candidate = (e as { data?: unknown }).data
    const hex = typeof candidate === 'string' ? candidate : (candidate as { data?: unknown } | undefined)?.data
    if (typeof hex === 'string' && /^0x[0-9a-fA-F]*$/.test(hex)) data = hex as Hex
    return data !== undefined
  })
  return data
}

/** True when a viem error means "no answer" (network, timeout), as opposed to the node refusing. */
export function isTransportFailure(error: unknown): boolean {
  if (!(error instanceof ViemBaseError)) return true
  return Boolean(error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError))
}

/** What the node said, as viem's typed node errors name it: the nonce is used, no funds, a revert, or something else. */
export type NodeRefusal = 'nonce-used' | 'insufficient-funds' | 'reverted' | 'other'

/**
 * Names a node's refusal by viem's typed node errors (`NonceTooLowError`, also "already known";
 * `InsufficientFundsError`; `ExecutionRevertedError`), found in the error's chain or mapped by viem's `getNodeError`.
 */
export function nodeRefusalOf(error: unknown): NodeRefusal {
  if (!(error instanceof ViemBaseError)) return 'other'
  const typed = (e: unknown) => e instanceof NonceTooLowError || e instanceof InsufficientFundsError || e instanceof ExecutionRevertedError
  const found = error.walk(typed) ?? getNodeError(error, {})
  if (found instanceof NonceTooLowError) return 'nonce-used'
  if (found instanceof InsufficientFundsError) return 'insufficient-funds'
  if (found instanceof ExecutionRevertedError) return 'reverted'
  return 'other'
}

/** The short message of a viem error (or the error's name), at most 200 characters. */
export const shortMessage = (error: unknown) => (error instanceof ViemBaseError ? error.shortMessage : errorName(error)).slice(0, 200)

/**
 * Turns an RPC error met before signing into an answer: a revert (with its data, as eth_call or eth_estimateGas
 * report it) is a simulated revert; no answer is an unavailable RPC; anything else is the node refusing.
 */
export function chainFailure(error: unknown): DeployFailure {
  const revertData = revertDataOf(error)
  if (revertData === undefined && isTransportFailure(error)) {
    return failure('RPC_UNAVAILABLE', 'The chain RPC is unavailable; nothing was signed. Try again shortly.', { retryAfterSeconds: 5 })
  }
  if (revertData === undefined && nodeRefusalOf(error) !== 'reverted')
    return failure('RPC_REJECTED', `The node refused the request: ${shortMessage(error)}`)
  const revert = decodeB20Revert(revertData)
  return failure('SIMULATION_REVERTED', `The deploy would revert with ${revert.name}; nothing was signed and no gas was spent.`, { revert })
}
