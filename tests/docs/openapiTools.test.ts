import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOpenApiEndpoint } from '../../lib/docs/endpoint.js'
import { type FakeDexScreener, startFakeDexScreener } from '../support/fakeDexScreener.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { lintWithRedocly } from '../support/openapiLinters.js'
import { createSyntheticMarket } from '../support/syntheticMarket.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Runs a Node program from the project (asynchronously: npm start answers from another process, the upstream from this one). */
function run(args: string[], cwd = ROOT): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, args, { cwd, encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  )
}

describe('the served OpenAPI document and standard tools', () => {
  let served: { paths: Record<string, Record<string, { security?: unknown }>> }
  beforeAll(async () => {
    served = (await (await createOpenApiEndpoint().fetch(new Request('http://x/api/openapi'))).json()) as typeof served
  })

  it('passes Redocly’s recommended ruleset, with the rules Spectral’s spectral:oas adds, with no error and no warning', async () => {
    expect(await lintWithRedocly(served)).toEqual([])
  })

  it('is held to it: an operation without security, a description or a declared tag, and no contact, are reported', async () => {
    const broken = structuredClone(served) as typeof served & { tags: unknown[]; info: { contact?: unknown } }
    delete broken.paths['/api/control-room']!.get!.security
    delete (broken.paths['/api/health']!.get as { description?: string }).description
    broken.tags = []
    delete broken.info.contact
    expect((await lintWithRedocly(broken)).map((p) => p.rule)).toEqual(
      expect.arrayContaining(['security-defined', 'operation-description', 'operation-tag-defined', 'info-contact']),
    )
  })
})

describe('a typed client as the README shows it (openapi-typescript + openapi-fetch) against npm start', () => {
  let upstream: FakeDexScreener
  let server: NpmStart
  // Inside the clone, so that the client's imports find its node_modules; a fresh clone may have no .cache/ yet.
  mkdirSync(join(ROOT, '.cache'), { recursive: true })
  const dir = mkdtempSync(join(ROOT, '.cache', 'typed-client-'))
  beforeAll(async () => {
    upstream = await startFakeDexScreener(createSyntheticMarket())
    server = await startNpmStart({ DEXSCREENER_BASE_URL: upstream.url, GECKOTERMINAL_BASE_URL: '' })
  })
  afterAll(async () => {
    await server?.stop()
    await upstream?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('generates types from /openapi.json, compiles the client strictly, rejects a wrong call, and reads real answers', async () => {
    const generated = await run([
      'node_modules/openapi-typescript/bin/cli.js',
      `${server.url}/openapi.json`,
      '-o',
      join(dir, 'base-control-room.d.ts'),
    ])
    expect(generated.status, generated.stderr).toBe(0)
    // The README's client, word for word but for the base URL.
    writeFileSync(
      join(dir, 'client.ts'),
      [
        "import createClient from 'openapi-fetch'",
        "import type { paths } from './base-control-room.js'",
        '',
        'const client = createClient<paths>({ baseUrl: process.env.BASE_URL })',
        "const { data, error } = await client.GET('/api/token-search', { params: { query: { q: 'weth' } } })",
        `if (error) throw new Error(\`\${error.code}: \${error.error}\`)`,
        'console.log(JSON.stringify({ first: data.tokens[0]?.symbol, total: data.total }))',
        '',
      ].join('\n'),
    )
    writeFileSync(
      join(dir, 'wrong.ts'),
      [
        "import createClient from 'openapi-fetch'",
        "import type { paths } from './base-control-room.js'",
        'const client = createClient<paths>({})',
        "await client.GET('/api/token-search', { params: { query: { query: 'weth' } } })",
        "await client.GET('/api/no-such-path')",
        '',
      ].join('\n'),
    )
    // TypeScript 7, as `npm run typecheck`: the same diagnostics as 5.9's tsc in a fraction of its CPU.
    const tsc = (file: string) =>
      run([
        'node_modules/typescript-7/bin/tsc',
        // The client alone, as its own user compiles it, not this repository's tsconfig.json.
        '--ignoreConfig',
        // TypeScript 7 includes no @types package unless named (the client reads process.env).
        '--types',
        'node',
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--module',
        'nodenext',
        '--target',
        'es2022',
        join(dir, file),
      ])
    const compiled = await tsc('client.ts')
    expect(compiled.status, compiled.stdout).toBe(0)
    const wrong = await tsc('wrong.ts')
    expect(wrong.status).not.toBe(0)
    expect(wrong.stdout).toMatch(/'query' does not exist|Object literal may only specify known properties/)
    expect(wrong.stdout).toMatch(/wrong\.ts\(5,\d+\): error/) // the path that does not exist
    const answered = await new Promise<{ status: number; stdout: string }>((resolve) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', join(dir, 'client.ts')],
        { cwd: ROOT, encoding: 'utf8', env: { ...process.env, BASE_URL: server.url } },
        (error, stdout) => resolve({ status: error ? 1 : 0, stdout }),
      ),
    )
    expect(answered.status).toBe(0)
    expect(JSON.parse(answered.stdout)).toEqual({ first: 'WETH', total: expect.any(Number) })
  })
})
