import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import llms from '../../api/llms.js'
import openapi from '../../api/openapi.js'
import skill from '../../api/skill.js'
import { parseDeployIntent } from '../../lib/deploy/actions/agentDeploy.js'
import { actionNamed } from '../../lib/deploy/actions/registry.js'
import { deployFailureCodeSchema, skillHttpErrorSchema } from '../../lib/deploy/answers/deployAnswers.js'
import { SKILL_BODY_LIMIT_BYTES } from '../../lib/deploy/endpoint.js'
import { QUERY_MAX_LENGTH } from '../../lib/market/search.js'
import { DEPLOY_TOKEN_PAID_TOOL } from '../../lib/mcp/paidTool.js'
import { toolsOf } from '../../lib/mcp/tools.js'
import { paidDoorErrorCodeSchema, paymentRequiredBodySchema } from '../../lib/payments/discovery/paidDoorSchemas.js'
import { SERVICE_VERSION } from '../../lib/platform/version.js'
import { TICK_BODY_LIMIT_BYTES } from '../../lib/tick/endpoint.js'
import { runRecordingLoads } from '../support/moduleLoads.js'
import { withOpenApiCheck } from '../support/openapiCheck.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const get = (path: string) => new Request(`https://svc.test${path}`)

describe('GET /api/openapi', () => {
  it('serves an OpenAPI 3.1 document with every endpoint in api/, the security scheme and the headers', async () => {
    const response = await withOpenApiCheck('/api/openapi', openapi)(get('/api/openapi'))
    expect(response.status).toBe(200)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    const doc = (await response.json()) as {
      openapi: string
      info: { version: string }
      paths: Record<string, unknown>
      components: { schemas: Record<string, unknown>; securitySchemes: unknown }
    }
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.info.version).toBe(SERVICE_VERSION)
    // A function reached through a rewrite with a path parameter (vercel.json) is documented by its public path.
    const { rewrites } = JSON.parse(readFileSync(join(ROOT, 'vercel.json'), 'utf8')) as {
      rewrites: { source: string; destination: string }[]
    }
    const publicPath = (path: string) => {
      const rewrite = rewrites.find((r) => r.destination.replace(/\?.*$/, '') === path && r.source.includes('/:'))
      return rewrite ? rewrite.source.replace(/:(\w+)/g, '{$1}') : path
    }
    const endpoints = readdirSync(join(ROOT, 'api'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => publicPath(`/api/${f.replace(/\.ts$/, '')}`))
    expect(Object.keys(doc.paths).sort()).toEqual(endpoints.sort())
    expect(doc.components.securitySchemes).toEqual({
      serviceKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Service-Key' }),
      bearerAgentKey: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      healthToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      cronSecret: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      qstashSignature: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Upstash-Signature' }),
    })
    const text = JSON.stringify(doc)
    expect(text).toContain('"Idempotency-Key"')
    for (const status of ['"304"', '"400"', '"403"', '"405"', '"413"', '"500"', '"502"']) expect(text).toContain(status)
  })

  it('names every MCP tool in the summary of POST /api/mcp, which of them need the agent key, and the one paid with x402', async () => {
    const doc = (await (await openapi.fetch(get('/api/openapi'))).json()) as Record<string, any>
    const summary = doc.paths['/api/mcp'].post.summary as string
    const [keyless, keyed, paid] = summary.split(/Tools: |; /).slice(1)
    // Each part lists tool names (some have no underscore: `mint`), then says what they share: `a, b, keyless`.
    const names = (part: string | undefined) =>
      (part ?? '').split(', ').filter((word) => /^[a-z]+(?:_[a-z]+)*$/.test(word) && word !== 'keyless')
    // The public actions' tools answer without a key, as the read tools do.
    expect(names(keyless)).toEqual(
      toolsOf()
        .filter((t) => !t.action || t.action.access === 'public')
        .map((t) => t.name),
    )
    expect(names(keyed)).toEqual(
      toolsOf()
        .filter((t) => t.action && t.action.access !== 'public')
        .map((t) => t.name),
    )
    expect(keyed).toContain('agent key')
    // The paid tool, listed by the server only while paid deploys are on, is named with how it is paid.
    expect(names(paid)).toEqual([DEPLOY_TOKEN_PAID_TOOL.name])
    expect(paid).toContain('x402')
  })

  it('gives request examples an agent can send as they are: each one passes the service’s own validation', async () => {
    const doc = (await (await openapi.fetch(get('/api/openapi'))).json()) as Record<string, any>
    const examples = doc.paths['/api/b20-skill'].post.requestBody.content['application/json'].examples as Record<string, { value: any }>
    expect(Object.keys(examples)).toEqual(expect.arrayContaining(['deploy', 'bornReady', 'fixedSupply']))
    for (const [name, { value }] of Object.entries(examples)) {
      expect(actionNamed(value.action)?.check({ body: value, idempotencyKey: null }), name).toMatchObject({ ok: true })
    }
    expect(examples.bornReady!.value).toMatchObject({ initialSupply: expect.any(String), description: expect.any(String) })
    // The llms.txt example and the skill's deploy example too.
    const llmsText = await (await llms.fetch(get('/api/llms'))).text()
    const skillText = readFileSync(join(ROOT, 'SKILL.md'), 'utf8')
    for (const text of [llmsText, skillText]) {
      const deploys = text.split('\n').filter((line) => line.startsWith('{"action":"agent_deploy"'))
      expect(deploys.length).toBeGreaterThan(0)
      for (const line of deploys) expect(parseDeployIntent(JSON.parse(line)), line).toMatchObject({ ok: true })
    }
  })

  it('states the limits the handlers enforce, from the same constants (the document is generated from the routes)', async () => {
    const document = (await (await openapi.fetch(get('/api/openapi'))).json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string; schema: { maxLength?: number } }[]; [key: string]: unknown }>>
    }
    const q = document.paths['/api/token-search']!.get!.parameters!.find((p) => p.name === 'q')!
    expect(q.schema.maxLength).toBe(QUERY_MAX_LENGTH)
    expect(JSON.stringify(document.paths['/api/tick']!.post)).toContain(`"maxLength":${TICK_BODY_LIMIT_BYTES}`)
    expect(JSON.stringify(document.paths['/api/b20-skill']!.post)).toContain(`larger than ${SKILL_BODY_LIMIT_BYTES / 1024} KiB`)
  })

  it('has component schemas that are valid JSON Schema 2020-12 and reject extra fields in responses', async () => {
    const { components } = (await (await openapi.fetch(get('/api/openapi'))).json()) as {
      components: { schemas: Record<string, Record<string, unknown>> }
    }
    {
      const ajv = new Ajv2020({ strict: true, strictTypes: false, allowUnionTypes: true })
      ajv.addSchema({ $id: 'c', $defs: {} })
      for (const [name, schema] of Object.entries(components.schemas)) {
        const standalone = JSON.parse(JSON.stringify(schema).replaceAll('#/components/schemas/', 'components#/$defs/')) as object
        ajv.addSchema({ $id: `${name}.json`, ...standalone })
      }
      ajv.addSchema({
        $id: 'components',
        $defs: Object.fromEntries(Object.keys(components.schemas).map((n) => [n, { $ref: `${n}.json` }])),
      })
      for (const name of Object.keys(components.schemas)) expect(() => ajv.getSchema(`${name}.json`)).not.toThrow()
      expect(components.schemas.Token!.additionalProperties).toBe(false)
      expect(Object.keys(components.schemas.Token!.properties as object)).toHaveLength(24)
    }
  })

  it('names the components used only in answers without zod-openapi’s Output suffix, every reference resolving', async () => {
    const text = await (await openapi.fetch(get('/api/openapi'))).text()
    const { components } = JSON.parse(text) as { components: { schemas: Record<string, unknown> } }
    const names = Object.keys(components.schemas)
    // A name keeps the suffix only where a request sends the component too (both renderings are then in use).
    for (const name of names.filter((n) => n.endsWith('Output'))) expect(names).toContain(name.replace(/Output$/, ''))
    expect(names).toEqual(expect.arrayContaining(['Token', 'ControlRoom', 'Error']))
    expect(names).not.toContain('TokenOutput')
    const references = new Set(Array.from(text.matchAll(/"#\/components\/schemas\/([^"]+)"/g), (m) => m[1]!))
    expect([...references].filter((name) => !names.includes(name))).toEqual([])
    // Every component is referenced: the renames left nothing behind that no answer or request uses.
    expect(names.filter((name) => !references.has(name))).toEqual([])
  })
})

