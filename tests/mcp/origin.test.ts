import { describe, expect, it } from 'vitest'
import { digestAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { createAgentRegistry } from '../../lib/deploy/agents/agentRegistry.js'
import { loadDeployConfig } from '../../lib/deploy/config.js'
import type { DeployServicesSource } from '../../lib/deploy/instance.js'
import { createMcpEndpoint } from '../../lib/mcp/endpoint.js'
import { silentLogger } from '../../lib/platform/log.js'
import { judgeOrigin, loadMcpOriginPolicy, type OriginPolicy } from '../../lib/platform/origins.js'
import { createControlRoomEndpoint, createTokenSearchEndpoint } from '../../lib/read/endpoint.js'
import { createReadServices, type ReadServices } from '../../lib/read/services.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import { createLocalThrottle } from '../../lib/store/throttle.js'

const KEY = 'bcr_origin-test-key-000000000000000000'

const servicesByEnv = new Map<string, ReadServices>()
/** One set of read services per environment, as an instance builds it once. */
const createReadServicesOnce = (env: Record<string, string>) => {
  const key = JSON.stringify(env)
  const services = servicesByEnv.get(key) ?? createReadServices({ env, store: createMemoryStore(), logger: silentLogger })
  servicesByEnv.set(key, services)
  return services
}

describe('the MCP origin policy', () => {
  const off = (env: Record<string, string>) => loadMcpOriginPolicy(env)
  const verdict = (origin: string | null, policy: OriginPolicy) => judgeOrigin(origin, policy).kind

  it('off Vercel (npm start): loopback origins and the listed ones; a rebinding name that merely says localhost is refused', () => {
    const policy = off({ MCP_ALLOWED_ORIGINS: 'https://Console.Example.com, http://tools.example:8080/' })
    expect(verdict(null, policy)).toBe('none')
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:5173', 'http://[::1]:3000', 'https://localhost']) {
      expect(verdict(origin, policy), origin).toBe('allowed')
    }
    expect(verdict('https://console.example.com', policy)).toBe('allowed')
    expect(verdict('http://tools.example:8080', policy)).toBe('allowed')
    for (const origin of [
      'http://evil.example',
      'http://localhost.evil.example',
      'http://127.0.0.1.nip.io',
      'null',
      'file://',
      'https://console.example.com.evil',
      'http://tools.example:8081',
    ]) {
      expect(verdict(origin, policy), origin).toBe('refused')
    }
  })

  it('on Vercel: the deployment’s own https origins and the listed ones, loopback no longer', () => {
    const policy = off({
      VERCEL: '1',
      VERCEL_PROJECT_PRODUCTION_URL: 'control.example.com',
      VERCEL_URL: 'bcr-abc123.vercel.app',
      VERCEL_BRANCH_URL: 'bcr-git-main.vercel.app',
    })
    for (const origin of ['https://control.example.com', 'https://bcr-abc123.vercel.app', 'https://bcr-git-main.vercel.app'])
      expect(verdict(origin, policy)).toBe('allowed')
    for (const origin of ['http://control.example.com', 'http://localhost:3000', 'https://other.vercel.app'])
      expect(verdict(origin, policy)).toBe('refused')
  })

  it('names a malformed MCP_ALLOWED_ORIGINS entry', () => {
    expect(() => off({ MCP_ALLOWED_ORIGINS: 'https://ok.example, https://bad.example/path, *' })).toThrow(
      /MCP_ALLOWED_ORIGINS: "https:\/\/bad.example\/path" is not an origin.*MCP_ALLOWED_ORIGINS: "\*"/,
    )
  })
})

