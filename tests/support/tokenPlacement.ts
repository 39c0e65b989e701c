import { type Address, decodeFunctionData, type Hex, isAddressEqual, parseTransaction, recoverTransactionAddress, zeroAddress } from 'viem'
import { B20_FACTORY_ADDRESS, b20FactoryAbi, CREATE_B20_SELECTOR, predictB20Address } from '../../lib/chain/b20.js'
import { VARIANT_BY_ID } from '../../lib/chain/b20Variants.js'
import { batchCallTo } from '../../lib/chain/batchAccount.js'

// On Base the factory precompile writes each token itself. An EVM contract cannot put code at a computed address, so
// the test chain's JSON-RPC proxy does it: before a createB20 call, estimate, fill or transaction reaches anvil, the token
// emulator's runtime code is placed at the address the factory will create (anvil_setCode), and the factory emulator
// then runs the token's bootstrap on it. The token's storage starts empty, as a new token's does.

/** One JSON-RPC call as the proxy sees it. */
export type RpcCall = { method: string; params?: unknown }

type CallObject = { from?: string; to?: string; data?: string; input?: string }

/**
 * The factory call inside a pooled launch's batch, when `to` is the sender itself (an EIP-7702 account's
 * `executeBatch`): its creator is the account, as msg.sender of createB20 is.
 */
function batchedFactoryCall(from: Address, to: string | undefined, data: Hex | undefined): { from: Address; data: Hex } | null {
  if (!to || !data || !isAddressEqual(to as Address, from)) return null
  const inner = batchCallTo(data, B20_FACTORY_ADDRESS)
  return inner ? { from, data: inner.data } : null
}

/** The sender and calldata of a call, estimate or transaction to the factory (or of a batch calling it); null for anything else. */
async function factoryCallOf(call: RpcCall): Promise<{ from: Address; data: Hex } | null> {
  const params = Array.isArray(call.params) ? (call.params as unknown[]) : []
  if (call.method === 'eth_sendRawTransaction' || call.method === 'eth_sendRawTransactionSync') {
    const serializedTransaction = params[0] as Hex
    const tx = parseTransaction(serializedTransaction)
    if (!tx.to || !tx.data) return null
    const from = await recoverTransactionAddress({ serializedTransaction } as never)
    if (!isAddressEqual(tx.to, B20_FACTORY_ADDRESS)) return batchedFactoryCall(from, tx.to, tx.data)
    return { from, data: tx.data }
  }
  // eth_simulateV1 (a pooled launch's sequence): the first call to the factory among its blocks' calls.
  const object =
    call.method === 'eth_simulateV1'
      ? ((params[0] as { blockStateCalls?: { calls?: CallObject[] }[] } | undefined)?.blockStateCalls ?? [])
          .flatMap((block) => block.calls ?? [])
          .find((inner) => inner.to && isAddressEqual(inner.to as Address, B20_FACTORY_ADDRESS))
      : ['eth_call', 'eth_estimateGas', 'eth_fillTransaction', 'eth_sendTransaction'].includes(call.method)
        ? (params[0] as CallObject | undefined)
        : undefined
  if (!object) return null
  const data = (object?.data ?? object?.input) as Hex | undefined
  if (object.from && object.to && !isAddressEqual(object.to as Address, B20_FACTORY_ADDRESS))
    return batchedFactoryCall(object.from as Address, object.to, data)
  if (!object?.to || !data || !isAddressEqual(object.to as Address, B20_FACTORY_ADDRESS)) return null
  return { from: (object.from as Address | undefined) ?? zeroAddress, data }
}

/** The token a JSON-RPC call would create through `createB20`, or null when it is not such a call (or malformed). */
export async function tokenCreatedBy(call: RpcCall): Promise<Address | null> {
  try {
    const found = await factoryCallOf(call)
    if (!found?.data.toLowerCase().startsWith(CREATE_B20_SELECTOR)) return null
    const { args } = decodeFunctionData({ abi: b20FactoryAbi, data: found.data })
    const [variant, salt] = args as unknown as [number, Hex]
    const name = VARIANT_BY_ID[variant]
    return name ? predictB20Address(name, found.from, salt) : null
  } catch {
    return null // not decodable: the node answers it as it would
  }
}

/** Parameters of {@link placeTokenCode}. */
export type PlaceTokenCodeParameters = { nodeUrl: string; token: Address; code: Hex }

/** Puts the token emulator's code at `token` unless code is there already (a created token keeps its storage). */
export async function placeTokenCode({ nodeUrl, token, code }: PlaceTokenCodeParameters): Promise<void> {
  const rpc = async (method: string, params: unknown[]) => {
    const answer = await fetch(nodeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    return ((await answer.json()) as { result?: unknown }).result
  }
  if ((await rpc('eth_getCode', [token, 'latest'])) !== '0x') return
  await rpc('anvil_setCode', [token, code])
}
