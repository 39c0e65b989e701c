// The signer's account as an EIP-7702 account delegated to eth-infinitism's Simple7702Account (EntryPoint v0.8 build,
// npm @account-abstraction/contracts 0.8.0): a call from the account to itself runs the delegate's `executeBatch`, so
// several calls go out as one transaction that stands or falls whole. Pure: encoding, decoding, the designator.
import {
  type Address,
  concat,
  decodeErrorResult,
  decodeFunctionData,
  encodeFunctionData,
  getAddress,
  type Hex,
  isAddressEqual,
  parseAbi,
} from 'viem'

export { SIMPLE_7702_ACCOUNT_ADDRESS, SIMPLE_7702_ACCOUNT_CODE_HASH } from './delegate.js'

/** The parts of Simple7702Account (BaseAccount) a batch uses; the error's second field is `bytes error` in Solidity. */
export const batchAccountAbi = parseAbi([
  'function executeBatch((address target, uint256 value, bytes data)[] calls)',
  'error ExecuteError(uint256 index, bytes reason)',
])

/** One call of a batch. */
export type BatchCall = { target: Address; value: bigint; data: Hex }

/** Gas an authorization adds to its transaction (EIP-7702's PER_EMPTY_ACCOUNT_COST, charged before any refund). */
export const AUTHORIZATION_GAS = 25_000n

/** Selector of `executeBatch((address,uint256,bytes)[])`. */
export const EXECUTE_BATCH_SELECTOR: Hex = '0x34fcd5be'

/** The code an EIP-7702 delegation leaves on the account: `0xef0100 || delegate`. */
export function delegationDesignator(delegate: Address): Hex {
  return concat(['0xef0100', delegate]).toLowerCase() as Hex
}

/** Whether an account's code is the designator of a delegation to `delegate`. */
export function isDelegatedTo(code: Hex | undefined, delegate: Address): boolean {
  return (code ?? '0x').toLowerCase() === delegationDesignator(delegate)
}

/** `executeBatch(calls)` calldata, sent by the account to itself. */
export function encodeExecuteBatch(calls: readonly BatchCall[]): Hex {
  return encodeFunctionData({ abi: batchAccountAbi, functionName: 'executeBatch', args: [calls] })
}

/** The calls of an `executeBatch` calldata; null when the calldata is not one. */
export function decodeExecuteBatch(data: Hex): BatchCall[] | null {
  if (!data.toLowerCase().startsWith(EXECUTE_BATCH_SELECTOR)) return null
  try {
    const { args } = decodeFunctionData({ abi: batchAccountAbi, data })
    return args[0].map((call) => ({ target: getAddress(call.target), value: call.value, data: call.data }))
  } catch {
    return null
  }
}

/** The first call of a batch's calldata to `target`; null when there is none or the calldata is no batch. */
export function batchCallTo(data: Hex, target: Address): BatchCall | null {
  return decodeExecuteBatch(data)?.find((call) => isAddressEqual(call.target, target)) ?? null
}

/**
 * A batch's revert: `ExecuteError(index, reason)` names the call that failed and its own revert data. A batch of one
 * call bubbles that call's revert as it is, so data that is no `ExecuteError` is returned with a null index.
 */
export function decodeBatchRevert(data: Hex | undefined): { index: number | null; reason: Hex | undefined } {
  if (!data || data === '0x') return { index: null, reason: data }
  try {
    const decoded = decodeErrorResult({ abi: batchAccountAbi, data })
    const [index, reason] = decoded.args as readonly [bigint, Hex]
    return { index: Number(index), reason }
  } catch {
    return { index: null, reason: data }
  }
}
