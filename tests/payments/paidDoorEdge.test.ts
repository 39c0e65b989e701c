import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequirements } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { x402Client } from '@x402/fetch'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPaidDeployEndpoint } from '../../lib/payments/endpoint.js'
import { type AnvilChain, startAnvilChain } from '../support/anvil.js'
import { runRecordingLoads } from '../support/moduleLoads.js'
import { withOpenApiCheck } from '../support/openapiCheck.js'
import { paymentsSourceOver } from '../support/paymentsSourceOver.js'
import { placeTestUsdc } from '../support/testUsdc.js'

// The paid door's edge, in process, over anvil with the test USDC at Base's USDC address: off unless configured, a bad
// setting answered without its value, every client throttled with RateLimit headers, the price asked at the asset's
// own decimals and never under a misconfigured domain, a variant switched off refused before any 402, and an unpaid
// request that loads neither the signer nor the deploy pipeline.

let chain: AnvilChain
/** The door's environment: on, over the test chain (set once the chain runs). */
const ON: Record<string, string> = {
  PUBLIC_URL: 'https://svc.test',
  X402_PRICE: '1.00',
  X402_FACILITATOR_URL: 'http://127.0.0.1:9/facilitator',
  X402_PAY_TO: '0x000000000000000000000000000000000000bEEF',
  KMS_KEY_ID: 'test-key',
  AWS_REGION: 'us-east-1',
}

beforeAll(async () => {
  chain = await startAnvilChain()
  await placeTestUsdc({ chain })
  ON.BASE_RPC_URL = chain.rpcUrl
}, 60_000)
afterAll(() => chain?.stop())

/** Runs `body` with stderr's lines recorded (where the operator's log lines go); answers them. */
async function stderrOf(body: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const lines: string[] = []
  const original = process.stderr.write.bind(process.stderr)
  process.stderr.write = ((chunk: string | Uint8Array) => lines.push(String(chunk)) > 0) as typeof process.stderr.write
  try {
    await body()
  } finally {
    process.stderr.write = original
  }
  return lines.flatMap((line) => line.split('\n')).flatMap((line) => (line.startsWith('{') ? [JSON.parse(line)] : []))
}

/** A PAYMENT-SIGNATURE a fresh wallet signs for `accepts` (what an x402 client sends after the 402). */
async function signedPayment(accepts: PaymentRequirements): Promise<string> {
  const client = new x402Client().register('eip155:*', new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(generatePrivateKey()))))
  client.setSpendControls(false)
  const resource = { url: 'https://svc.test/api/x402/deploy', description: 'a deploy', mimeType: 'application/json' }
  return encodePaymentSignatureHeader(await client.createPaymentPayload({ x402Version: 2, resource, accepts: [accepts] }))
}

/** The door over an environment, with a deploy side whose services must never be asked for here. */
function door(env: Record<string, string>) {
  const handle = withOpenApiCheck('/api/x402/deploy', createPaidDeployEndpoint(paymentsSourceOver(env)))
  return (client = '198.51.100.7', body: unknown = { name: 'Edge', symbol: 'EDGE' }, headers: Record<string, string> = {}) =>
    handle(
      new Request('https://svc.test/api/x402/deploy', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-real-ip': client, ...headers },
        body: JSON.stringify(body),
      }),
    )
}

