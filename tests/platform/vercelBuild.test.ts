import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { generateAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { type FakeGeckoTerminal, startFakeGeckoTerminal } from '../support/fakeGeckoTerminal.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { BUILT_PAID_DOOR_CASES, definePaidDoorCases, type PaidDoorTarget } from '../support/paidDoorCases.js'
import { startPaidDoorParts } from '../support/paidDoorParts.js'
import { type ServiceParts, startServiceParts } from '../support/serviceParts.js'
import { createSyntheticMarket } from '../support/syntheticMarket.js'
import {
  type BuiltInstance,
  buildVercelOutput,
  type FunctionAnswer,
  type FunctionCall,
  invokeBuiltFunction,
  serveBuiltFunctions,
  type VercelOutput,
} from '../support/vercelBuild.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const agent = generateAgentKey()
const json = { 'content-type': 'application/json' }
const deployHeaders = { ...json, 'x-service-key': agent.key }
const mcpHeaders = { ...json, accept: 'application/json, text/event-stream' }
const TICK_SECRET = 'built-cron-secret-0123456789abcdef'
const HEALTH_TOKEN = 'built-health-token-0123456789abcdef'
const rpc = (id: number, method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, params })

/** What a user sends, by function: every built function must answer it as `npm start` does. */
const TABLE: Record<string, FunctionCall[]> = {
  'control-room': [
    { path: '/api/control-room' },
    { path: '/api/control-room', method: 'POST' },
    { path: '/api/control-room', method: 'OPTIONS' },
    // On Vercel the edge names each request: its x-vercel-id becomes the answer's X-Request-Id.
    { path: '/api/control-room', headers: { 'x-vercel-id': 'fra1::iad1::built-1732350000000-0abc' } },
  ],
  // After the control-room rows above, the shared store holds a snapshot: WETH (the synthetic market's leader) has a history.
  'token-history': [
    { path: '/api/token-history?address=0x4200000000000000000000000000000000000006' },
    { path: '/api/token-history?address=0x12' },
    { path: `/api/token-history?address=0x${'ab'.repeat(20)}` },
  ],
  'market-history': [
    { path: '/api/market-history' },
    { path: '/api/market-history?range=7d' },
    { path: '/api/market-history?range=1y' },
    { path: '/api/market-history', method: 'DELETE' },
  ],
  // Candles of the room's leader from the GeckoTerminal-shaped server; a bad parameter; a token with no Base pool.
  'token-ohlcv': [
    { path: '/api/token-ohlcv?address=0x4200000000000000000000000000000000000006&timeframe=minute&aggregate=15&limit=12' },
    { path: '/api/token-ohlcv?address=0x4200000000000000000000000000000000000006&timeframe=week' },
    { path: `/api/token-ohlcv?address=0x${'cd'.repeat(20)}` },
    { path: '/api/token-ohlcv', method: 'POST' },
  ],
  // One launch as vercel.json's rewrite hands it to its function: none was launched on this stack, so the 404 of a token
  // not launched here, and a method it does not take.
  launch: [{ path: `/api/launch?address=0x${'ab'.repeat(20)}` }, { path: `/api/launch?address=0x${'ab'.repeat(20)}`, method: 'POST' }],
  launches: [
    { path: '/api/launches' },
    { path: '/api/launches?limit=0' },
    { path: '/api/launches?cursor=x' },
    { path: '/api/launches', method: 'PUT' },
  ],
  // Both sides end the stream after STREAM_MAX_SECONDS (5 s here), so each answer can be read whole and compared.
  stream: [{ path: '/api/stream' }, { path: '/api/stream', method: 'POST' }],
  'token-search': [{ path: '/api/token-search?q=aero' }, { path: '/api/token-search' }, { path: `/api/token-search?q=${'x'.repeat(65)}` }],
  'b20-skill': [
    { path: '/api/b20-skill', method: 'POST', headers: json, body: '{"action":"agent_deploy","name":"A","symbol":"A"}' },
    { path: '/api/b20-skill', method: 'POST', headers: deployHeaders, body: '{' },
    {
      path: '/api/b20-skill',
      method: 'POST',
      headers: deployHeaders,
      body: JSON.stringify({ action: 'agent_deploy', name: '', symbol: 'B@D' }),
    },
    // A valid intent loads the lazily imported half (viem, the AWS SDK, KMS, the chain): it must be in the bundle.
    {
      path: '/api/b20-skill',
      method: 'POST',
      headers: deployHeaders,
      body: JSON.stringify({ action: 'agent_deploy', name: 'Built Token', symbol: 'BLT', salt: `0x${'42'.repeat(32)}`, dryRun: true }),
    },
    {
      path: '/api/b20-skill',
      method: 'POST',
      headers: deployHeaders,
      body: JSON.stringify({ action: 'receipt', tx_hash: `0x${'ab'.repeat(32)}` }),
    },
    { path: '/api/b20-skill', method: 'GET' },
  ],
  mcp: [
    {
      path: '/api/mcp',
      method: 'POST',
      headers: mcpHeaders,
      body: rpc(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'vercel-build-test', version: '1' },
      }),
    },
    { path: '/api/mcp', method: 'POST', headers: mcpHeaders, body: rpc(2, 'tools/list', {}) },
    {
      path: '/api/mcp',
      method: 'POST',
      headers: mcpHeaders,
      body: rpc(3, 'tools/call', { name: 'get_control_room', arguments: { limit: 3 } }),
    },
    // The agent tools load the deploy half lazily, as b20-skill does.
    {
      path: '/api/mcp',
      method: 'POST',
      headers: { ...mcpHeaders, authorization: `Bearer ${agent.key}` },
      body: rpc(4, 'tools/call', {
        name: 'deploy_token',
        arguments: { name: 'Mcp Token', symbol: 'MCPB', salt: `0x${'43'.repeat(32)}`, dryRun: true },
      }),
    },
    { path: '/api/mcp', method: 'POST', headers: mcpHeaders, body: rpc(5, 'tools/call', { name: 'list_deploys', arguments: {} }) },
    { path: '/api/mcp', method: 'GET' },
  ],
  // The paid door is off in this environment (no X402_PRICE): 404 on both sides; its case list runs below, on its own parts.
  'x402/deploy': [
    { path: '/api/x402/deploy', method: 'POST', headers: json, body: '{"name":"Off","symbol":"OFF"}' },
    { path: '/api/x402/deploy', method: 'GET' },
  ],
  // Its discovery manifest is off with it: 404 on both sides.
  'x402/manifest': [{ path: '/api/x402/manifest' }, { path: '/api/x402/manifest', method: 'POST' }],
  skill: [{ path: '/api/skill' }, { path: '/api/skill', method: 'HEAD' }],
  llms: [{ path: '/api/llms' }],
  openapi: [{ path: '/api/openapi' }],
}

