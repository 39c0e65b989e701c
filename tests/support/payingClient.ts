import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment, x402Client, type x402ClientConfig } from '@x402/fetch'
import { type Address, createPublicClient, type Hex, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'

// The client agents use: @x402/fetch's wrapFetchWithPayment over a viem local account, as docs/api.md shows it.

/** The spend controls a client passes to pay in an asset its defaults do not know, or more than $1. */
export type SpendControls = NonNullable<x402ClientConfig['spendControls']>

/** A paying agent: its wallet, the x402 client, and fetch wrapped to pay a 402 by itself. */
export type PayingClient = {
  address: Address
  privateKey: Hex
  client: x402Client
  fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>
}

/** Parameters of {@link createPayingClient}. */
export type CreatePayingClientParameters = {
  /** The chain's RPC (the client reads nothing for EIP-3009, but the scheme may). */
  rpcUrl: string
  privateKey?: Hex
  spendControls?: SpendControls
}

/** A wallet (a fresh key unless one is given) with @x402/fetch in front of fetch. */
export function createPayingClient({
  rpcUrl,
  privateKey = generatePrivateKey(),
  spendControls,
}: CreatePayingClientParameters): PayingClient {
  const account = privateKeyToAccount(privateKey)
  const publicClient = createPublicClient({ chain: base, transport: http(rpcUrl) })
  const client = new x402Client().register('eip155:8453', new ExactEvmScheme(toClientEvmSigner(account, publicClient)))
  if (spendControls) client.setSpendControls(spendControls)
  return { address: account.address, privateKey, client, fetch: wrapFetchWithPayment(fetch, client) }
}
