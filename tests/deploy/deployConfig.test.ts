import { parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { digestAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { loadDeployConfig } from '../../lib/deploy/config.js'
import { createB20SkillEndpoint } from '../../lib/deploy/endpoint.js'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { BASE_UNISWAP_V4 } from '../../lib/deploy/pool/addresses.js'
import { createDeployServices } from '../../lib/deploy/services.js'
import { ConfigError } from '../../lib/platform/config.js'
import type { Endpoint } from '../../lib/platform/edge.js'
import { silentLogger } from '../../lib/platform/log.js'
import { type AnvilChain, startAnvilChain } from '../support/anvil.js'
import { type FakeKms, startFakeKms } from '../support/fakeKms.js'
import { withOpenApiCheck } from '../support/openapiCheck.js'

const KEY = 'config-test-agent-key-0123456789'
const post = (endpoint: Endpoint, body: unknown, key: string | null = KEY) =>
  withOpenApiCheck(
    '/api/b20-skill',
    endpoint,
  )(
    new Request('https://svc.test/api/b20-skill', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key === null ? {} : { 'x-service-key': key }) },
      body: JSON.stringify(body),
    }),
  ).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, any> }))

describe('loadDeployConfig', () => {
  it('has safe defaults: Base mainnet, basescan, cap 20 per 24 h, no signer, nobody allowed', () => {
    expect(loadDeployConfig({})).toMatchObject({
      allowlist: [],
      kmsKeyId: null,
      rpcUrl: 'https://mainnet.base.org',
      chainId: 8453,
      explorerUrl: 'https://basescan.org',
      dailyCap: 20,
      capWindowSeconds: 86_400,
      agentDailyCap: null,
      redis: null,
    })
    expect(loadDeployConfig({ CHAIN_ID: '84532' }).explorerUrl).toBe('https://sepolia.basescan.org')
    // Uniswap v4 and Permit2 on Base unless set otherwise (another chain, a local one).
    expect(loadDeployConfig({}).uniswapV4).toEqual(BASE_UNISWAP_V4)
    const local = '0x5FbDB2315678afecb367f032d93F642f64180aa3'
    expect(loadDeployConfig({ UNISWAP_V4_POOL_MANAGER: local, PERMIT2_ADDRESS: ' ' }).uniswapV4).toEqual({
      ...BASE_UNISWAP_V4,
      poolManager: local,
    })
  })

  it('names every bad variable, and never echoes a value', () => {
    let message = ''
    try {
      loadDeployConfig({
        DEPLOY_ALLOWLIST: 'my-secret-agent-key',
        KMS_KEY_ID: 'k',
        CHAIN_ID: '1',
        DEPLOY_DAILY_CAP: '-3',
        SIGNER_ADDRESS: 'me',
        UNISWAP_V4_STATE_VIEW: '0x1234',
      })
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      message = (error as Error).message
    }
    expect(message).toContain('DEPLOY_ALLOWLIST: entry 1 is not a lower-case hex SHA-256 digest')
    expect(message).toContain('AWS_REGION: is required when KMS_KEY_ID is set')
    expect(message).toContain('CHAIN_ID: must be 8453 (Base) or 84532')
    expect(message).toContain('DEPLOY_DAILY_CAP: must be at least 0')
    expect(message).toContain('SIGNER_ADDRESS: must be a 0x address')
    expect(message).toContain('UNISWAP_V4_STATE_VIEW: must be a 0x address')
    expect(message).not.toContain('my-secret-agent-key')
  })

  it('bounds a pooled launch’s starting market cap, 1 to 1,000,000 ETH by default, refusing bounds that cross or are not ETH', () => {
    expect(loadDeployConfig({}).poolMarketCap).toEqual({ minWei: parseEther('1'), maxWei: parseEther('1000000') })
    expect(loadDeployConfig({ POOL_MIN_MARKET_CAP_ETH: '0.5', POOL_MAX_MARKET_CAP_ETH: '250' }).poolMarketCap).toEqual({
      minWei: parseEther('0.5'),
      maxWei: parseEther('250'),
    })
    const problems = (env: Record<string, string>) => {
      try {
        loadDeployConfig(env)
        return ''
      } catch (error) {
        return (error as Error).message
      }
    }
    expect(problems({ POOL_MIN_MARKET_CAP_ETH: '20', POOL_MAX_MARKET_CAP_ETH: '10' })).toContain(
      'POOL_MIN_MARKET_CAP_ETH: must not be above POOL_MAX_MARKET_CAP_ETH',
    )
    expect(problems({ POOL_MIN_MARKET_CAP_ETH: '2000000' })).toContain('POOL_MIN_MARKET_CAP_ETH: must not be above POOL_MAX_MARKET_CAP_ETH')
    expect(problems({ POOL_MAX_MARKET_CAP_ETH: '1e20' })).toContain('POOL_MAX_MARKET_CAP_ETH: must be an amount of ETH above 0')
    expect(problems({ POOL_MIN_MARKET_CAP_ETH: '0' })).toContain('POOL_MIN_MARKET_CAP_ETH: must be an amount of ETH above 0')
  })
})

