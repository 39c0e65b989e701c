import { setImmediate } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { digestAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { createLogger } from '../../lib/platform/log.js'
import { withRequestId } from '../../lib/platform/requestId.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'

type Line = Record<string, string>
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe('withRequestId', () => {
  /** A handler that logs before and after an await, and once more from work it leaves running after it answered. */
  function loggingHandler(lines: Line[]) {
    const logger = createLogger({ write: (line) => lines.push(JSON.parse(line) as Line) })
    const background: Promise<void>[] = []
    const handle = withRequestId(async (request) => {
      const name = new URL(request.url).searchParams.get('n') ?? ''
      logger.info('start', { name })
      // Interleave the requests: each waits a different number of event-loop turns (no clock involved).
      for (let turn = 0; turn < name.charCodeAt(0) % 5; turn++) await setImmediate()
      logger.info('end', { name })
      background.push(setImmediate().then(() => logger.info('after', { name })))
      return new Response('{}')
    })
    return { handle, settled: () => Promise.all(background) }
  }

  it('gives each answer an X-Request-Id, and every line written while serving it (background work too) the same id', async () => {
    const lines: Line[] = []
    const { handle, settled } = loggingHandler(lines)
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((n) => handle(new Request(`http://x/?n=${n}`))))
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
    const handle = withRequestId(() => new Response(null))
    const vercelId = 'cdg1::iad1::6fxq4-1732350000000-6a1b2c3d4e5f'
    const id = async (value: string) =>
      (await handle(new Request('http://x/', { headers: { 'x-vercel-id': value } }))).headers.get('x-request-id')
    expect(await id(vercelId)).toBe(vercelId)
    expect(await id('not an id" {}')).toMatch(UUID)
    expect(await id('a'.repeat(129))).toMatch(UUID)
  })

  it('keeps the outer id for a handler called from inside another, and marks an answer whose headers are immutable', async () => {
    const inner = withRequestId(() => Response.redirect('http://x/elsewhere', 308)) // a redirect's headers are immutable
    const outer = withRequestId(async (request) => {
      const nested = await inner(request)
      return new Response(nested.headers.get('x-request-id'), { status: nested.status })
    })
    const answer = await outer(new Request('http://x/'))
    expect(await answer.text()).toBe(answer.headers.get('x-request-id'))
    expect((await inner(new Request('http://x/'))).headers.get('x-request-id')).toMatch(UUID)
  })
})

describe('request ids on npm start', () => {
  const KEY = 'bcr_request-id-test-key-0123456789abcdef'
  let server: NpmStart
  beforeAll(async () => {
    server = await startNpmStart({ DEPLOY_ALLOWLIST: digestAgentKey(KEY) })
  })
  afterAll(() => server?.stop())

  it('answers every endpoint with X-Request-Id (errors and refusals too), readable cross-origin', async () => {
    const calls: [string, RequestInit][] = [
      ['/api/openapi', {}],
      ['/api/health', {}],
      ['/api/token-search', {}], // 400 QUERY_REQUIRED
      ['/api/control-room', { method: 'DELETE' }], // 405
      ['/api/token-history', { method: 'OPTIONS' }], // preflight
      ['/skill.md', {}],
      ['/api/mcp', { method: 'GET' }],
      ['/api/b20-skill', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }], // 403
    ]
    for (const [path, init] of calls) {
      const answer = await fetch(`${server.url}${path}`, init)
      await answer.arrayBuffer()
      expect(answer.headers.get('x-request-id'), `${init.method ?? 'GET'} ${path}`).toMatch(UUID)
    }
    const answer = await fetch(`${server.url}/api/openapi`)
    expect(answer.headers.get('access-control-expose-headers')).toContain('X-Request-Id')
  })

  it('writes the refusal of a deploy with the id its caller got', async () => {
    const answers = await Promise.all(
      ['bcr_wrong-key-one-000000000000000000', 'bcr_wrong-key-two-000000000000000000'].map((key) =>
        fetch(`${server.url}/api/b20-skill`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-key': key },
          body: JSON.stringify({ action: 'list_deploys' }),
        }),
      ),
    )
    const ids = answers.map((a) => a.headers.get('x-request-id'))
    expect(answers.map((a) => a.status)).toEqual([403, 403])
    await expect
      .poll(() => server.lines.filter((l) => l.includes('"deploy_refused"')).map((l) => (JSON.parse(l) as Line).requestId))
      .toEqual(expect.arrayContaining(ids))
  })
})
