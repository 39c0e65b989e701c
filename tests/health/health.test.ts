import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest'
import { SIMPLE_7702_ACCOUNT_ADDRESS } from '../../lib/chain/delegate.js'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { loadHealthConfig } from '../../lib/health/config.js'
import { createHealthEndpoint } from '../../lib/health/endpoint.js'
import { tickKeys } from '../../lib/tick/keys.js'
import { runTick } from '../../lib/tick/runTick.js'
import { type DeployStack, startDeployStack } from '../support/deployStack.js'
import { withOpenApiCheck } from '../support/openapiCheck.js'
import { type ReadStack, startReadStack } from '../support/readStack.js'

const TOKEN = 'health-token-0123456789abcdef'
const get = (headers: Record<string, string> = {}) => new Request('https://svc.test/api/health', { headers })
const bearer = { authorization: `Bearer ${TOKEN}` }

describe('GET /api/health', () => {
  let read: ReadStack
  let deploy: DeployStack
  const handlerFor = (env: Record<string, string> = { HEALTH_TOKEN: TOKEN }, instance = deploy.newInstance()) =>
    withOpenApiCheck(
      '/api/health',
      createHealthEndpoint({
        read: () => read.services,
        deploy: deployServicesFrom(() => instance.services),
        config: () => loadHealthConfig(env),
      }),
    )
  const detailed = async (handle = handlerFor()) => {
    const response = await handle(get(bearer))
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    return (await response.json()) as Record<string, any>
  }

  beforeAll(async () => {
    ;[read, deploy] = await Promise.all([
      startReadStack({ storeKind: 'upstash', redisSocket: inject('redisSocket') }),
      startDeployStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), env: { DEPLOY_DAILY_CAP: '50' } }),
    ])
  })
  afterAll(async () => {
    await Promise.all([read?.close(), deploy?.close()])
  })

  it('answers anyone { ok, version, dataAgeSeconds, lastTickAgeSeconds }, nothing more, cacheable for 5 s', async () => {
    const handle = handlerFor()
    const cold = await handle(get())
    expect(cold.status).toBe(200)
    expect(cold.headers.get('cache-control')).toBe('public, max-age=5, s-maxage=5')
    expect(await cold.json()).toEqual({ ok: true, version: expect.any(String), dataAgeSeconds: null, lastTickAgeSeconds: null })
    await read.controlRoom(new Request('https://svc.test/api/control-room'))
    read.clock.now += 42_000
    expect(await (await handle(get())).json()).toEqual({
      ok: true,
      version: expect.any(String),
      dataAgeSeconds: 42,
      lastTickAgeSeconds: null,
    })
  })

  it('refuses a wrong token with 401, and has no detailed view at all when HEALTH_TOKEN is unset', async () => {
    const wrong = await handlerFor()(get({ authorization: 'Bearer not-the-token-at-all' }))
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toEqual({ error: 'The health token is wrong.', code: 'UNAUTHORIZED' })
    const off = await handlerFor({})(get(bearer))
    expect(off.status).toBe(200)
    expect(Object.keys((await off.json()) as object).sort()).toEqual(['dataAgeSeconds', 'lastTickAgeSeconds', 'ok', 'version'])
  })

  it('shows every part up: store, upstreams, RPC chain and head, signer balance, deploys in the window', async () => {
    const usedBefore = (await detailed()).deploys.usedInWindow as number
    await deploy.post({ action: 'agent_deploy', name: 'Health Check', symbol: 'HLTH' })
    const view = await detailed()
    expect(view).toMatchObject({
      ok: true,
      store: { ok: true, kind: 'upstash' },
      upstreams: { dexscreener: { ok: true }, geckoterminal: { ok: true, configured: false } },
      rpc: { ok: true, chainId: 8453, expectedChainId: 8453, head: expect.any(Number) },
      signer: { ok: true, address: deploy.signer, lowBalance: false, minBalanceEth: '0.01' },
      deploys: { ok: true, usedInWindow: usedBefore + 1, cap: 50, windowSeconds: 86_400, oldestUnmined: null },
      variants: { ok: true, asset: 'active', stablecoin: 'active', checkedAgeSeconds: expect.any(Number) },
      // The executor, not the signer: Simple7702Account v0.8 at Base's address (the artifact's code on this chain).
      delegation: { ok: true, address: SIMPLE_7702_ACCOUNT_ADDRESS, signerDelegated: false },
    })
    expect(Number(view.signer.balanceEth)).toBeGreaterThan(1)
    // Nothing secret: no store token, no agent key, no AWS secret anywhere in it.
    const text = JSON.stringify(view)
    expect(text).not.toContain(read.upstash!.token)
    expect(text).not.toContain('test-agent-key')
    expect(text).not.toContain(TOKEN)
  })

  it('says the delegation is not ok where the executor does not hold Simple7702Account v0.8’s code, naming the executor', async () => {
    const elsewhere = '0x000000000000000000000000000000000000dEaD'
    const instance = deploy.newInstance({ env: { EIP7702_DELEGATE: elsewhere } })
    const view = await detailed(handlerFor({ HEALTH_TOKEN: TOKEN }, instance))
    expect(view).toMatchObject({ ok: false, delegation: { ok: false, address: elsewhere, error: 'DelegateCodeMismatch' } })
  })

  it('shows each B20 variant as the ActivationRegistry says, as deploys see it; a registry that cannot answer is a part down', async () => {
    await deploy.chain.setVariantActivated('stablecoin', false)
    try {
      const instance = deploy.newInstance() // another instance keeps what it read a few minutes
      const view = await detailed(handlerFor({ HEALTH_TOKEN: TOKEN }, instance))
      expect(view.variants).toEqual({
        ok: true,
        latencyMs: expect.any(Number),
        asset: 'active',
        stablecoin: 'inactive',
        checkedAgeSeconds: 0,
      })
      // A switched-off variant is not the service down: deploys of it are refused, everything else works.
      expect(view.ok).toBe(true)
      deploy.clock.now += 60_000
      expect((await detailed(handlerFor({ HEALTH_TOKEN: TOKEN }, instance))).variants).toMatchObject({ checkedAgeSeconds: 60 })
    } finally {
      await deploy.chain.setVariantActivated('stablecoin', true)
    }
    deploy.chain.setRpcDown(true)
    try {
      const view = await detailed(handlerFor({ HEALTH_TOKEN: TOKEN }, deploy.newInstance()))
      expect(view).toMatchObject({ ok: false, variants: { ok: false, error: 'ActivationUnknown' } })
    } finally {
      deploy.chain.setRpcDown(false)
    }
  })

  it('flags a low balance under SIGNER_MIN_BALANCE_ETH and names the oldest unmined deploy', async () => {
    await deploy.chain.testClient.setAutomine(false)
    try {
      const { body } = await deploy.post({ action: 'agent_deploy', name: 'Waiting', symbol: 'WAIT' })
      deploy.clock.now += 30_000
      const view = await detailed(handlerFor({ HEALTH_TOKEN: TOKEN, SIGNER_MIN_BALANCE_ETH: '1000000' }))
      expect(view.ok).toBe(true)
      expect(view.signer).toMatchObject({ ok: true, lowBalance: true, minBalanceEth: '1000000' })
      expect(view.deploys.oldestUnmined).toEqual({ txHash: body.txHash, nonce: expect.any(Number), pendingSeconds: 30 })
    } finally {
      await deploy.chain.testClient.mine({ blocks: 1 })
      await deploy.chain.testClient.setAutomine(true)
    }
  })

  it('shows each part down, and the whole not ok, while the others still report', async () => {
    read.upstream.failAlways('/', { kind: 'status', status: 503 })
    let view = await detailed()
    expect(view.ok).toBe(false)
    expect(view.upstreams.dexscreener).toMatchObject({ ok: false, error: expect.any(String) })
    expect(view.rpc.ok).toBe(true)
    read.upstream.clearFaults()

    deploy.chain.setRpcDown(true)
    view = await detailed()
    expect(view).toMatchObject({
      ok: false,
      rpc: { ok: false },
      signer: { ok: false },
      store: { ok: true },
      upstreams: { dexscreener: { ok: true } },
    })
    deploy.chain.setRpcDown(false)

    deploy.kms.setDown(true)
    view = await detailed(handlerFor({ HEALTH_TOKEN: TOKEN }, deploy.newInstance())) // a fresh instance has no cached key
    expect(view).toMatchObject({ ok: false, signer: { ok: false, error: 'KmsSignerError' }, rpc: { ok: true } })
    deploy.kms.setDown(false)

    read.upstash!.setUnreachable(true)
    const publicView = await (await handlerFor()(get())).json()
    expect(publicView).toEqual({ ok: false, version: expect.any(String), dataAgeSeconds: null, lastTickAgeSeconds: null })
    view = await detailed()
    expect(view).toMatchObject({ ok: false, store: { ok: false, error: 'StoreError' }, rpc: { ok: true } })
    read.upstash!.setUnreachable(false)

    expect((await detailed()).ok).toBe(true)
  })

  it('shows GeckoTerminal up, and down while every instance backs off after its 429', async () => {
    const withGecko = await startReadStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), withGecko: true })
    try {
      const handle = withOpenApiCheck(
        '/api/health',
        createHealthEndpoint({
          read: () => withGecko.services,
          deploy: deployServicesFrom(() => deploy.newInstance().services),
          config: () => loadHealthConfig({ HEALTH_TOKEN: TOKEN }),
        }),
      )
      const calls = withGecko.gecko!.requests.length
      let view = (await (await handle(get(bearer))).json()) as Record<string, any>
      expect(view.upstreams.geckoterminal).toEqual({ ok: true, backingOff: false })
      await withGecko.store.set(`${withGecko.services.keyPrefix}gecko:backoff`, '1', 60_000)
      view = (await (await handle(get(bearer))).json()) as Record<string, any>
      expect(view).toMatchObject({ ok: false, upstreams: { geckoterminal: { ok: false, backingOff: true } } })
      // Never probed: its 30 calls a minute are for data.
      expect(withGecko.gecko!.requests.length).toBe(calls)
    } finally {
      await withGecko.close()
    }
  })

  it('shows the last tick: its age to anyone, what it did and what failed to the operator; a stopped schedule is not ok', async () => {
    // The tick it runs and the time it lets pass are undone after, so the other cases see the service as they left it.
    const clockBefore = read.clock.now
    onTestFinished(async () => {
      read.clock.now = clockBefore
      await read.store.delete(tickKeys(read.services.keyPrefix).last)
    })
    const instance = deploy.newInstance()
    const summary = await runTick({
      read: read.services,
      deploy: async () => instance.services,
      caller: 'vercel-cron',
      intervalSeconds: 60,
    })
    expect(summary.ran).toBe(true)
    read.clock.now += 7_000
    expect(await (await handlerFor()(get())).json()).toMatchObject({ lastTickAgeSeconds: 7 })
    let view = await detailed(handlerFor({ HEALTH_TOKEN: TOKEN }, instance))
    expect(view.tick).toMatchObject({
      ok: true,
      lastTick: { caller: 'vercel-cron', failed: [], parts: { controlRoom: { ok: true }, snapshot: { ok: true }, deploys: { ok: true } } },
    })
    read.clock.now += 11 * 60_000
    view = await detailed(handlerFor({ HEALTH_TOKEN: TOKEN }, instance))
    expect(view.tick).toMatchObject({ ok: false })
    expect(view.ok).toBe(false)
  })
})
