// Calls simulated from their sender before anything is signed, and a token's refusal read as a code and a sentence:
// what every action on a token answers when the token would say no.
import type { Address, Hex, PublicClient } from 'viem'
import { decodeB20Revert } from '../../chain/b20.js'
import { decodeBatchRevert, delegationDesignator, encodeExecuteBatch } from '../../chain/batchAccount.js'
import type { TokenCall } from '../../chain/tokenManageCalls.js'
import { roleName } from '../../chain/tokenPowers.js'
import { type DeployFailure, type DeployResult, failure } from '../outcome.js'
import { isTransportFailure, revertDataOf, shortMessage } from '../sender/chainErrors.js'

/** Parameters of {@link simulateCalls}. */
export type SimulateCallsParameters = {
  client: PublicClient
  from: Address
  calls: readonly TokenCall[]
  blockNumber: bigint
  delegate: Address
}

/**
 * Runs the calls from `from` at `blockNumber` (eth_call): one call as it is; several as one batch of `from`'s own,
 * its code overridden with the delegation's, so each call sees the ones before. A revert is decoded.
 */
export async function simulateCalls({ client, from, calls, blockNumber, delegate }: SimulateCallsParameters): Promise<DeployResult> {
  try {
    if (calls.length === 1) await client.call({ account: from, to: calls[0]!.to, data: calls[0]!.data, blockNumber })
    else
      await client.call({
        account: from,
        to: from,
        data: encodeExecuteBatch(calls.map(({ to, data }) => ({ target: to, value: 0n, data }))),
        blockNumber,
        stateOverride: [{ address: from, code: delegationDesignator(delegate) }],
      })
    return { ok: true }
  } catch (error) {
    const data = revertDataOf(error)
    if (data === undefined && isTransportFailure(error))
      return failure('RPC_UNAVAILABLE', 'The chain RPC is unavailable; nothing was signed. Try again shortly.', { retryAfterSeconds: 5 })
    if (data === undefined) return failure('SIMULATION_REVERTED', `The token refused the call from ${from}: ${shortMessage(error)}`)
    const { index, reason } = decodeBatchRevert(data)
    return tokenRefusal(decodeB20Revert(reason), from, index)
  }
}

/** A token's refusal as a code and a sentence, nothing sent (`failedCall`: which of several calls). */
export function tokenRefusal(revert: ReturnType<typeof decodeB20Revert>, from: Address, index: number | null): DeployFailure {
  const extra = { revert, ...(index !== null ? { failedCall: index } : {}) }
  const { args } = revert
  switch (revert.name) {
    case 'AccessControlUnauthorizedAccount':
      return failure(
        'MISSING_ROLE',
        `${args.account} does not hold ${roleName(String(args.neededRole) as Hex)} on the token; nothing was sent.`,
        extra,
      )
    case 'SupplyCapExceeded':
      return failure(
        'SUPPLY_CAP_EXCEEDED',
        `The mint would pass the supply cap (${args.cap} base units; ${args.attempted} attempted); nothing was sent.`,
        extra,
      )
    case 'ContractPaused':
      return failure(
        'TOKEN_PAUSED',
        `That is paused on the token (${['transfers', 'minting', 'burning'][Number(args.feature)] ?? `feature ${args.feature}`}); nothing was sent.`,
        extra,
      )
    case 'LastAdminCannotRenounce':
      return failure(
        'LAST_ADMIN_CANNOT_RENOUNCE',
        `${from} is the token’s last admin: it can only give the role up with renounceLastAdmin; nothing was sent.`,
        extra,
      )
    case 'NotSoleAdmin':
      return failure(
        'NOT_SOLE_ADMIN',
        `${from} is not the token’s only admin, so renounceLastAdmin does not apply; nothing was sent.`,
        extra,
      )
    case 'InvalidReceiver':
      return failure('INVALID_RECEIVER', `The token refuses ${args.receiver} as a receiver; nothing was sent.`, extra)
    default:
      return failure('SIMULATION_REVERTED', `The token refused the call from ${from} with ${revert.name}; nothing was sent.`, extra)
  }
}