describe('deploy services built from the environment alone', () => {
  let chain: AnvilChain
  let kms: FakeKms
  const saved = { ...process.env }
  beforeAll(async () => {
    chain = await startAnvilChain()
    kms = await startFakeKms()
    // What an operator sets: the SDK finds the KMS endpoint and credentials in the environment by itself.
    Object.assign(process.env, { AWS_ENDPOINT_URL_KMS: kms.url, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' })
  })
  afterAll(async () => {
    for (const key of ['AWS_ENDPOINT_URL_KMS', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
      if (saved[key] === undefined) delete process.env[key]
      else process.env[key] = saved[key]
    }
    await chain.stop()
    await kms.close()
  })

  const env = () => ({ DEPLOY_ALLOWLIST: digestAgentKey(KEY), KMS_KEY_ID: kms.keyArn, AWS_REGION: 'us-east-1', BASE_RPC_URL: chain.rpcUrl })

  it('deploys on the in-process store with the SDK pointed at AWS_ENDPOINT_URL_KMS', async () => {
    const services = createDeployServices({ env: env(), logger: silentLogger })
    expect(services.store?.kind).toBe('memory')
    await chain.fund((await services.getSigner!()).address)
    const { body } = await post(createB20SkillEndpoint(deployServicesFrom(() => services)), {
      action: 'agent_deploy',
      name: 'Env Token',
      symbol: 'ENV',
    })
    expect(body).toMatchObject({ ok: true, status: 'broadcast' })
    expect(kms.calls).toEqual(['GetPublicKey', 'Sign'])
  })

  it('refuses deploys on Vercel without the shared store, since instances cannot share a lock in memory', async () => {
    const services = createDeployServices({ env: { ...env(), VERCEL: '1' }, logger: silentLogger })
    expect(services.store).toBeNull()
    const { body } = await post(createB20SkillEndpoint(deployServicesFrom(() => services)), {
      action: 'agent_deploy',
      name: 'No Store',
      symbol: 'NOS',
    })
    expect(body).toMatchObject({ ok: false, code: 'DEPLOYS_DISABLED' })
  })

  it('answers a request without X-Service-Key 403, even when the deploy configuration is broken', async () => {
    const handle = createB20SkillEndpoint(deployServicesFrom(() => createDeployServices({ env: { CHAIN_ID: '1' } })))
    const { status, body } = await post(handle, { action: 'agent_deploy', name: 'No Key', symbol: 'NOK' }, null)
    expect(status).toBe(403)
    expect(body).toMatchObject({ ok: false, code: 'FORBIDDEN' })
  })

  it('answers 500 CONFIG_INVALID, and nothing else, when the configuration is broken', async () => {
    const handle = createB20SkillEndpoint(deployServicesFrom(() => createDeployServices({ env: { CHAIN_ID: '1' } })))
    const lines: string[] = []
    const original = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((chunk: string | Uint8Array) => lines.push(String(chunk)) > 0) as typeof process.stderr.write
    try {
      const { status, body } = await post(handle, { action: 'receipt', tx_hash: `0x${'0'.repeat(64)}` })
      expect(status).toBe(500)
      expect(body).toEqual({ ok: false, error: expect.any(String), code: 'CONFIG_INVALID' })
    } finally {
      process.stderr.write = original
    }
    // The operator is told which variable is wrong, in one JSON line.
    const told = lines.map((line) => JSON.parse(line) as Record<string, string>).find((line) => line.event === 'config_invalid')
    expect(told).toMatchObject({ level: 'error', handler: 'b20-skill', message: expect.stringContaining('CHAIN_ID') })
  })
})