describe('the agent skill', () => {
  const file = readFileSync(join(ROOT, 'SKILL.md'), 'utf8')

  it('is served at /api/skill (and /skill.md) as markdown, byte for byte SKILL.md (npm run build:skill after editing it)', async () => {
    const response = await skill.fetch(get('/api/skill'))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8')
    expect(await response.text()).toBe(file)
  })

  it('is versioned with the service', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
    expect(SERVICE_VERSION).toBe(pkg.version)
    expect(file).toContain(`version: ${SERVICE_VERSION}`)
    expect(file).toContain(`(v${SERVICE_VERSION})`)
  })

  it('names every error code an agent can get, on both doors', () => {
    const paid = [...paidDoorErrorCodeSchema.options, ...paymentRequiredBodySchema.shape.code.options]
    for (const code of [...deployFailureCodeSchema.options, ...skillHttpErrorSchema.shape.code.options, ...paid])
      expect(file).toContain(`\`${code}\``)
  })

  it('says that market names and symbols are untrusted text', () => {
    expect(file).toMatch(/untrusted text/)
  })

  it('serves /api/llms (and /llms.txt) pointing at the skill and the OpenAPI document', async () => {
    const response = await llms.fetch(get('/api/llms'))
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    const text = await response.text()
    expect(text.startsWith('# Base control room\n\n> ')).toBe(true)
    expect(text).toContain('(/skill.md)')
    expect(text).toContain('(/openapi.json)')
    // Agents that pay find the door through x402 discovery: both documents link the origin's manifest.
    expect(text).toContain('(/.well-known/x402)')
    expect(file).toContain('(/.well-known/x402)')
  })
})

