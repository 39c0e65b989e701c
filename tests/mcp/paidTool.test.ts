import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { x402Client } from '@x402/core/client'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequired } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { type Address, createPublicClient, type Hex, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { base } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { fundedPayer, type PaidDoorParts, startPaidDoorParts, TEST_PRICE_UNITS } from '../support/paidDoorParts.js'
import { BASE_USDC } from '../support/testUsdc.js'

// deploy_token_paid: the paid door as an MCP tool, by x402's MCP transport, over npm start with the paid door on: one
// Upstash front (redis-server), anvil with the test USDC, the KMS server and the local facilitator. The payer is
// @x402/core's client with @x402/evm's exact scheme, as an MCP agent pays; no agent key anywhere.

type Result = {
  isError?: boolean
  structuredContent?: Record<string, any>
  content: { type: string; text?: string }[]
  _meta?: Record<string, any>
}

describe('deploy_token_paid over MCP (x402), against npm start with the local facilitator and anvil', () => {
  let parts: PaidDoorParts
  let service: NpmStart
  const clients: Client[] = []

  beforeAll(async () => {
    parts = await startPaidDoorParts({ redisSocket: inject('redisSocket'), storePrefix: `mcppaid${process.pid}:` })
    service = await startNpmStart(parts.env)
  }, 120_000)
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)))
    await service?.stop()
    await parts?.close()
  })

  /** An SDK client with no key at all. */
  async function connect(): Promise<Client> {
    const client = new Client({ name: 'mcp-paid-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/api/mcp`)))
    clients.push(client)
    return client
  }
  const call = async (client: Client, args: Record<string, unknown>, payment?: unknown) =>
    (await client.callTool({
      name: 'deploy_token_paid',
      arguments: args,
      ...(payment === undefined ? {} : { _meta: { 'x402/payment': payment } }),
    })) as Result
  /** A payer funded with `units` of the test USDC: its address and @x402/core's client over its key. */
  const payer = async (units?: bigint) => {
    const account = privateKeyToAccount((await fundedPayer(parts, units)) as Hex)
    const publicClient = createPublicClient({ chain: base, transport: http(parts.chain.rpcUrl) })
    return {
      address: account.address,
      x402: new x402Client().register('eip155:*', new ExactEvmScheme(toClientEvmSigner(account, publicClient))),
    }
  }
  const balances = async (who: Address) => ({ payer: await parts.usdc.balanceOf(who), payTo: await parts.usdc.balanceOf(parts.payTo) })
  const counts = () => ({
    verifies: parts.facilitator.calls.filter((c) => c === 'verify').length,
    settles: parts.facilitator.calls.filter((c) => c === 'settle').length,
    sends: parts.chain.rpcMethods.filter((m) => m.startsWith('eth_sendRawTransaction')).length,
  })
  /** The tool's PaymentRequired for these arguments, as an unpaid call answers it. */
  const requiredFor = async (client: Client, args: Record<string, unknown>) =>
    (await call(client, args)).structuredContent as PaymentRequired

  it('is listed while the paid door is on, keyless, its input the paid door’s deploy body; the instructions say how to pay', async () => {
    const client = await connect()
    const { tools } = await client.listTools()
    const paid = tools.find((t) => t.name === 'deploy_token_paid')!
    const keyed = tools.find((t) => t.name === 'deploy_token')!
    const fields = (tool: typeof paid) => Object.keys((tool.inputSchema as { properties: object }).properties).sort()
    expect(fields(paid)).toEqual(fields(keyed).filter((field) => field !== 'dryRun'))
    expect(paid.inputSchema).toMatchObject({ required: ['name', 'symbol'], additionalProperties: false })
    expect(paid.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false })
    expect(client.getInstructions()).toContain('deploy_token_paid needs no key')
    expect(client.getInstructions()).toContain('_meta["x402/payment"]')
  })

  it('answers a call without payment with the PaymentRequired as an isError result (structuredContent and its JSON text); nothing settled', async () => {
    const client = await connect()
    const before = counts()
    const result = await call(client, { name: 'Ask Token', symbol: 'ASK' })
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toMatchObject({
      x402Version: 2,
      error: expect.stringContaining('A deploy costs 0.50'),
      // The door names itself by the public origin (PUBLIC_URL), never by the address a request reached it at.
      resource: { url: `${parts.env.PUBLIC_URL}/api/x402/deploy`, mimeType: 'application/json' },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:8453',
          amount: TEST_PRICE_UNITS.toString(),
          asset: BASE_USDC.address,
          payTo: parts.payTo,
          extra: { name: BASE_USDC.name, version: BASE_USDC.version },
        },
      ],
      ok: false,
      code: 'PAYMENT_REQUIRED',
    })
    expect(JSON.parse(result.content[0]!.text!)).toEqual(result.structuredContent)
    expect(result._meta?.['x402/payment-response']).toBeUndefined()
    expect(counts()).toEqual(before)
  })

  it('deploys once paid: txHash and predictedAddress, the mined settlement in _meta; the price moved once, and a resend pays nothing more', async () => {
    const client = await connect()
    const { address, x402 } = await payer()
    const args = { name: 'Mcp Paid', symbol: 'MPAID', idempotencyKey: 'mcp-paid-0001' }
    const payload: PaymentPayload = await x402.createPaymentPayload(await requiredFor(client, args))
    const [start, before] = [await balances(address), counts()]

    const paid = await call(client, args, payload)
    expect(paid.isError).toBeUndefined()
    expect(paid.structuredContent).toMatchObject({
      ok: true,
      status: 'broadcast',
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      predictedAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      token: { name: 'Mcp Paid', symbol: 'MPAID' },
      payment: { payer: address, amount: TEST_PRICE_UNITS.toString() },
    })
    const settlement = paid._meta?.['x402/payment-response']
    expect(settlement).toMatchObject({
      success: true,
      payer: address,
      network: 'eip155:8453',
      transaction: parts.facilitator.settlements.at(-1),
    })
    expect(paid.structuredContent!.payment.transaction).toBe(settlement.transaction)
    const mined = await parts.chain.publicClient.getTransactionReceipt({ hash: settlement.transaction })
    expect(mined.status).toBe('success')
    expect(await balances(address)).toEqual({ payer: start.payer - TEST_PRICE_UNITS, payTo: start.payTo + TEST_PRICE_UNITS })
    expect(counts()).toEqual({ verifies: before.verifies + 1, settles: before.settles + 1, sends: before.sends + 1 })
    const deployed = await parts.chain.publicClient.waitForTransactionReceipt({ hash: paid.structuredContent!.txHash })
    expect(deployed.status).toBe('success')

    // The same call, the same payment: the first answer, with its settlement; no verify, settle or send, no USDC moved.
    const again = await call(client, args, payload)
    expect(again.structuredContent).toEqual(paid.structuredContent)
    expect(again._meta?.['x402/payment-response']).toEqual(settlement)
    expect(again.content[0]!.text).toContain('nothing was paid twice')
    expect(await balances(address)).toEqual({ payer: start.payer - TEST_PRICE_UNITS, payTo: start.payTo + TEST_PRICE_UNITS })
    expect(counts()).toEqual({ verifies: before.verifies + 1, settles: before.settles + 1, sends: before.sends + 1 })
    expect(await parts.usdc.authorizationUsed(address, (payload.payload as { authorization: { nonce: Hex } }).authorization.nonce)).toBe(
      true,
    )

    // One ledger: the same payment sent to the HTTP door (the same body and key) is the same payment, answered again.
    const http = await fetch(`${service.url}/api/x402/deploy`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': args.idempotencyKey,
        'payment-signature': encodePaymentSignatureHeader(payload),
      },
      body: JSON.stringify({ name: args.name, symbol: args.symbol }),
    })
    expect(http.status).toBe(200)
    expect(http.headers.get('idempotent-replayed')).toBe('true')
    expect(((await http.json()) as { txHash: string }).txHash).toBe(paid.structuredContent!.txHash)
    expect(counts()).toEqual({ verifies: before.verifies + 1, settles: before.settles + 1, sends: before.sends + 1 })
  })

  it('refuses an invalid body before anything is asked, settled or signed, with a payment too', async () => {
    const client = await connect()
    const { address, x402 } = await payer()
    const payload = await x402.createPaymentPayload(await requiredFor(client, { name: 'Valid', symbol: 'VALID' }))
    const [start, before] = [await balances(address), counts()]
    const invalid = await call(client, { name: ' padded', symbol: 'B@D', colour: 'red' }, payload)
    expect(invalid).toMatchObject({ isError: true, structuredContent: { ok: false, code: 'INVALID_INTENT' } })
    expect(invalid.structuredContent!.details.map((d: { field: string }) => d.field).sort()).toEqual(['colour', 'name', 'symbol'])
    // dryRun is not offered by the door: refused with its reason, before any verify.
    const dry = await call(client, { name: 'Valid', symbol: 'VALID', dryRun: true }, payload)
    expect(dry).toMatchObject({ isError: true, structuredContent: { code: 'INVALID_INTENT', details: [{ field: 'dryRun' }] } })
    // A payment that is not a PaymentPayload object is malformed, as a malformed PAYMENT-SIGNATURE is.
    for (const malformed of ['not a payment', { x402Version: 2 }]) {
      const refused = await call(client, { name: 'Valid', symbol: 'VALID' }, malformed)
      expect(refused).toMatchObject({ isError: true, structuredContent: { ok: false, code: 'INVALID_PAYMENT' } })
      expect(refused.structuredContent!.error).toContain('_meta["x402/payment"]')
    }
    expect(counts()).toEqual(before)
    expect(await balances(address)).toEqual(start)
  })

  it('answers a refused payment as the door does: PAYMENT_INVALID with its reason and a fresh PaymentRequired, nothing moved', async () => {
    const client = await connect()
    const { address, x402 } = await payer(0n)
    const args = { name: 'Broke', symbol: 'BROKE' }
    const required = await requiredFor(client, args)
    const payload = await x402.createPaymentPayload(required)
    const before = counts()
    const refused = await call(client, args, payload)
    expect(refused.isError).toBe(true)
    expect(refused.structuredContent).toMatchObject({
      x402Version: 2,
      accepts: required.accepts,
      ok: false,
      code: 'PAYMENT_INVALID',
      reason: expect.stringMatching(/balance|funds/),
    })
    expect(JSON.parse(refused.content[0]!.text!)).toEqual(refused.structuredContent)
    expect(counts()).toEqual({ ...before, verifies: before.verifies + 1 })
    expect(await parts.usdc.balanceOf(address)).toBe(0n)
  })

  it('answers a facilitator down and a failed settle with the door’s codes, isError, nothing moved; the same payment then pays once', async () => {
    const client = await connect()
    const { address, x402 } = await payer()
    const args = { name: 'Mcp Faults', symbol: 'MFAULT' }
    const payload = await x402.createPaymentPayload(await requiredFor(client, args))
    const start = await balances(address)
    parts.facilitator.setFault('down')
    const down = await call(client, args, payload).finally(() => parts.facilitator.setFault(null))
    expect(down).toMatchObject({
      isError: true,
      structuredContent: { ok: false, code: 'FACILITATOR_UNAVAILABLE', retryAfterSeconds: expect.any(Number) },
    })
    expect(down._meta?.['x402/payment-response']).toBeUndefined()
    // The settle refused before any broadcast: the chain shows the authorization unused, so nothing was paid.
    parts.facilitator.setFault('refuse-settle')
    const failed = await call(client, args, payload).finally(() => parts.facilitator.setFault(null))
    expect(failed).toMatchObject({
      isError: true,
      structuredContent: { x402Version: 2, accepts: [expect.objectContaining({ payTo: parts.payTo })], ok: false, code: 'PAYMENT_FAILED' },
    })
    expect(await balances(address)).toEqual(start)
    const paid = await call(client, args, payload)
    expect(paid.structuredContent).toMatchObject({ ok: true, status: 'broadcast' })
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true })
    expect(await balances(address)).toEqual({ payer: start.payer - TEST_PRICE_UNITS, payTo: start.payTo + TEST_PRICE_UNITS })
  })
})
