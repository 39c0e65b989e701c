import { setImmediate } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { createEndpoint } from '../../lib/platform/edge.js'
import { jsonResponse } from '../../lib/platform/http.js'
import { createLogger } from '../../lib/platform/log.js'

type Line = Record<string, string>
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const get = (init: RequestInit & { url?: string } = {}) => new Request(init.url ?? 'https://svc.example/api/control-room?x=1', init)
const ok = () => jsonResponse({ body: '{"ok":true}' })

describe('what every endpoint answers the same way', () => {
  it('redirects plain HTTP (as the edge reports it) to the same path on the public https origin, never a client-named host', async () => {
    const plain = get({
      url: 'http://svc.example/api/token-search?q=eth',
      headers: { 'x-forwarded-proto': 'http', 'x-forwarded-host': 'evil.example', host: 'evil.example' },
    })
    const endpoint = (origin: string | null) => createEndpoint({ methods: ['GET'], handler: ok, publicOriginOf: () => origin })
    const response = await endpoint('https://svc.example').fetch(plain)
    expect(response.status).toBe(308)
    expect(response.headers.get('location')).toBe('https://svc.example/api/token-search?q=eth')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('x-request-id')).toMatch(UUID)
    // With no https public origin there is nowhere safe to send the client: it is served.
    expect((await endpoint(null).fetch(plain)).status).toBe(200)
    expect((await endpoint('http://127.0.0.1:3000').fetch(plain)).status).toBe(200)
  })

  it('answers a preflight with 204 and the CORS headers, without running the handler', async () => {
    let ran = 0
    const endpoint = createEndpoint({
      methods: ['GET', 'HEAD'],
      handler: () => {
        ran++
        return ok()
      },
    })
    const response = await endpoint.fetch(get({ method: 'OPTIONS', headers: { origin: 'https://page.example' } }))
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-methods')).toBe('GET,HEAD,OPTIONS')
    expect(response.headers.get('access-control-allow-headers')).toContain('X-Service-Key')
    expect(response.headers.get('access-control-max-age')).toBe('86400')
    expect(response.headers.get('access-control-allow-credentials')).toBeNull()
    expect(ran).toBe(0)
  })

  it('keeps the preflight-only CORS headers off actual answers (fewer bytes on every poll)', async () => {
    const response = await createEndpoint({ methods: ['GET'], handler: ok }).fetch(get())
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-expose-headers')).toBe(
      'ETag,Retry-After,X-Data-State,X-Data-Age,X-Data-Source,X-Request-Id,RateLimit,RateLimit-Policy',
    )
    expect(response.headers.get('access-control-allow-methods')).toBeNull()
    expect(response.headers.get('access-control-max-age')).toBeNull()
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('answers other methods with 405 and Allow, CORS and an id included', async () => {
    const response = await createEndpoint({ methods: ['GET', 'HEAD'], handler: ok }).fetch(get({ method: 'DELETE' }))
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('x-request-id')).toMatch(UUID)
    expect(await response.json()).toEqual({ error: expect.stringContaining('DELETE'), code: 'METHOD_NOT_ALLOWED' })
  })

  it('answers a handler that throws with a logged 500, and no detail', async () => {
    const lines: string[] = []
    const write = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((chunk: string) => lines.push(String(chunk)) > 0) as typeof process.stderr.write
    try {
      const response = await createEndpoint({
        methods: ['GET'],
        handler: () => {
          // A client library's error: its message may hold a URL with its key, so only its name is logged.
          throw new Error('connect ECONNREFUSED https://rpc.example/v2/secret-detail')
        },
      }).fetch(get())
      expect(response.status).toBe(500)
      // The one INTERNAL answer of every path: the request id to quote, in the body as on the header.
      const requestId = response.headers.get('x-request-id')
      expect(await response.json()).toEqual({ error: expect.stringContaining(requestId!), code: 'INTERNAL', requestId })
    } finally {
      process.stderr.write = write
    }
    expect(lines.join('')).toContain('"handler_failed"')
    expect(lines.join('')).not.toContain('secret-detail')
  })
})

