import { describe, expect, it } from 'vitest'
import { digestAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { createB20SkillEndpoint } from '../../lib/deploy/endpoint.js'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { createDeployServices } from '../../lib/deploy/services.js'
import { createLaunchesEndpoint } from '../../lib/launches/endpoint.js'
import { createMcpEndpoint } from '../../lib/mcp/endpoint.js'
import { createPaidDeployEndpoint } from '../../lib/payments/endpoint.js'
import { paymentsSourceFrom } from '../../lib/payments/instance.js'
import { createEndpoint } from '../../lib/platform/edge.js'
import { NotFoundError } from '../../lib/platform/errors.js'
import { silentLogger } from '../../lib/platform/log.js'
import { loadMcpOriginPolicy } from '../../lib/platform/origins.js'
import { createCachedReadEndpoint } from '../../lib/read/cachedReadEndpoint.js'
import { createReadServices } from '../../lib/read/services.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import { flakyStore } from '../support/flakyStore.js'

// One error path: a not-found thrown anywhere below an endpoint (its handler, a read, an agent action, a tool) is a 404
// with its own code on every path, in the body shape that path documents (`ok: false` on the agent doors, none on the
// reads), never a 500.

const KEY = 'not-found-test-agent-key-0123456789'
const gone = () => new NotFoundError('NO_SUCH_RECORD', 'There is no such record.')
/** A store in which every record is gone: each call throws the not-found. */
const goneStore = () => flakyStore(createMemoryStore(), () => true, gone)
const readServices = () => createReadServices({ env: { GECKOTERMINAL_BASE_URL: '' }, store: goneStore(), logger: silentLogger })
const deploySource = () => {
  const services = createDeployServices({ env: { DEPLOY_ALLOWLIST: digestAgentKey(KEY) }, store: goneStore(), logger: silentLogger })
  return deployServicesFrom(() => services)
}
const get = (path: string, method = 'GET') => new Request(`https://svc.test${path}`, { method })
const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> })

describe('a thrown not-found', () => {
  it('is a 404 with its code from any handler behind the edge (health, tick, stream, the documents), no body on HEAD', async () => {
    const endpoint = createEndpoint({
      methods: ['GET', 'HEAD'],
      handler: () => {
        throw gone()
      },
    })
    const answer = await endpoint.fetch(get('/api/anything'))
    expect(await json(answer)).toEqual({ status: 404, body: { error: 'There is no such record.', code: 'NO_SUCH_RECORD' } })
    expect(answer.headers.get('cache-control')).toBe('no-store')
    expect(answer.headers.get('x-request-id')).toBeTruthy()
    const head = await endpoint.fetch(get('/api/anything', 'HEAD'))
    expect(head.status).toBe(404)
    expect(await head.text()).toBe('')
  })

  it('is a 404 on a read endpoint, wherever in it the not-found is thrown', async () => {
    const services = readServices()
    const throwingIn = (where: 'parse' | 'read') =>
      createCachedReadEndpoint<undefined>({
        name: 'test_read',
        services: () => services,
        parseInput: () => {
          if (where === 'parse') throw gone()
          return { ok: true, input: undefined }
        },
        read: async () => {
          throw gone()
        },
        upstreamFailure: { status: 502, code: 'UPSTREAM_ERROR', message: 'The upstream failed.' },
      })
    for (const where of ['parse', 'read'] as const) {
      expect(await json(await throwingIn(where).fetch(get('/api/test'))), where).toEqual({
        status: 404,
        body: { error: 'There is no such record.', code: 'NO_SUCH_RECORD' },
      })
    }
  })

  it('is a 404 on the launches feed when its store says the feed is gone', async () => {
    const services = readServices()
    const launches = createLaunchesEndpoint({ read: () => services, config: () => ({ publicLaunches: true, chainId: 8453 }) })
    expect(await json(await launches.fetch(get('/api/launches')))).toEqual({
      status: 404,
      body: { error: 'There is no such record.', code: 'NO_SUCH_RECORD' },
    })
  })

  it('is a 404 with ok: false on the agent door, from inside an action', async () => {
    const door = createB20SkillEndpoint(deploySource())
    const request = new Request('https://svc.test/api/b20-skill', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-key': KEY },
      body: JSON.stringify({ action: 'list_deploys' }),
    })
    expect(await json(await door.fetch(request))).toEqual({
      status: 404,
      body: { ok: false, error: 'There is no such record.', code: 'NO_SUCH_RECORD' },
    })
  })

  it('is a 404 with ok: false on the paid door', async () => {
    // The door's own source, with its settings gone.
    const source = {
      ...paymentsSourceFrom({ deploy: deploySource(), env: {} }),
      config: () => {
        throw gone()
      },
    }
    const request = new Request('https://svc.test/api/x402/deploy', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Gone', symbol: 'GONE' }),
    })
    expect(await json(await createPaidDeployEndpoint(source).fetch(request))).toEqual({
      status: 404,
      body: { ok: false, error: 'There is no such record.', code: 'NO_SUCH_RECORD' },
    })
  })

  it('is a tool error with its code on MCP, for an agent tool and for a read tool', async () => {
    const services = readServices()
    const launches = createLaunchesEndpoint({ read: () => services, config: () => ({ publicLaunches: true, chainId: 8453 }) })
    const unused = async () => new Response('{}')
    const mcp = createMcpEndpoint({
      controlRoom: unused,
      tokenSearch: unused,
      tokenOhlcv: unused,
      launches: launches.fetch,
      deploy: deploySource(),
      origins: () => loadMcpOriginPolicy({}),
    })
    const call = async (name: string) => {
      const response = await mcp.fetch(
        new Request('http://127.0.0.1:3000/api/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-service-key': KEY },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }),
        }),
      )
      return ((await response.json()) as { result: { isError?: boolean; structuredContent: Record<string, unknown> } }).result
    }
    for (const tool of ['list_deploys', 'list_launches']) {
      const result = await call(tool)
      expect(result.isError, tool).toBe(true)
      expect(result.structuredContent, tool).toMatchObject({ ok: false, code: 'NO_SUCH_RECORD', error: 'There is no such record.' })
    }
  })
})