/** Sends `calls` one after another to the server at `base`, as a client would, and keeps each answer whole. */
async function askEach(base: string, calls: FunctionCall[]): Promise<FunctionAnswer[]> {
  const answers: FunctionAnswer[] = []
  for (const call of calls) {
    const response = await fetch(`${base}${call.path}`, {
      method: call.method ?? 'GET',
      headers: call.headers ?? {},
      body: call.body ?? null,
    })
    answers.push({ status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() })
  }
  return answers
}

/** Seconds left of a cached body's window, as `max-age` says (it counts down between the two calls). */
const maxAge = (answer: FunctionAnswer) => Number(/max-age=(\d+)/.exec(answer.headers['cache-control'] ?? '')?.[1] ?? NaN)

/** The parts of an answer a client relies on (the windows' seconds are compared apart, within the time between the calls). */
/** The times (`ts`) of the control rooms a body quotes, as plain or as escaped JSON (an MCP tool's text). */
const controlRoomTimes = (body: string) => [...body.matchAll(/"ts\\{0,3}":(\d+)/g)].map((match) => match[1]).join()

const essentials = (answer: FunctionAnswer) => ({
  status: answer.status,
  body: answer.body,
  contentType: answer.headers['content-type'] ?? null,
  // Both windows count down (max-age and s-maxage are the seconds left), so they are compared apart, below.
  cacheControl: answer.headers['cache-control']?.replace(/(s-maxage|max-age)=\d+/g, '$1=N') ?? null,
  etag: answer.headers.etag ?? null,
  cors: answer.headers['access-control-allow-origin'] ?? null,
})