describe('request ids', () => {
  /** An endpoint whose handler logs before and after an await, and once more from work it leaves running after it answered. */
  function loggingEndpoint(lines: Line[]) {
    const logger = createLogger({ write: (line) => lines.push(JSON.parse(line) as Line) })
    const background: Promise<void>[] = []
    const endpoint = createEndpoint({
      methods: ['GET'],
      handler: async (request) => {
        const name = new URL(request.url).searchParams.get('n') ?? ''
        logger.info('start', { name })
        // Interleave the requests: each waits a different number of event-loop turns (no clock involved).
        for (let turn = 0; turn < name.charCodeAt(0) % 5; turn++) await setImmediate()
        logger.info('end', { name })
        background.push(setImmediate().then(() => logger.info('after', { name })))
        return new Response('{}')
      },
    })
    return { endpoint, settled: () => Promise.all(background) }
  }

  it('gives each answer an X-Request-Id, and every line written while serving it (background work too) the same id', async () => {
    const lines: Line[] = []
    const { endpoint, settled } = loggingEndpoint(lines)
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((n) => endpoint.fetch(new Request(`http://x/?n=${n}`))))
    await settled()
    const ids = answers.map((a) => a.headers.get('x-request-id')!)
    for (const id of ids) expect(id).toMatch(UUID)
    expect(new Set(ids).size).toBe(4)
    expect(lines).toHaveLength(12)
    for (const [i, n] of ['a', 'b', 'c', 'd'].entries()) {
      expect(lines.filter((l) => l.name === n).map((l) => l.requestId)).toEqual([ids[i], ids[i], ids[i]])
    }
  })

  it('takes Vercel’s x-vercel-id when it is well formed, and makes its own for anything else', async () => {
    const endpoint = createEndpoint({ methods: ['GET'], handler: () => new Response(null) })
    const vercelId = 'cdg1::iad1::6fxq4-1732350000000-6a1b2c3d4e5f'
    const id = async (value: string) =>
      (await endpoint.fetch(new Request('http://x/', { headers: { 'x-vercel-id': value } }))).headers.get('x-request-id')
    expect(await id(vercelId)).toBe(vercelId)
    expect(await id('not an id" {}')).toMatch(UUID)
    expect(await id('a'.repeat(129))).toMatch(UUID)
    // A client's own X-Request-Id is not taken: ids in the log are the service's.
    const answer = await endpoint.fetch(new Request('http://x/', { headers: { 'x-request-id': 'chosen-by-client' } }))
    expect(answer.headers.get('x-request-id')).toMatch(UUID)
  })

  it('keeps the outer id for an endpoint called from inside another, even when its answer’s headers are immutable', async () => {
    const inner = createEndpoint({ methods: ['GET'], handler: () => Response.redirect('http://x/elsewhere', 308) })
    const outer = createEndpoint({
      methods: ['GET'],
      handler: async (request) => {
        const nested = await inner.fetch(request)
        return new Response(nested.headers.get('x-request-id'), { status: nested.status })
      },
    })
    const answer = await outer.fetch(new Request('http://x/'))
    expect(await answer.text()).toBe(answer.headers.get('x-request-id'))
    expect((await inner.fetch(new Request('http://x/'))).headers.get('x-request-id')).toMatch(UUID)
  })

  it('answers a warm read at once, with an id, and hands anything it does not answer to the middleware', async () => {
    let handled = 0
    const endpoint = createEndpoint({
      methods: ['GET', 'HEAD'],
      handler: () => {
        handled++
        return ok()
      },
      answerAtOnce: (request, requestId) =>
        new URL(request.url).searchParams.has('warm') ? new Response('{}', { headers: { 'x-request-id': requestId } }) : null,
    })
    const warm = endpoint.fetch(get({ url: 'https://svc.example/api/control-room?warm' }))
    expect(warm).toBeInstanceOf(Response) // no promise to wait for
    expect((warm as Response).headers.get('x-request-id')).toMatch(UUID)
    expect(handled).toBe(0)
    expect((await endpoint.fetch(get())).status).toBe(200)
    // A method the read does not serve, or a plain-HTTP request, never takes the fast path.
    expect((await endpoint.fetch(get({ url: 'https://svc.example/api/control-room?warm', method: 'POST' }))).status).toBe(405)
    expect(handled).toBe(1)
  })
})
