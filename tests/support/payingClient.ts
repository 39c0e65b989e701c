import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment, x402Client, type x402ClientConfig } from '@x402/fetch'
import { type Address, createPublicClient, type Hex, http, toHex } from 'viem'
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
  /** The fetch the client wraps (default: the global one). */
  baseFetch?: typeof fetch
}

/** A wallet (a fresh key unless one is given) with @x402/fetch in front of fetch. */
export function createPayingClient({
  rpcUrl,
  privateKey = generatePrivateKey(),
  spendControls,
  baseFetch = fetch,
}: CreatePayingClientParameters): PayingClient {
  const account = privateKeyToAccount(privateKey)
  const publicClient = createPublicClient({ chain: base, transport: http(rpcUrl) })
  // Every eip155 network, so a test can also sign what a mainnet-only client would refuse to (another network).
  const client = new x402Client().register('eip155:*', new ExactEvmScheme(toClientEvmSigner(account, publicClient)))
  if (spendControls) client.setSpendControls(spendControls)
  return { address: account.address, privateKey, client, fetch: wrapFetchWithPayment(baseFetch, client) }
}

/** Parameters of {@link signPaymentHeader}. */
export type SignPaymentHeaderParameters = {
  privateKey: Hex
  /** The requirements the payment says it accepts (and is signed in the domain of). */
  requirements: PaymentRequirements
  /** Overrides of the authorization, as a payer could sign them: another window, value, recipient. */
  authorization?: Partial<{ to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex }>
  chainId?: number
}

/**
 * A PAYMENT-SIGNATURE signed by hand (EIP-712 TransferWithAuthorization), for what the x402 client never signs: an
 * expired or not yet valid window, another value or recipient than its requirements say.
 */
export async function signPaymentHeader({
  privateKey,
  requirements,
  authorization = {},
  chainId = 8453,
}: SignPaymentHeaderParameters): Promise<string> {
  const account = privateKeyToAccount(privateKey)
  const now = BigInt(Math.floor(Date.now() / 1000))
  const message = {
    from: account.address,
    to: authorization.to ?? (requirements.payTo as Address),
    value: authorization.value ?? BigInt(requirements.amount),
    validAfter: authorization.validAfter ?? 0n,
    validBefore: authorization.validBefore ?? now + 300n,
    nonce: authorization.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  }
  const extra = requirements.extra as { name: string; version: string }
  const signature = await account.signTypedData({
    domain: { name: extra.name, version: extra.version, chainId, verifyingContract: requirements.asset as Address },
    types: {
      TransferWithAuthorization: [
        { name: 'from', type: 'address' },
        { name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' },
        { name: 'validBefore', type: 'uint256' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'TransferWithAuthorization',
    message,
  })
  const payload: PaymentPayload = {
    x402Version: 2,
    accepted: requirements,
    payload: {
      signature,
      authorization: {
        ...message,
        value: message.value.toString(),
        validAfter: message.validAfter.toString(),
        validBefore: message.validBefore.toString(),
      },
    },
  }
  return encodePaymentSignatureHeader(payload)
}