/**
 * Follows relative imports from a module and answers every module and package it can load; with `dynamic: false`,
 * only what loading the module itself loads (a later `import()` is not followed).
 */
function importGraph(entry: string, { dynamic = true } = {}): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string) => {
    if (files.has(file)) return
    files.add(file)
    const source = readFileSync(file, 'utf8')
    for (const match of source.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g)) {
      const spec = (match[1] ?? match[2])!
      if (/^(import|export)\s+type\s/.test(match[0].trim())) continue
      if (match[2] && !dynamic) continue
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
      else packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!)
    }
  }
  visit(entry)
  return { files, packages }
}

describe('cold start of the read handlers', () => {
  it.each(['control-room', 'token-search', 'token-ohlcv'])('api/%s loads neither the AWS SDK nor any signing code', (name) => {
    const { files, packages } = importGraph(join(ROOT, 'api', `${name}.ts`))
    expect([...packages]).not.toContain('@aws-sdk/client-kms')
    expect([...packages]).not.toContain('viem')
    expect([...files].map((f) => f.slice(ROOT.length))).not.toContainEqual(expect.stringMatching(/kmsAccount|deploy|chain\//))
  })

  it('the graph walker does see the SDK behind the deploy handler (so the check above can fail)', () => {
    expect([...importGraph(join(ROOT, 'api', 'b20-skill.ts')).packages]).toContain('@aws-sdk/client-kms')
  })
})

describe('cold start of the deploy handler', () => {
  it('loads neither the AWS SDK, nor viem, nor the signer until a request passes the allowlist and validation', () => {
    const { files, packages } = importGraph(join(ROOT, 'api', 'b20-skill.ts'), { dynamic: false })
    expect([...packages]).not.toContain('@aws-sdk/client-kms')
    expect([...packages]).not.toContain('viem')
    expect([...files].map((f) => f.slice(ROOT.length))).not.toContainEqual(
      expect.stringMatching(/kmsAccount|deployToken|records\/receipt|deploy\/services|chain\/(client|b20)\.ts/),
    )
  })

  const refusals: [string, Record<string, string>, string, number][] = [
    ['403 without a key', {}, '{}', 403],
    ['413 for an oversized body', { 'x-service-key': 'k' }, 'x'.repeat(17 * 1024), 413],
    ['400 for malformed JSON', { 'x-service-key': 'k' }, '{', 400],
    ['an invalid intent', { 'x-service-key': 'k' }, JSON.stringify({ action: 'agent_deploy', name: '', symbol: 'B@D' }), 200],
  ]
  /**
   * One fresh process answers the four requests in turn (made on the first case that asks): what a process has loaded
   * only grows, so nothing loaded after the last answer means none of the four loaded it. A process for each took
   * about 3 s more in all.
   */
  let refused: { answers: { status: number; body: { ok: boolean; code: string } }[]; loads: string } | undefined
  const refusedInOneProcess = () => {
    if (refused) return refused
    const script = `
      await import('./api/b20-skill.ts') // the route's own module loads nothing more either
      const { createB20SkillEndpoint } = await import('./lib/deploy/endpoint.ts')
      const { digestAgentKey } = await import('./lib/deploy/agents/agentKeys.ts')
      const { loadDeployConfig } = await import('./lib/deploy/config.ts')
      const config = loadDeployConfig({ DEPLOY_ALLOWLIST: digestAgentKey('k') })
      const { createLogger } = await import('./lib/platform/log.ts')
      const handle = createB20SkillEndpoint({ config: () => config, services: async () => { throw new Error('services loaded') }, logger: () => createLogger({ write: () => {} }) }).fetch
      const answers = []
      for (const [headers, body] of ${JSON.stringify(refusals.map(([, headers, body]) => [headers, body]))}) {
        const init = { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }
        const response = await handle(new Request('http://x/api/b20-skill', init))
        answers.push({ status: response.status, body: await response.json() })
      }
      process.stdout.write(JSON.stringify(answers))`
    const { out, loads } = runRecordingLoads(script)
    refused = { answers: JSON.parse(out), loads }
    return refused
  }

  it.each(refusals.map(([name, , , status], i) => [name, status, i] as const))(
    'answers %s in a fresh process without loading them',
    (_, status, i) => {
      const { answers, loads } = refusedInOneProcess()
      expect(answers[i]!.status).toBe(status)
      expect(answers[i]!.body.ok).toBe(false)
      expect(loads).toContain('/api/b20-skill.ts') // the recorder works
      expect(loads).not.toMatch(/@aws-sdk|\/node_modules\/viem\/|kmsAccount|deployToken|deploy\/services/)
    },
  )

  it('the load recorder does see the SDK once a valid deploy needs the services', () => {
    const script = `
      await import('./lib/deploy/heavyHalf.ts')
      process.stdout.write('ok')`
    expect(runRecordingLoads(script).loads).toMatch(/@aws-sdk\/client-kms/)
  })

  it('loads Uniswap’s SDKs (and the ethers 5 under them) only once a launch with a pool plans its seed', () => {
    // They come in by require (their CommonJS builds), which the load recorder's hooks do not see: the require cache does.
    const script = `
      const { createRequire } = await import('node:module')
      const uniswapLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((m) => /@uniswap|ethers/.test(m))
      await import('./lib/deploy/heavyHalf.ts')
      const before = uniswapLoaded()
      const { planPoolSeed } = await import('./lib/deploy/pool/poolSeed.ts')
      const afterImport = uniswapLoaded()
      const planned = planPoolSeed({
        token: '0x00000000000000000000000000000000000000b2', decimals: 18, amount: 5n * 10n ** 23n, startingMarketCapWei: 10n ** 19n,
        wholeSupply: 10n ** 24n, fee: 10000, tickSpacing: 200, owner: '0x00000000000000000000000000000000000000a1', deadline: 1n,
      })
      process.stdout.write(JSON.stringify({ before, afterImport, planned: planned.ok, afterPlan: uniswapLoaded() }))`
    expect(JSON.parse(runRecordingLoads(script).out)).toEqual({ before: false, afterImport: false, planned: true, afterPlan: true })
  })
})
