import { describe, expect, it } from 'vitest'
import { createAgentRegistry } from '../../lib/deploy/agents/agentRegistry.js'
import { loadDeployConfig } from '../../lib/deploy/config.js'
import type { DeployServicesSource } from '../../lib/deploy/instance.js'
import { createPaidDeployEndpoint } from '../../lib/payments/endpoint.js'
import { paymentsSourceFrom } from '../../lib/payments/instance.js'
import { silentLogger } from '../../lib/platform/log.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import { runRecordingLoads } from '../support/moduleLoads.js'
import { withOpenApiCheck } from '../support/openapiCheck.js'

// The paid door's edge, in process: off unless configured, a bad setting answered without its value, every client
// throttled with RateLimit headers, and an unpaid request that loads neither the chain nor the signer.

const ON = {
  X402_PRICE: '1.00',
  X402_FACILITATOR_URL: 'http://127.0.0.1:9/facilitator',
  X402_PAY_TO: '0x000000000000000000000000000000000000bEEF',
  KMS_KEY_ID: 'test-key',
  AWS_REGION: 'us-east-1',
}

/** The door over an environment, with a deploy side whose services must never be asked for here. */
function door(env: Record<string, string>) {
  const store = createMemoryStore()
  const deploy: DeployServicesSource = {
    config: () => loadDeployConfig(env),
    services: async () => {
      throw new Error('the services were loaded')
    },
    logger: () => silentLogger,
    agents: async () => createAgentRegistry({ store: null, storePrefix: 'test:', now: () => 0 }),
    store: async () => store,
  }
  const handle = withOpenApiCheck('/api/x402/deploy', createPaidDeployEndpoint(paymentsSourceFrom({ deploy, env })))
  return (client = '198.51.100.7', body: unknown = { name: 'Edge', symbol: 'EDGE' }) =>
    handle(
      new Request('https://svc.test/api/x402/deploy', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-real-ip': client },
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

  it('answers an unknown action and a bad receipt request as the agent actions do', async () => {
    const ask = door(ON)
    expect(await (await ask(undefined, { action: 'list_deploys' })).json()).toMatchObject({ ok: false, code: 'UNKNOWN_ACTION' })
    expect(await (await ask(undefined, { action: 'receipt', tx_hash: '0x12' })).json()).toMatchObject({
      ok: false,
      code: 'INVALID_INTENT',
      details: [{ field: 'tx_hash' }],
    })
  })

  it('answers an unpaid request in a fresh process without loading the chain, KMS or the deploy pipeline', () => {
    const script = `
      await import('./api/x402/deploy.ts') // the route's own module loads nothing more either
      const { createPaidDeployEndpoint } = await import('./lib/payments/endpoint.ts')
      const { paymentsSourceFrom } = await import('./lib/payments/instance.ts')
      const { loadDeployConfig } = await import('./lib/deploy/config.ts')
      const { createMemoryStore } = await import('./lib/store/memory.ts')
      const env = ${JSON.stringify(ON)}
      const store = createMemoryStore()
      const deploy = { config: () => loadDeployConfig(env), services: async () => { throw new Error('services loaded') }, logger: () => undefined, agents: async () => undefined, store: async () => store }
      const handle = createPaidDeployEndpoint(paymentsSourceFrom({ deploy, env })).fetch
      const response = await handle(new Request('http://x/api/x402/deploy', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Cold","symbol":"COLD"}' }))
      process.stdout.write(JSON.stringify({ status: response.status }))`
    const { out, loads } = runRecordingLoads(script)
    expect(JSON.parse(out)).toEqual({ status: 402 })
    expect(loads).toContain('/lib/payments/endpoint.ts') // the recorder works
    expect(loads).not.toMatch(/@aws-sdk|\/node_modules\/viem\/|kmsAccount|deployToken|deploy\/services|payments\/paidDeploy/)
  })
})
