import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { generateAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { type BarrageAnswer, generateBarrage, sendBarrage } from '../support/barrage.js'
import { type FakeGeckoTerminal, startFakeGeckoTerminal } from '../support/fakeGeckoTerminal.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { type ServiceParts, startServiceParts } from '../support/serviceParts.js'
import { createSyntheticMarket } from '../support/syntheticMarket.js'

/** Replay a failure with BARRAGE_SEED=<seed printed in the failure>. */
const SEED = Number(process.env.BARRAGE_SEED ?? 20261123)
/**
 * Enough for every path to reach its real work and its refusals; what is rare at this count is also sent on purpose
 * (below). 10,500 once: the same cases held at 5,000 over ten seeds but for the 413, now sent on purpose.
 */
const COUNT = 5_000
const AWS_SECRET = 'barrage-aws-secret-key-7f3e9a1c5b'
const HEALTH_TOKEN = 'barrage-health-token-0123456789'
const CRON_SECRET = 'barrage-cron-secret-0123456789'

/**
 * What each path the service serves documents (README, docs/api.md, OpenAPI): the statuses it may answer, the `Allow`
 * of its 405 (the methods it takes; without one, every method gets the same 404), the codes a 400 may carry (none
 * listed: MCP answers JSON-RPC errors) and the type of its 2xx bodies. Anything else is a failure. Every path may
 * answer 400 MALFORMED_REQUEST: what Node cannot parse as HTTP (an unknown method, an oversized header; a DELETE,
 * OPTIONS or TRACE whose body Node's own client sends unframed, so its bytes read as the next request). The only 5xx
 * documented is the stream's 503 (STREAMS_FULL, UPSTREAM_UNAVAILABLE).
 */
type PathContract = { statuses: number[]; allow?: string; badRequestCodes?: string[]; type?: string }

const JSON_TYPE = 'application/json'
const read = (extra: number[] = [], codes: string[] = []): PathContract => ({
  statuses: [200, 204, 304, 308, 400, 405, ...extra],
  allow: 'GET, HEAD, OPTIONS',
  badRequestCodes: ['MALFORMED_REQUEST', ...codes],
  type: JSON_TYPE,
})
const document = (type: string): PathContract => ({
  statuses: [200, 204, 308, 400, 405],
  allow: 'GET, HEAD, OPTIONS',
  badRequestCodes: ['MALFORMED_REQUEST'],
  type,
})
const file = (type: string): PathContract => ({
  statuses: [200, 400, 405],
  allow: 'GET, HEAD',
  badRequestCodes: ['MALFORMED_REQUEST'],
  type,
})
const unknown: PathContract = { statuses: [400, 404, 405], allow: 'GET, HEAD', badRequestCodes: ['MALFORMED_REQUEST', 'MALFORMED_PATH'] }

const PATHS: Record<string, PathContract> = {
  '/api/control-room': read(),
  '/api/token-search': read([429], ['QUERY_REQUIRED', 'QUERY_TOO_LONG']),
  '/api/token-history': read([404, 429], ['INVALID_ADDRESS', 'INVALID_PARAMETER']),
  '/api/market-history': read([], ['INVALID_PARAMETER']),
  '/api/token-ohlcv': read([404, 429], ['INVALID_PARAMETER']),
  '/api/launches': read([], ['INVALID_PARAMETER']),
  '/api/stream': {
    statuses: [200, 204, 308, 400, 405, 429, 503],
    allow: 'GET, OPTIONS',
    badRequestCodes: ['MALFORMED_REQUEST'],
    type: 'text/event-stream',
  },
  '/api/b20-skill': {
    statuses: [200, 204, 308, 400, 403, 405, 413],
    allow: 'POST, OPTIONS',
    badRequestCodes: ['INVALID_JSON', 'UNSUPPORTED_CONTENT_TYPE', 'MALFORMED_REQUEST'],
    type: JSON_TYPE,
  },
  '/api/mcp': { statuses: [200, 202, 204, 308, 400, 403, 405, 406, 413, 415], allow: 'POST, OPTIONS' },
  '/api/health': read([401]),
  '/api/tick': {
    statuses: [200, 204, 308, 400, 401, 405, 413],
    allow: 'GET, POST, OPTIONS',
    badRequestCodes: ['MALFORMED_REQUEST'],
    type: JSON_TYPE,
  },
  '/api/openapi': document(JSON_TYPE),
  '/api/skill': document('text/markdown'),
  '/api/llms': document('text/plain'),
  // vercel.json's rewrites answer as the endpoints they rewrite to.
  '/openapi.json': document(JSON_TYPE),
  '/skill.md': document('text/markdown'),
  '/llms.txt': document('text/plain'),
  // The dashboard's files.
  '/': file('text/html'),
  '/index.html': file('text/html'),
  '/styles.css': file('text/css'),
  '/app.js': file('text/javascript'),
  // Paths nobody serves, a few of them reaching for files outside public/.
  '/nope': unknown,
  '/..%2fpackage.json': unknown,
  '/modules/..%2f..%2fpackage.json': unknown,
  '/.git/config': unknown,
  '/%ZZ': unknown,
  '/api/nope': { statuses: [400, 404], badRequestCodes: ['MALFORMED_REQUEST'] },
}
const WITHOUT_BODY = new Set([202, 204, 304, 308])

/** The path a barrage request asked for, without its query: the key of {@link PATHS}. */
const pathOf = (a: BarrageAnswer) => a.request.path.replace(/\?.*$/, '')
/** True for the 400 Node answers to what it cannot parse as HTTP. */
const unparsed = (a: BarrageAnswer) => 'status' in a && a.status === 400 && a.body.includes('"MALFORMED_REQUEST"')

describe(`a barrage of ${COUNT} hostile requests against npm start, over every path it serves (seed ${SEED})`, () => {
  let parts: ServiceParts
  let service: NpmStart
  let gecko: FakeGeckoTerminal
  let answers: BarrageAnswer[]
  const agent = generateAgentKey()

  beforeAll(async () => {
    parts = await startServiceParts({
      redisSocket: inject('redisSocket'),
      allowlist: [agent.digest],
      storePrefix: `barrage${process.pid}:`,
      awsSecret: AWS_SECRET,
      env: { HEALTH_TOKEN, CRON_SECRET },
    })
    // Candles from a GeckoTerminal-shaped server over the same market, so candle requests reach real work too.
    gecko = await startFakeGeckoTerminal(createSyntheticMarket())
    // Behind one trusted proxy, as on a host: each request's client is the last X-Forwarded-For entry it carries.
    service = await startNpmStart({ ...parts.env, GECKOTERMINAL_BASE_URL: gecko.url, TRUST_PROXY: '1' })
    const room = (await (await fetch(`${service.url}/api/control-room`)).json()) as { liveActivity: { address: string }[] }
    const requests = generateBarrage({
      seed: SEED,
      count: COUNT,
      paths: Object.keys(PATHS),
      validKey: agent.key,
      bearers: [CRON_SECRET, HEALTH_TOKEN],
      knownAddresses: room.liveActivity.slice(0, 20).map((token) => token.address),
    })
    // Rare by chance (a body past 16 KiB to the deploy door, with a key), so sent on purpose: its 413 is asked below.
    requests.push({
      method: 'POST',
      path: '/api/b20-skill',
      headers: { 'content-type': 'application/json', 'x-service-key': agent.key },
      body: Buffer.alloc(17 * 1024, 0x61),
      chunked: false,
      fresh: false,
    })
    answers = await sendBarrage(service.url, requests)
  }, 300_000)
  afterAll(async () => {
    await service?.stop()
    await parts?.close()
    await gecko?.close()
  })

  const describeRequest = (a: BarrageAnswer) =>
    `${a.request.method} ${a.request.path.slice(0, 80)} ${JSON.stringify(a.request.headers).slice(0, 200)} body ${a.request.body?.length ?? 0} B`
  const answered = () => answers.filter((a): a is Extract<BarrageAnswer, { status: number }> => 'status' in a)

  // How fast it answers is the benchmarks' to measure (`npm run bench`); here, only that nothing is left hanging: the
  // client gives up on a request after 10 s of silence, and that is a failure.
  it('answers every request: no reset, no timeout', () => {
    const failed = answers.filter((a) => 'error' in a)
    expect(failed.map((a) => `${describeRequest(a)}: ${'error' in a ? a.error : ''}`)).toEqual([])
  })

  it('answers every request with a status its path documents: no 5xx but the stream’s documented 503', () => {
    const wrong = answered().filter((a) => !PATHS[pathOf(a)]!.statuses.includes(a.status))
    expect(wrong.map((a) => `${a.status} for ${describeRequest(a)}`)).toEqual([])
  })

  it('answers every method a path does not take with 405 and its Allow, and only those, whatever the path', () => {
    const wrong = answered().filter((a) => {
      const { allow } = PATHS[pathOf(a)]!
      if (!allow) return a.status === 405
      const taken = allow.split(', ').includes(a.request.method)
      if (taken) return a.status === 405
      return !unparsed(a) && (a.status !== 405 || a.allow !== allow)
    })
    expect(wrong.map((a) => `${a.status} Allow: ${a.allow} for ${describeRequest(a)}`)).toEqual([])
  })

  it('says why in every 400, with a code the path documents', () => {
    const wrong = answered().filter((a) => {
      // An answer to HEAD has no body to say why in (HTTP forbids one), whatever its status.
      if (a.status !== 400 || a.request.method === 'HEAD') return false
      const codes = PATHS[pathOf(a)]!.badRequestCodes
      if (!codes) return false // MCP answers JSON-RPC errors
      try {
        return !codes.includes((JSON.parse(a.body) as { code?: string }).code ?? '')
      } catch {
        return true
      }
    })
    expect(wrong.map((a) => `${a.body.slice(0, 100)} for ${describeRequest(a)}`)).toEqual([])
  })

  it('answers every error as JSON with a code, and every success with a body in its path’s own type', () => {
    const wrong = answered().filter((a) => {
      if (WITHOUT_BODY.has(a.status) || a.request.method === 'HEAD') return false
      const contract = PATHS[pathOf(a)]!
      if (a.status < 400) return contract.type !== undefined && !a.contentType?.startsWith(contract.type)
      if (!a.contentType?.startsWith(JSON_TYPE)) return true
      try {
        const body = JSON.parse(a.body) as { code?: unknown; error?: { code?: unknown } }
        // MCP's own refusals are JSON-RPC errors, whose code is a number inside `error`.
        return typeof body.code !== 'string' && typeof body.error?.code !== 'number'
      } catch {
        return true
      }
    })
    expect(wrong.map((a) => `${a.status} ${a.contentType} ${a.body.slice(0, 80)} for ${describeRequest(a)}`)).toEqual([])
  })

  it('signs nothing: the KMS server saw no Sign for anything unauthorised or invalid', () => {
    expect(parts.kms.calls.filter((c) => c === 'Sign')).toEqual([])
  })

  it('reached the real work: every path that can answered 2xx to some requests, with refusals of every kind', () => {
    const statuses = (path: string) =>
      new Set(
        answered()
          .filter((a) => pathOf(a) === path)
          .map((a) => a.status),
      )
    for (const [path, { statuses: documented }] of Object.entries(PATHS))
      if (documented.includes(200))
        expect(
          [...statuses(path)].some((s) => s >= 200 && s < 300),
          path,
        ).toBe(true)
    expect([...statuses('/api/b20-skill')]).toEqual(expect.arrayContaining([200, 400, 403, 405, 413]))
    expect([...statuses('/api/tick')]).toEqual(expect.arrayContaining([200, 401, 405]))
    expect([...statuses('/api/token-history')]).toEqual(expect.arrayContaining([200, 400, 404]))
  })

  it('tells clients apart by the address the proxy names: more searches answered than one client may make', () => {
    const searches = answered().filter((a) => pathOf(a) === '/api/token-search' && a.status === 200)
    expect(searches.length).toBeGreaterThan(30) // SEARCH_RATE_LIMIT_PER_MINUTE, and the barrage takes under a minute
  })

  it('leaks no secret: no agent key, AWS secret, Redis token, health token or cron secret in any log line, body or header', () => {
    const secrets = [agent.key, AWS_SECRET, parts.upstash.token, HEALTH_TOKEN, CRON_SECRET]
    const leaks: string[] = []
    for (const line of service.lines) for (const secret of secrets) if (line.includes(secret)) leaks.push(`log: ${line.slice(0, 200)}`)
    for (const a of answered())
      for (const secret of secrets) if (a.body.includes(secret) || a.headers.includes(secret)) leaks.push(`answer to ${describeRequest(a)}`)
    expect(leaks).toEqual([])
    expect(service.lines.length).toBeGreaterThan(0) // the logs were captured
  })

  it('is still up and serving afterwards', async () => {
    expect((await fetch(`${service.url}/api/control-room`)).status).toBe(200)
    const health = (await (await fetch(`${service.url}/api/health`)).json()) as { ok: boolean }
    expect(health.ok).toBe(true)
  })
})
