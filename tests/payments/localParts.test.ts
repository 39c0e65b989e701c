import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import type { PaymentRequirements } from '@x402/core/types'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { createPublicClient, type Hex, http, type PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { confirmSettlement, findSettlement } from '../../lib/payments/verdict/settlementOnChain.js'
import { type AnvilChain, startAnvilChain } from '../support/anvil.js'
import { type LocalFacilitator, startLocalFacilitator } from '../support/facilitator.js'
import { createPayingClient } from '../support/payingClient.js'
import { placeTestUsdc, type TestUsdc } from '../support/testUsdc.js'

// The payment parts the paid door is tested on, on their own: the test chain's EIP-3009 token, the local facilitator
// over HTTP, and @x402/fetch's client signing a real authorization. If these disagree, every paid-door test would.

describe('the test chain USDC, the local facilitator and the x402 client', () => {
  let chain: AnvilChain
  let usdc: TestUsdc
  let facilitator: LocalFacilitator
  const payTo = '0x000000000000000000000000000000000000bEEF'

  beforeAll(async () => {
    chain = await startAnvilChain()
    usdc = await placeTestUsdc({ chain })
    facilitator = await startLocalFacilitator({ rpcUrl: chain.nodeUrl })
  }, 60_000)
  afterAll(async () => {
    await facilitator?.close()
    await chain?.stop()
  })

  const requirements = (amount: string): PaymentRequirements => ({
    scheme: 'exact',
    network: 'eip155:8453',
    asset: usdc.address,
    amount,
    payTo,
    maxTimeoutSeconds: 300,
    extra: { name: usdc.name, version: usdc.version },
  })

  it('verifies and settles a payment the client signed, moving exactly the amount, once', async () => {
    const payer = createPayingClient({ rpcUrl: chain.rpcUrl })
    await usdc.mint(payer.address, 5_000_000n)
    const accepts = [requirements('1000000')]
    const payload = await payer.client.createPaymentPayload({ x402Version: 2, resource: { url: 'http://x/y' }, accepts } as never)
    const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitator.url })).register('eip155:8453', new ExactEvmScheme())
    expect(await server.verifyPayment(payload, accepts[0]!)).toMatchObject({ isValid: true, payer: payer.address })
    const settled = await server.settlePayment(payload, accepts[0]!)
    expect(settled).toMatchObject({ success: true, payer: payer.address })
    expect(await usdc.balanceOf(payer.address)).toBe(4_000_000n)
    expect(await usdc.balanceOf(payTo)).toBe(1_000_000n)
    const nonce = (payload.payload as { authorization: { nonce: `0x${string}` } }).authorization.nonce
    expect(await usdc.authorizationUsed(payer.address, nonce)).toBe(true)
    // The same authorization again cannot move anything: the token's nonce is single use.
    expect(await server.settlePayment(payload, accepts[0]!)).toMatchObject({ success: false })
    expect(await usdc.balanceOf(payTo)).toBe(1_000_000n)
  })

  it('confirms a settlement only for the authorization it used: another payment of the same price by the same payer does not', async () => {
    const payer = createPayingClient({ rpcUrl: chain.rpcUrl })
    await usdc.mint(payer.address, 5_000_000n)
    const accepts = [requirements('1000000')]
    const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitator.url })).register('eip155:8453', new ExactEvmScheme())
    const pay = async () => {
      const payload = await payer.client.createPaymentPayload({ x402Version: 2, resource: { url: 'http://x/y' }, accepts } as never)
      const settled = await server.settlePayment(payload, accepts[0]!)
      expect(settled).toMatchObject({ success: true })
      return { transaction: settled.transaction as Hex, nonce: (payload.payload as { authorization: { nonce: Hex } }).authorization.nonce }
    }
    const [first, second] = [await pay(), await pay()]
    const publicClient = createPublicClient({ transport: http(chain.rpcUrl) }) as PublicClient
    const expected = (nonce: Hex) => ({ asset: usdc.address, payer: payer.address, payTo: payTo as Hex, amount: 1_000_000n, nonce })
    expect(await confirmSettlement(publicClient, first.transaction, expected(first.nonce))).toBe('confirmed')
    expect(await confirmSettlement(publicClient, second.transaction, expected(second.nonce))).toBe('confirmed')
    // The first transaction moved the same price from the same payer to payTo, but under another authorization.
    expect(await confirmSettlement(publicClient, first.transaction, expected(second.nonce))).toBe('not-confirmed')
    expect(await findSettlement(publicClient, expected(second.nonce))).toMatchObject({
      kind: 'settled',
      transaction: second.transaction,
      check: 'confirmed',
    })
  })

  it('reads an authorization’s state at the very block whose time it compares, so a node lagging behind another cannot say "unused"', async () => {
    const payer = createPayingClient({ rpcUrl: chain.rpcUrl })
    await usdc.mint(payer.address, 5_000_000n)
    const accepts = [requirements('1000000')]
    const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitator.url })).register('eip155:8453', new ExactEvmScheme())
    const payload = await payer.client.createPaymentPayload({ x402Version: 2, resource: { url: 'http://x/y' }, accepts } as never)
    const settled = await server.settlePayment(payload, accepts[0]!)
    expect(settled).toMatchObject({ success: true })
    const direct = createPublicClient({ transport: http(chain.rpcUrl) }) as PublicClient
    const settleBlock = (await direct.getTransactionReceipt({ hash: settled.transaction as Hex })).blockNumber
    // Behind a load balancer, one node has the newest block while another answers calls at "latest" from the block
    // before the settle: what it says of "latest" is older than the head the first one gave.
    const lagging = await startLaggingRpc(chain.rpcUrl, settleBlock - 1n)
    try {
      const publicClient = createPublicClient({ transport: http(lagging.url) }) as PublicClient
      const nonce = (payload.payload as { authorization: { nonce: Hex } }).authorization.nonce
      const expected = { asset: usdc.address, payer: payer.address, payTo: payTo as Hex, amount: 1_000_000n, nonce }
      expect(await findSettlement(publicClient, expected)).toMatchObject({ kind: 'settled', transaction: settled.transaction })
      expect(lagging.rewritten()).toBe(0)
    } finally {
      await lagging.close()
    }
  })

  it('refuses an unfunded payer in verify, naming the reason (its diagnosis reads through Multicall3)', async () => {
    const payer = createPayingClient({ rpcUrl: chain.rpcUrl })
    const accepts = [requirements('1000000')]
    const payload = await payer.client.createPaymentPayload({ x402Version: 2, resource: { url: 'http://x/y' }, accepts } as never)
    const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitator.url })).register('eip155:8453', new ExactEvmScheme())
    expect(await server.verifyPayment(payload, accepts[0]!)).toMatchObject({
      isValid: false,
      invalidReason: expect.stringMatching(/balance/),
    })
  })
})

/**
 * A JSON-RPC front that answers every `eth_call` at "latest" from an older block (`stale`), as a node lagging behind
 * the one that gave the head would; everything else passes. It counts the calls it answered from the stale block.
 */
async function startLaggingRpc(target: string, stale: bigint): Promise<{ url: string; rewritten(): number; close(): Promise<void> }> {
  let rewritten = 0
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const lag = (call: { method?: string; params?: unknown[] }) => {
      if (call.method !== 'eth_call' || !Array.isArray(call.params) || (call.params[1] ?? 'latest') !== 'latest') return call
      rewritten++
      return { ...call, params: [call.params[0], `0x${stale.toString(16)}`] }
    }
    const parsed = JSON.parse(Buffer.concat(chunks).toString()) as unknown
    const body = JSON.stringify(Array.isArray(parsed) ? parsed.map(lag) : lag(parsed as { method?: string }))
    const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    res.writeHead(answer.status, { 'content-type': 'application/json' })
    res.end(await answer.text())
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    rewritten: () => rewritten,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  }
}