describe('the Vercel build output (vercel build with the official CLI, offline)', () => {
  let output: VercelOutput
  let parts: ServiceParts
  let local: NpmStart
  let gecko: FakeGeckoTerminal
  let env: Record<string, string>
  /**
   * The table's functions, the tick's and health's, served by one fresh process: one instance of the deployment, each handler
   * imported from its own `.func` directory. One instance rather than a process per function: the dependencies the
   * copies share (node_modules, which `filePathMap` maps rather than copies) load once, not 17 times.
   */
  let deployment: BuiltInstance

  // Set once the file is done. A set-up that fails or runs out of time goes on in the background: each part is kept as
  // soon as it is up and stopped at once when the file is already done, so no anvil or server outlives the file.
  let done = false
  const building = new AbortController()
  beforeAll(async () => {
    // Both sides share one store, as instances of one deployment do: cached bodies are then the same bytes.
    await Promise.all([
      buildVercelOutput({ signal: building.signal }).then((built) => {
        output = built
        if (done) built.remove()
      }),
      startServiceParts({ redisSocket: inject('redisSocket'), allowlist: [agent.digest], storePrefix: `vb${process.pid}:` }).then(
        (started) => {
          parts = started
          if (done) return started.close()
        },
      ),
    ])
    if (done) return
    // Candles come from a GeckoTerminal-shaped server over the same market as the DexScreener-shaped one.
    gecko = await startFakeGeckoTerminal(createSyntheticMarket())
    env = {
      ...parts.env,
      GECKOTERMINAL_BASE_URL: gecko.url,
      CRON_SECRET: TICK_SECRET,
      HEALTH_TOKEN,
      STREAM_MAX_SECONDS: '5',
    }
    if (done) return gecko.close()
    local = await startNpmStart(env)
    if (done) return local.stop()
    // npm start names itself by where it listens when no public origin is set (dev/server.ts); a deployment has its
    // own (PUBLIC_URL or Vercel's production URL): the built functions get npm start's, so both sides say the same.
    // Both sides are asked from 127.0.0.1 over one store, so they draw on one per-client budget, as two instances of a
    // deployment do: the table asks each limited path a few times, far under its limit (30 searches a minute, the least).
    const tableRoutes = [...Object.keys(TABLE), 'tick', 'health'].map((name) => [`/api/${name}`, output.functions[name]!])
    deployment = await serveBuiltFunctions(Object.fromEntries(tableRoutes), { ...env, PUBLIC_URL: env.PUBLIC_URL || local.url })
    if (done) return deployment.stop()
    // The control room built once, as on any deployment that has served a read: the tokens token-history knows come
    // from it, whichever case runs first.
    await (await fetch(`${local.url}/api/control-room`)).arrayBuffer()
  }, 300_000)
  afterAll(async () => {
    done = true
    building.abort()
    output?.remove()
    await local?.stop()
    await deployment?.stop()
    await parts?.close()
    await gecko?.close()
  })

  it('has one function per api/ module', () => {
    const modules = readdirSync(join(ROOT, 'api'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.replace(/\.ts$/, ''))
    expect(Object.keys(output.functions).sort()).toEqual(modules.sort())
  })

  it.each(Object.keys(TABLE))('api/%s answers every request of the table as npm start does', async (name) => {
    const calls = TABLE[name]!
    const askBoth = async () => {
      if (name === 'stream') {
        // Each side's stream lasts STREAM_MAX_SECONDS (5 s, its least): both are asked at once, not one after the
        // other. A stream carries no max-age, so no side needs to have answered first.
        const startedAt = Date.now()
        const [expected, built] = await Promise.all([askEach(local.url, calls), askEach(deployment.url, calls)])
        return { expected, startedAt, built }
      }
      const expected = await askEach(local.url, calls)
      const startedAt = Date.now()
      return { expected, startedAt, built: await askEach(deployment.url, calls) }
    }
    let { expected, startedAt, built } = await askBoth()
    // A body that quotes the control room is the same on both sides within its 30 s window. When the window turned
    // between npm start's answer and the built function's (the control room's `ts` differs), ask both again: the built
    // side has just begun a window, which the second asks fall in.
    if (built.some((answer, i) => controlRoomTimes(answer.body) !== controlRoomTimes(expected[i]!.body)))
      ({ expected, startedAt, built } = await askBoth())
    expect(built.map(essentials)).toEqual(expected.map(essentials))
    // The same body, so the same window: the built function's max-age is npm start's less the seconds in between.
    const between = Math.ceil((Date.now() - startedAt) / 1000) + 1
    built.forEach((answer, i) => {
      if (Number.isNaN(maxAge(answer))) return
      expect(maxAge(answer)).toBeLessThanOrEqual(maxAge(expected[i]!))
      expect(maxAge(answer)).toBeGreaterThanOrEqual(maxAge(expected[i]!) - between)
    })
    // Every answer names its request (each its own id), as npm start's do.
    for (const answer of [...built, ...expected]) expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$|::/)
    if (name === 'control-room') expect(built[3]!.headers['x-request-id']).toBe('fra1::iad1::built-1732350000000-0abc')
    // Not vacuous: the table reaches the real work, not only refusals (the paid door is off here: its cases are below).
    if (name === 'launch')
      expect(built.map((a) => [a.status, JSON.parse(a.body).code])).toEqual([
        [404, 'NOT_A_LAUNCH'],
        [405, expect.any(String)],
      ])
    else if (!name.startsWith('x402/')) expect(built.some((a) => a.status === 200)).toBe(true)
    // The door off: 404 to a POST and to a GET alike (a GET is asked to pay when it is on); the manifest takes no POST.
    else expect(built.map((a) => a.status)).toEqual(name === 'x402/deploy' ? [404, 404] : [404, 405])
    if (name === 'stream') {
      // The built function streams as npm start does: retry, then the control room as one event, then a clean end.
      expect(built[0]!.headers['content-type']).toBe('text/event-stream; charset=utf-8')
      // Asked at once on both sides (above): nothing here has a max-age that depends on which side answered first.
      expect([...built, ...expected].map(maxAge)).toEqual([NaN, NaN, NaN, NaN])
      expect(built[0]!.body).toMatch(/^retry: 3000\n\nevent: control-room\nid: [\w-]+\ndata: \{"/)
    }
    if (name === 'token-ohlcv') {
      // The candles went through the built function's read code; a token with no pool is the same 404 from the store.
      expect(JSON.parse(built[0]!.body)).toMatchObject({ address: '0x4200000000000000000000000000000000000006', timeframe: 'minute' })
      expect(JSON.parse(built[2]!.body)).toMatchObject({ code: 'UNKNOWN_TOKEN' })
    }
    if (name === 'launches') expect(JSON.parse(built[0]!.body)).toMatchObject({ launches: expect.any(Array), nextCursor: null })
    if (name === 'b20-skill') {
      // The dry run went through the lazily loaded KMS and chain code to a simulation: the bundle carries it all.
      expect(JSON.parse(built[3]!.body)).toMatchObject({ ok: true, status: 'simulated' })
      expect(JSON.parse(built[4]!.body)).toMatchObject({ ok: false, code: 'TX_NOT_FOUND' })
    }
    if (name === 'mcp') {
      // An MCP client's first request, answered by the built function; the dry run reached the KMS and the chain.
      expect(JSON.parse(built[0]!.body)).toMatchObject({
        result: { serverInfo: { name: 'base-control-room' }, capabilities: { tools: {} } },
      })
      expect(JSON.parse(built[3]!.body)).toMatchObject({ result: { structuredContent: { ok: true, status: 'simulated' } } })
      expect(JSON.parse(built[4]!.body)).toMatchObject({ result: { isError: true, structuredContent: { code: 'FORBIDDEN' } } })
    }
  })

  it('api/tick answers the scheduler as npm start does: 401 to anyone else, the summary to Vercel Cron', async () => {
    const calls: FunctionCall[] = [
      { path: '/api/tick' },
      { path: '/api/tick', headers: { authorization: `Bearer ${TICK_SECRET}` } },
      { path: '/api/tick', method: 'DELETE' },
    ]
    // The built function first: its tick has the interval (npm start's own ticker is off in tests).
    const built = await askEach(deployment.url, calls)
    const expected = await askEach(local.url, calls)
    expect(built.map((a) => a.status)).toEqual([401, 200, 405])
    expect(expected.map((a) => a.status)).toEqual([401, 200, 405])
    expect(essentials(built[0]!)).toEqual(essentials(expected[0]!))
    expect(essentials(built[2]!)).toEqual(essentials(expected[2]!))
    const summary = JSON.parse(built[1]!.body)
    expect(summary).toMatchObject({ ran: true, caller: 'vercel-cron', parts: { controlRoom: { ok: true }, snapshot: { ok: true } } })
    // Its deploy part loaded the lazily imported half (viem, the AWS SDK) and followed the signer's deploys.
    expect(summary.parts.deploys).toMatchObject({ ok: true })
    expect(JSON.parse(expected[1]!.body)).toMatchObject({ caller: 'vercel-cron', ran: expect.any(Boolean) })
  })

  it('api/health answers as npm start does: the public view, a wrong token, every part up with the token', async () => {
    const calls: FunctionCall[] = [
      { path: '/api/health' },
      { path: '/api/health', headers: { authorization: 'Bearer not-the-token-at-all' } },
      { path: '/api/health', headers: { authorization: `Bearer ${HEALTH_TOKEN}` } },
      { path: '/api/health', method: 'POST' },
    ]
    const expected = await askEach(local.url, calls)
    const built = await askEach(deployment.url, calls)
    // Ages, latencies and the chain's head are each instance's own moment: compared by type. All else is the same
    // store, chain and signer seen from either side.
    const moments = new Set(['dataAgeSeconds', 'lastTickAgeSeconds', 'checkedAgeSeconds', 'pendingSeconds', 'latencyMs', 'head'])
    const settled = (answer: FunctionAnswer) => ({
      ...essentials(answer),
      body: JSON.stringify(JSON.parse(answer.body, (key, value) => (moments.has(key) ? typeof value : value))),
    })
    expect(built.map(settled)).toEqual(expected.map(settled))
    expect(built.map((a) => a.status)).toEqual([200, 401, 200, 405])
    // Not vacuous: the built function reached every part, the lazily loaded chain and KMS half among them.
    expect(JSON.parse(built[2]!.body)).toMatchObject({
      ok: true,
      store: { ok: true, kind: 'upstash' },
      upstreams: { dexscreener: { ok: true }, geckoterminal: { ok: true } },
      rpc: { ok: true, chainId: 8453, head: expect.any(Number) },
      signer: { ok: true, address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) },
      delegation: { ok: true },
    })
  })

  it('serves the whole skill document from the function alone', async () => {
    const [answer] = await invokeBuiltFunction(output.functions.skill!, [{ path: '/api/skill' }], {})
    expect(answer!.status).toBe(200)
    expect(answer!.body).toBe(readFileSync(join(ROOT, 'SKILL.md'), 'utf8'))
  })

  it('routes /openapi.json, /skill.md, /llms.txt and /.well-known/x402 to their functions, as vercel.json says', () => {
    const vercel = JSON.parse(readFileSync(join(ROOT, 'vercel.json'), 'utf8')) as { rewrites: { source: string; destination: string }[] }
    for (const { source, destination } of vercel.rewrites) {
      // A source with a parameter (/api/launches/:address) is tried with a value in its place; the destination's query
      // then carries the value, which the route writes in its own way ($1), so only the path is compared.
      const path = source.replace(/:\w+/g, `0x${'ab'.repeat(20)}`)
      const pathOf = (url: unknown) => String(url).split('?')[0]!
      const route = output.config.routes.find(
        (r) => typeof r.src === 'string' && new RegExp(r.src).test(path) && pathOf(r.dest) === pathOf(destination),
      )
      expect(route, `${source} -> ${destination}`).toBeDefined()
      expect(output.functions[pathOf(destination).replace('/api/', '')]).toBeDefined()
    }
  })

  it('sets every security header of vercel.json on every path', () => {
    const vercel = JSON.parse(readFileSync(join(ROOT, 'vercel.json'), 'utf8')) as {
      headers: { source: string; headers: { key: string; value: string }[] }[]
    }
    const site = Object.fromEntries(vercel.headers.find((h) => h.source === '/(.*)')!.headers.map((h) => [h.key, h.value]))
    expect(Object.keys(site)).toEqual(expect.arrayContaining(['Content-Security-Policy', 'Strict-Transport-Security', 'X-Frame-Options']))
    const route = output.config.routes.find(
      (r) => r.headers && typeof r.src === 'string' && new RegExp(r.src).test('/api/control-room') && new RegExp(r.src).test('/'),
    )
    expect(route?.headers).toEqual(site)
  })

  it('ships the dashboard as static files, byte for byte public/ (its modules/ included)', () => {
    const files = readdirSync(join(ROOT, 'public'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      statSync(join(ROOT, 'public', f)).isFile(),
    )
    expect(files).toContain(join('modules', 'data.js'))
    for (const file of files) {
      expect(readFileSync(join(output.dir, 'static', file)).equals(readFileSync(join(ROOT, 'public', file))), file).toBe(true)
    }
  })

  // The paid door's cases that reach what a build could lack (BUILT_PAID_DOOR_CASES of tests/support/paidDoorCases.ts;
  // the whole list runs over npm start), over the built functions served by three processes (three instances), with
  // its own store prefix, chain, USDC and facilitator.
  describe('the paid door, api/x402/deploy, over the build output (the cases a build could break)', () => {
    let target: PaidDoorTarget
    let served: BuiltInstance[] = []
    beforeAll(async () => {
      const paid = await startPaidDoorParts({ redisSocket: inject('redisSocket'), storePrefix: `vbpaid${process.pid}:` })
      const routes = {
        '/api/x402/deploy': output.functions['x402/deploy']!,
        '/api/b20-skill': output.functions['b20-skill']!,
        '/api/launches': output.functions.launches!,
        // How agents find the door: the manifest (at its function's path and vercel.json's rewrite) and the document.
        '/api/x402/manifest': output.functions['x402/manifest']!,
        '/.well-known/x402': output.functions['x402/manifest']!,
        '/openapi.json': output.functions.openapi!,
      }
      // One deployment's public origin, as Vercel gives it (no PUBLIC_URL): every instance names the door by it.
      const env = { ...paid.env, PUBLIC_URL: '', VERCEL_PROJECT_PRODUCTION_URL: 'paid-door.vercel.test' }
      // The instance whose paid cap is full is asked only at the door and the skill (its one case): it loads those two.
      const fullRoutes = { '/api/x402/deploy': routes['/api/x402/deploy'], '/api/b20-skill': routes['/api/b20-skill'] }
      served = await Promise.all([
        serveBuiltFunctions(routes, env),
        serveBuiltFunctions(routes, env),
        serveBuiltFunctions(fullRoutes, { ...env, X402_DAILY_CAP: '0' }),
      ])
      const [a, b, full] = served as [BuiltInstance, BuiltInstance, BuiltInstance]
      target = {
        parts: paid,
        doors: [a.url, b.url],
        full: full.url,
        publicOrigin: () => 'https://paid-door.vercel.test',
        lines: () => served.flatMap((i) => i.lines),
      }
    }, 120_000)
    afterAll(async () => {
      await Promise.all(served.map((i) => i.stop()))
      await target?.parts.close()
    })

    definePaidDoorCases(() => target, { only: BUILT_PAID_DOOR_CASES })
  })
})
