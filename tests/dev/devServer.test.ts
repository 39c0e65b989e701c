import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { Agent, request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ControlRoom } from '../../lib/market/types.js'
import { type FakeDexScreener, startFakeDexScreener } from '../support/fakeDexScreener.js'
import { type NpmStart, startNpmStart, TYPESCRIPT_ARGS } from '../support/npmStart.js'
import { fetchChecked } from '../support/openapiCheck.js'
import { createSyntheticMarket } from '../support/syntheticMarket.js'

/** What one request got: Node's own client, which sends any method (fetch refuses TRACE). */
type Answer = { status: number; allow: string | undefined; contentType: string | undefined; body: string; reusedConnection: boolean }

/** Sends `method path` (with `body`, if any) to `base` and reads the whole answer; over `agent`'s connections if given. */
function send(base: string, method: string, path: string, body?: string | Buffer, agent?: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(new URL(path, base), { method, ...(agent ? { agent } : {}) }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          allow: response.headers.allow,
          contentType: response.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
          reusedConnection: outgoing.reusedSocket,
        }),
      )
    })
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

/** `npm start` as a user runs it: the real api/ modules, configured only through the environment. */
describe('npm start (dev/server.ts)', () => {
  let upstream: FakeDexScreener
  let server: NpmStart
  let firstLine: string
  let base: string

  beforeAll(async () => {
    upstream = await startFakeDexScreener(createSyntheticMarket())
    server = await startNpmStart({ DEXSCREENER_BASE_URL: upstream.url })
    ;({ firstLine, url: base } = server)
  })
  afterAll(async () => {
    await server.stop()
    await upstream.close()
  })

  it('says where it listens and which store and upstream it uses', () => {
    expect(firstLine).toMatch(
      /^listening on http:\/\/127\.0\.0\.1:\d+ \(store: in-process memory, upstream: http:\/\/127\.0\.0\.1:\d+, discovery: \S+, tick off\)$/,
    )
  })

  it('serves both read endpoints with the same handlers Vercel runs', async () => {
    const room = await fetchChecked(`${base}/api/control-room`)
    expect(room.status).toBe(200)
    expect(((await room.json()) as ControlRoom).liveActivity).toHaveLength(100)
    const found = await fetchChecked(`${base}/api/token-search?q=weth`)
    expect(found.status).toBe(200)
    const missing = await fetchChecked(`${base}/api/token-search`)
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ code: 'QUERY_REQUIRED' })
    expect((await fetchChecked(`${base}/api/nothing-here`)).status).toBe(404)
  })

  it('answers TRACE on a vercel.json rewrite with 405 and Allow, as on the endpoint it rewrites to', async () => {
    for (const path of ['/skill.md', '/openapi.json', '/llms.txt']) {
      const answer = await send(base, 'TRACE', path)
      expect({ path, status: answer.status, allow: answer.allow }).toEqual({ path, status: 405, allow: 'GET, HEAD, OPTIONS' })
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'METHOD_NOT_ALLOWED' })
    }
  })

  it('answers the next request on a kept-alive connection after refusing an upload to a rewrite it did not read', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const refused = await send(base, 'PUT', '/openapi.json', Buffer.alloc(300 * 1024, 0x61), agent)
      expect(refused.status).toBe(405)
      const next = await send(base, 'GET', '/skill.md', undefined, agent)
      expect({ status: next.status, reusedConnection: next.reusedConnection }).toEqual({ status: 200, reusedConnection: true })
    } finally {
      agent.destroy()
    }
  })

  it('answers a static file asked with another method than GET or HEAD with 405 and Allow: GET, HEAD', async () => {
    for (const [method, path] of [
      ['POST', '/styles.css'],
      ['TRACE', '/'],
      ['DELETE', '/index.html'],
    ] as const) {
      const answer = await send(base, method, path, method === 'POST' ? '{}' : undefined)
      expect({ method, path, status: answer.status, allow: answer.allow }).toEqual({ method, path, status: 405, allow: 'GET, HEAD' })
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'METHOD_NOT_ALLOWED' })
    }
    expect((await send(base, 'GET', '/styles.css')).status).toBe(200)
  })

  it('answers a path it does not serve with a JSON 404, and any method under /api/ that names no endpoint too', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['HEAD', '/nope'],
      ['POST', '/api/nope'],
      ['TRACE', '/api/nope'],
    ] as const) {
      const answer = await send(base, method, path)
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 404 })
      expect(answer.contentType).toContain('application/json')
      if (method !== 'HEAD') expect(JSON.parse(answer.body)).toMatchObject({ code: 'NOT_FOUND' })
    }
  })

  it('refuses to start with a clear message when the configuration is invalid', async () => {
    const bad = spawn(process.execPath, [...TYPESCRIPT_ARGS, 'dev/server.ts'], {
      env: { ...process.env, PORT: '0', UPSTASH_REDIS_REST_URL: 'https://x.upstash.io', UPSTASH_REDIS_REST_TOKEN: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    bad.stderr!.on('data', (d) => (stderr += d))
    const [code] = (await once(bad, 'exit')) as [number]
    expect(code).toBe(1)
    expect(stderr).toContain('UPSTASH_REDIS_REST_TOKEN: is required when UPSTASH_REDIS_REST_URL is set')
  })
})

describe('npm run keygen', () => {
  it('prints a new agent key and the digest that goes into DEPLOY_ALLOWLIST', async () => {
    const { execFileSync } = await import('node:child_process')
    const { digestAgentKey } = await import('../../lib/deploy/agents/agentKeys.js')
    const out = execFileSync(process.execPath, [...TYPESCRIPT_ARGS, 'dev/keygen.ts'], { encoding: 'utf8' })
    const key = /agent key[^:]*: (\S+)/.exec(out)![1]!
    const digest = /digest[^:]*: +(\S+)/.exec(out)![1]!
    expect(key).toMatch(/^bcr_/)
    expect(digest).toBe(digestAgentKey(key))
  })
})

describe('npm test on a machine without the Debian packages it needs', () => {
  it('stops at once with the exact command to run when it cannot install them itself (not root)', async () => {
    const { spawnSync } = await import('node:child_process')
    const { chmodSync, copyFileSync, linkSync, mkdtempSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    // As root the script would install; as anyone else it must explain. Run as `nobody`, it cannot reach the clone
    // when the clone sits in a folder only its owner may enter (as one made by `mktemp -d`), nor this Node when it
    // lives in a home folder's cache: both go into a folder every user may read (Node linked, or copied across disks).
    const shared = mkdtempSync(join(tmpdir(), 'prerequisites-'))
    try {
      chmodSync(shared, 0o755)
      const node = join(shared, 'node')
      try {
        linkSync(process.execPath, node)
      } catch {
        copyFileSync(process.execPath, node)
        chmodSync(node, 0o755)
      }
      copyFileSync('tests/support/ensurePrerequisites.mjs', join(shared, 'ensurePrerequisites.mjs'))
      const script = ['env', 'CHROMIUM_PATH=/nonexistent/chromium', node, 'ensurePrerequisites.mjs']
      const [command, ...args] = process.getuid?.() === 0 ? ['runuser', '-u', 'nobody', '--', ...script] : script
      const run = spawnSync(command!, args, { cwd: shared, encoding: 'utf8' })
      expect(run.stderr).toContain('sudo apt-get install -y --no-install-recommends chromium-headless-shell')
      expect(run.status).toBe(1)
    } finally {
      rmSync(shared, { recursive: true, force: true })
    }
  })

  it('passes silently when everything is there', async () => {
    const { spawnSync } = await import('node:child_process')
    const run = spawnSync(process.execPath, ['tests/support/ensurePrerequisites.mjs'], { encoding: 'utf8' })
    expect(run.status).toBe(0)
    expect(run.stdout + run.stderr).toBe('')
  })
})
