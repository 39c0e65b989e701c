import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { digestAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'

type Line = Record<string, string>
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

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