describe('the paid door at its edge', () => {
  it('is off (404 PAID_DEPLOYS_OFF, naming what is missing) unless price, facilitator and signer are set', async () => {
    const answer = await door({ X402_PRICE: '1.00' })()
    expect(answer.status).toBe(404)
    expect(await answer.json()).toMatchObject({
      ok: false,
      code: 'PAID_DEPLOYS_OFF',
      error: expect.stringContaining('X402_FACILITATOR_URL, KMS_KEY_ID'),
    })
  })

  it('answers CONFIG_INVALID for a bad setting, without its value', async () => {
    const answer = await door({ ...ON, X402_PRICE: 'one dollar' })()
    expect(answer.status).toBe(500)
    const text = await answer.text()
    expect(JSON.parse(text)).toMatchObject({ ok: false, code: 'CONFIG_INVALID' })
    expect(text).not.toContain('one dollar')
  })

  it('throttles each client, telling it its quota on every answer; another client is not held back', async () => {
    const ask = door({ ...ON, X402_RATE_LIMIT_PER_MINUTE: '2' })
    const first = await ask()
    expect(first.status).toBe(402)
    expect(first.headers.get('ratelimit')).toMatch(/^"x402";r=1;t=\d+$/)
    expect((await ask()).status).toBe(402)
    const third = await ask()
    expect(third.status).toBe(429)
    expect(await third.json()).toMatchObject({ ok: false, code: 'RATE_LIMITED' })
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(third.headers.get('ratelimit')).toMatch(/^"x402";r=0;t=\d+$/)
    expect((await ask('203.0.113.9')).status).toBe(402)
  })

  it('answers an unknown action and a bad receipt request as the agent actions do (unpaid, the unknown action is asked to pay)', async () => {
    const ask = door(ON)
    const unpaid = await ask(undefined, { action: 'list_deploys' })
    expect(unpaid.status).toBe(402)
    expect(await unpaid.json()).toMatchObject({ ok: false, code: 'PAYMENT_REQUIRED', details: [{ field: 'action' }] })
    // With a payment (here one that could not even be decoded), the action's refusal, before the payment is looked at.
    const paid = await ask(undefined, { action: 'list_deploys' }, { 'payment-signature': 'not a payment' })
    expect(await paid.json()).toMatchObject({ ok: false, code: 'UNKNOWN_ACTION' })
    // A receipt is free: a bad one is refused as it is, never asked to pay.
    expect(await (await ask(undefined, { action: 'receipt', tx_hash: '0x12' })).json()).toMatchObject({
      ok: false,
      code: 'INVALID_INTENT',
      details: [{ field: 'tx_hash' }],
    })
  })

  it('answers an unpaid request in a fresh process without loading KMS or the deploy pipeline', () => {
    const script = `
      await import('./api/x402/deploy.ts') // the route's own module loads nothing more either
      const { createPaidDeployEndpoint } = await import('./lib/payments/endpoint.ts')
      const { paymentsSourceFrom } = await import('./lib/payments/instance.ts')
      const { loadDeployConfig } = await import('./lib/deploy/config.ts')
      const { createMemoryStore } = await import('./lib/store/memory.ts')
      const env = ${JSON.stringify({ ...ON, BASE_RPC_URL: chain.nodeUrl })} // this process waits: anvil itself, not the proxy
      const store = createMemoryStore()
      const deploy = { config: () => loadDeployConfig(env), services: async () => { throw new Error('services loaded') }, logger: () => undefined, agents: async () => undefined, store: async () => store }
      const handle = createPaidDeployEndpoint(paymentsSourceFrom({ deploy, env })).fetch
      const response = await handle(new Request('http://x/api/x402/deploy', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Cold","symbol":"COLD"}' }))
      process.stdout.write(JSON.stringify({ status: response.status }))`
    const { out, loads } = runRecordingLoads(script)
    expect(JSON.parse(out)).toEqual({ status: 402 })
    expect(loads).toContain('/lib/payments/endpoint.ts') // the recorder works
    // The chain is read (the asset's terms, the variant's activation) through viem's public client; nothing signs.
    expect(loads).toContain('/lib/payments/verdict/doorChain.ts')
    expect(loads).not.toMatch(/@aws-sdk|kmsAccount|deployToken|deploy\/services|payments\/paidDeploy/)
  })

  it('asks the price at the decimals the asset says on chain, not at USDC’s 6', async () => {
    const other = await placeTestUsdc({ chain, address: '0x00000000000000000000000000000000000D0118', name: 'Other Dollar', version: '1' })
    await other.setDecimals(18)
    const answer = await door({ ...ON, X402_ASSET: other.address, X402_ASSET_NAME: 'Other Dollar', X402_ASSET_VERSION: '1' })()
    expect(answer.status).toBe(402)
    const body = (await answer.json()) as { accepts: PaymentRequirements[] }
    expect(body.accepts[0]).toMatchObject({
      asset: other.address,
      amount: '1000000000000000000',
      extra: { name: 'Other Dollar', version: '1' },
    })
    // USDC itself, at its 6.
    const usdc = (await (await door(ON)()).json()) as { accepts: PaymentRequirements[] }
    expect(usdc.accepts[0]!.amount).toBe('1000000')
  })

  it.each([
    ['an EIP-712 name the token does not sign with', { X402_ASSET_NAME: 'USDC' }, 'X402_ASSET_NAME'],
    ['an EIP-712 version the token does not sign with', { X402_ASSET_VERSION: '1' }, 'X402_ASSET_VERSION'],
    ['a price finer than the asset’s decimals', { X402_PRICE: '0.0000001' }, 'X402_PRICE'],
    [
      'an asset address where no token answers',
      { X402_ASSET: '0x00000000000000000000000000000000000A55e7', X402_ASSET_NAME: 'Gone', X402_ASSET_VERSION: '1' },
      'X402_ASSET',
    ],
  ])('refuses to sell with %s: 500 CONFIG_INVALID before any 402, the log naming the setting', async (_, over, setting) => {
    const ask = door({ ...ON, ...over })
    let answer: Response | undefined
    const lines = await stderrOf(async () => {
      answer = await ask()
    })
    expect(answer!.status).toBe(500)
    expect(answer!.headers.get('payment-required')).toBeNull()
    expect(await answer!.json()).toEqual({ ok: false, error: expect.any(String), code: 'CONFIG_INVALID' })
    const told = lines.find((line) => line.event === 'config_invalid')
    expect(told?.message).toMatch(new RegExp(`${setting}: `))
  })

  it('does not sell while the RPC cannot say what the asset is (503 RPC_UNAVAILABLE, nothing charged), and sells once it can', async () => {
    const ask = door(ON)
    chain.setRpcDown(true)
    try {
      const down = await ask()
      expect(down.status).toBe(503)
      expect(down.headers.get('payment-required')).toBeNull()
      expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(await down.json()).toMatchObject({ ok: false, code: 'RPC_UNAVAILABLE', error: expect.stringContaining('nothing was charged') })
    } finally {
      chain.setRpcDown(false)
    }
    expect((await ask()).status).toBe(402)
  })

  it('refuses a variant the network switched off before any 402, verify or signature (VARIANT_NOT_ACTIVE, nothing charged)', async () => {
    const ask = door(ON)
    const offered = (await (await ask()).json()) as { accepts: PaymentRequirements[] }
    await chain.setVariantActivated('stablecoin', false)
    try {
      const stablecoin = { name: 'Edge Dollar', symbol: 'EUSD', variant: 'stablecoin' }
      // A fresh door asks the registry (another instance keeps what it read for a few minutes).
      const fresh = door(ON)
      const refused = await fresh(undefined, stablecoin)
      expect(refused.status).toBe(200)
      expect(refused.headers.get('payment-required')).toBeNull()
      expect(await refused.json()).toEqual({
        ok: false,
        code: 'VARIANT_NOT_ACTIVE',
        error: expect.stringMatching(/stablecoin variant is not activated.*nothing was asked, charged or signed/),
      })
      // A signed payment is not verified either: the door's deploy services (which would verify it) are never loaded.
      const paid = await fresh(undefined, stablecoin, { 'payment-signature': await signedPayment(offered.accepts[0]!) })
      expect(await paid.json()).toMatchObject({ ok: false, code: 'VARIANT_NOT_ACTIVE' })
      // The other variant is still sold.
      expect((await fresh()).status).toBe(402)
    } finally {
      await chain.setVariantActivated('stablecoin', true)
    }
  })
})
