import { BaseError, type Hex, HttpRequestError, TimeoutError } from 'viem'
import { decodeB20Revert } from '../../chain/b20.js'
import { errorName } from '../../platform/log.js'
import { type DeployFailure, failure } from '../outcome.js'

// How an RPC error reads: a revert, no answer at all, or the node refusing.

/** Finds the revert data in a viem error chain. */
export function revertDataOf(error: unknown): Hex | undefined {
  if (!(error instanceof BaseError)) return undefined
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
  if (!(error instanceof BaseError)) return true
  return Boolean(error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError))
}

/** The short message of a viem error (or the error's name), at most 200 characters. */
export const shortMessage = (error: unknown) => (error instanceof BaseError ? error.shortMessage : errorName(error)).slice(0, 200)

/**
 * Turns an RPC error met before signing into an answer: a revert (with its data, as eth_call or eth_estimateGas
 * report it) is a simulated revert; no answer is an unavailable RPC; anything else is the node refusing.
 */
export function chainFailure(error: unknown): DeployFailure {
  const revertData = revertDataOf(error)
  if (revertData === undefined && isTransportFailure(error)) {
    return failure('RPC_UNAVAILABLE', 'The chain RPC is unavailable; nothing was signed. Try again shortly.', { retryAfterSeconds: 5 })
  }
  if (revertData === undefined && !/revert/i.test(shortMessage(error)))
    return failure('RPC_REJECTED', `The node refused the request: ${shortMessage(error)}`)
  const revert = decodeB20Revert(revertData)
  return failure('SIMULATION_REVERTED', `The deploy would revert with ${revert.name}; nothing was signed and no gas was spent.`, { revert })
}