describe('POST /api/mcp and the Origin header (MCP transport security)', () => {
  /** An MCP handler whose read handler and deploy services count what reached them. */
  function mcpUnderTest(
    env: Record<string, string> = {},
    tokenSearch: (request: Request) => Response | Promise<Response> = async () => new Response('{}'),
  ) {
    const reached = { controlRoom: 0, deployServices: 0 }
    const deploy: DeployServicesSource = {
      config: () => loadDeployConfig({ DEPLOY_ALLOWLIST: digestAgentKey(KEY) }),
      services: async () => {
        reached.deployServices++
        throw new Error('no services in this test')
      },
      logger: () => silentLogger,
      agents: async () => createAgentRegistry({ store: null, storePrefix: 'test:', now: () => 0 }),
      store: async () => null,
      throttle: async () => createLocalThrottle(() => 0),
      localThrottle: async () => createLocalThrottle(() => 0),
    }
    const { fetch: handle } = createMcpEndpoint({
      controlRoom: async (request: Request) => {
        reached.controlRoom++
        return new Response(JSON.stringify({ liveActivity: [], trending: [], stats: {}, commentary: 'quiet', url: request.url }))
      },
      tokenSearch,
      tokenOhlcv: async () => new Response('{}'),
      launches: async () => new Response('{}'),
      deploy,
      origins: () => loadMcpOriginPolicy(env),
    })
    return { handle, reached }
  }
  const call = (name: string, args: object, headers: Record<string, string> = {}) =>
    new Request('http://127.0.0.1:3000/api/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    })

  it('answers a throttled search_tokens with the seconds of the HTTP answer’s Retry-After, in its text and its content', async () => {
    // The real token-search endpoint, one search a minute per client; the closed upstream port answers nothing.
    const env = { SEARCH_RATE_LIMIT_PER_MINUTE: '1', GECKOTERMINAL_BASE_URL: '', DEXSCREENER_BASE_URL: 'http://127.0.0.1:9' }
    const search = createTokenSearchEndpoint(() => createReadServicesOnce(env))
    const { handle } = mcpUnderTest({}, search.fetch)
    const ask = async () => {
      const answer = await handle(call('search_tokens', { query: 'aero' }, { 'x-real-ip': '203.0.113.77' }))
      return ((await answer.json()) as { result: { content: { text: string }[]; structuredContent: Record<string, unknown> } }).result
    }
    await ask() // the client's one search of the minute
    const throttled = await ask()
    const seconds = throttled.structuredContent.retryAfterSeconds as number
    expect(seconds).toBeGreaterThanOrEqual(1)
    expect(seconds).toBeLessThanOrEqual(60)
    expect(throttled.structuredContent).toMatchObject({ ok: false, code: 'RATE_LIMITED' })
    expect(throttled.content[0]!.text).toContain(`retry in ${seconds} s`)
  })

  it('refuses a page from another origin with 403 before any tool runs, and tells it nothing through CORS', async () => {
    const { handle, reached } = mcpUnderTest()
    for (const request of [
      call('get_control_room', { limit: 1 }, { origin: 'http://evil.example' }),
      call('list_deploys', {}, { origin: 'http://evil.example', authorization: `Bearer ${KEY}` }),
      // The Host a rebinding page's request carries is the victim's; only Origin is the page's own.
      call('get_control_room', {}, { origin: 'http://evil.example:3000', host: 'evil.example:3000' }),
    ]) {
      const answer = await handle(request)
      expect(answer.status).toBe(403)
      expect(answer.headers.get('access-control-allow-origin')).toBeNull()
      expect(await answer.json()).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { message: expect.stringContaining('MCP_ALLOWED_ORIGINS') },
      })
    }
    expect(reached).toEqual({ controlRoom: 0, deployServices: 0 })
    const preflight = await handle(
      new Request('http://127.0.0.1:3000/api/mcp', { method: 'OPTIONS', headers: { origin: 'http://evil.example' } }),
    )
    expect(preflight.status).toBe(403)
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('serves agents that send no Origin, without CORS headers', async () => {
    const { handle, reached } = mcpUnderTest()
    const answer = await handle(call('get_control_room', { limit: 1 }))
    expect(answer.status).toBe(200)
    expect(answer.headers.get('access-control-allow-origin')).toBeNull()
    expect(reached.controlRoom).toBe(1)
  })

  it('serves an allowed origin with CORS for that origin alone (never *), preflight included', async () => {
    const { handle, reached } = mcpUnderTest({ MCP_ALLOWED_ORIGINS: 'https://console.example.com' })
    const answer = await handle(call('get_control_room', { limit: 1 }, { origin: 'https://console.example.com' }))
    expect(answer.status).toBe(200)
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://console.example.com')
    expect(answer.headers.get('vary')).toContain('Origin')
    expect(reached.controlRoom).toBe(1)
    const preflight = await handle(
      new Request('http://127.0.0.1:3000/api/mcp', { method: 'OPTIONS', headers: { origin: 'https://console.example.com' } }),
    )
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://console.example.com')
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Authorization')
    const refusedMethod = await handle(new Request('http://127.0.0.1:3000/api/mcp', { headers: { origin: 'https://console.example.com' } }))
    expect(refusedMethod.status).toBe(405)
    expect(refusedMethod.headers.get('access-control-allow-origin')).toBe('https://console.example.com')
  })

  it('answers CONFIG_INVALID for a malformed MCP_ALLOWED_ORIGINS, running nothing', async () => {
    const { handle, reached } = mcpUnderTest({ MCP_ALLOWED_ORIGINS: 'not an origin' })
    const answer = await handle(call('get_control_room', {}))
    expect(answer.status).toBe(500)
    expect(await answer.json()).toMatchObject({ code: 'CONFIG_INVALID' })
    expect(reached.controlRoom).toBe(0)
  })

  it('leaves the read endpoints open to every origin, as the spec requires', async () => {
    // A closed loopback port as the upstream: a preflight never asks it anything.
    const env = { GECKOTERMINAL_BASE_URL: '', DEXSCREENER_BASE_URL: 'http://127.0.0.1:9' }
    const read = createControlRoomEndpoint(() => createReadServices({ env, store: createMemoryStore(), logger: silentLogger })).fetch
    const answer = await read(
      new Request('http://127.0.0.1:3000/api/control-room', { method: 'OPTIONS', headers: { origin: 'http://evil.example' } }),
    )
    expect(answer.headers.get('access-control-allow-origin')).toBe('*')
  })
})
