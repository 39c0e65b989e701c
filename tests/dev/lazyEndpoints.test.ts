import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { loadApiEndpoints, type RunningServer, startServer } from '../../dev/server.js'

/** How many times each module of the folder below was imported (the modules count themselves here). */
const LOADS = `lazyEndpointLoads${process.pid}`
const loads = () => (globalThis as unknown as Record<string, Record<string, number>>)[LOADS] ?? {}

/** A module that counts its import under `name`, then runs `body`. */
const counted = (name: string, body: string) =>
  `const loads = (globalThis[${JSON.stringify(LOADS)}] ??= {})\nloads[${JSON.stringify(name)}] = (loads[${JSON.stringify(name)}] ?? 0) + 1\n${body}\n`

/** npm start's api/ folder: each module imported on its route's first request, so a start loads none of them. */
describe('npm start imports each api/ module on its first request', () => {
  let dir: string
  let server: RunningServer
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lazy-api-'))
    mkdirSync(join(dir, 'x402'))
    writeFileSync(join(dir, 'ok.mjs'), counted('ok', "export default { fetch: async (request) => new Response('ok ' + request.method) }"))
    writeFileSync(join(dir, 'x402', 'nested.mjs'), counted('nested', "export default { fetch: async () => new Response('nested') }"))
    writeFileSync(join(dir, 'broken.mjs'), counted('broken', "throw new Error('broken at import')"))
    writeFileSync(join(dir, 'plain.mjs'), counted('plain', 'export default {}'))
    server = await startServer({ port: 0, endpoints: await loadApiEndpoints(dir, '', { lazy: true }) })
  })
  afterAll(async () => {
    await server?.close()
    rmSync(dir, { recursive: true, force: true })
    delete (globalThis as unknown as Record<string, unknown>)[LOADS]
  })
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('has loaded no module once it listens', () => {
    expect(loads()).toEqual({})
  })

  it('imports a module once, on its first request, however many requests come at once', async () => {
    const answers = await Promise.all([1, 2, 3].map(() => fetch(`${server.url}/api/ok`).then((r) => r.text())))
    expect(answers).toEqual(['ok GET', 'ok GET', 'ok GET'])
    expect(await (await fetch(`${server.url}/api/ok`, { method: 'POST' })).text()).toBe('ok POST')
    expect(await (await fetch(`${server.url}/api/x402/nested`)).text()).toBe('nested')
    expect(loads()).toMatchObject({ ok: 1, nested: 1 })
    expect(loads().broken).toBeUndefined()
  })

  it('answers a module that fails to import with a 500 and prints its error, while the other routes serve', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {})
    const answer = await fetch(`${server.url}/api/broken`)
    expect(answer.status).toBe(500)
    expect(await answer.json()).toEqual({ error: 'Internal error', code: 'INTERNAL' })
    expect(printed.mock.calls.flat().join('\n')).toMatch(/api\/broken failed to load: Error: broken at import/)
    expect((await fetch(`${server.url}/api/broken`)).status).toBe(500)
    expect((await fetch(`${server.url}/api/ok`)).status).toBe(200)
  })

  it('answers a module with no default { fetch } with the JSON 404 of a path with no endpoint', async () => {
    const answer = await fetch(`${server.url}/api/plain`)
    expect(answer.status).toBe(404)
    expect(await answer.json()).toMatchObject({ code: 'NOT_FOUND' })
  })

  it('imports every module at once without lazy, so a broken one fails the load', async () => {
    await expect(loadApiEndpoints(dir)).rejects.toThrow('broken at import')
  })
})
