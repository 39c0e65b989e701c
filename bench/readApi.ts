import { startServer } from '../dev/server.js'
import { systemClock } from '../lib/platform/clock.js'
import { silentLogger } from '../lib/platform/log.js'
import { createControlRoomEndpoint } from '../lib/read/endpoint.js'
import { createReadServices } from '../lib/read/services.js'
import { createMemoryStore } from '../lib/store/memory.js'
import { createDexScreenerClient } from '../lib/upstream/dexscreener.js'
import { startNpmStart } from '../tests/support/npmStart.js'
import { type AutocannonResult, captureAnswers, measureWithAutocannon, median, startBareServer } from './autocannon.js'
import { startUpstreamThread } from './upstreamThread.js'

const UPSTREAM_DELAY_MS = 100
/** Interleaved rounds per variant: runs of one unchanged server differ by up to 40% here, and a median of five repeats. */
const ROUNDS = 5

/**
 * Warm `GET /api/control-room` through `npm start` (its own process) against a bare node:http server (its own process)
 * sending the same bytes, 200s and 304s: autocannon in a third process, service and bare runs interleaved.
 */
export async function benchWarmThroughput(upstreamUrl: string): Promise<Record<string, number | string>> {
  const service = await startNpmStart({ DEXSCREENER_BASE_URL: upstreamUrl })
  const url = `${service.url}/api/control-room`
  // The bare server replays the service's own answers: same status line, headers and body bytes.
  const { etag, file } = await captureAnswers(url)
  const bare = await startBareServer(file)
  const runs = {
    service200: [] as AutocannonResult[],
    bare200: [] as AutocannonResult[],
    service304: [] as AutocannonResult[],
    bare304: [] as AutocannonResult[],
  }
  try {
    for (let round = 0; round < ROUNDS; round++) {
      runs.service200.push(await measureWithAutocannon({ url, watchPid: service.pid }))
      runs.bare200.push(await measureWithAutocannon({ url: bare.url, watchPid: bare.pid }))
      runs.service304.push(await measureNotModified(url))
      runs.bare304.push(await measureWithAutocannon({ url: bare.url, headers: { 'if-none-match': etag } }))
    }
  } finally {
    bare.stop()
    await service.stop()
  }
  for (const list of Object.values(runs)) {
    for (const r of list) if (r.errors > 0) throw new Error(`${r.errors} requests failed during a run`)
  }
  // Each run measured the answer it names: 200s in a 200 run, 304s in a 304 run (else the ratio compares other things).
  for (const r of [...runs.service200, ...runs.bare200]) if (r.non2xx > 0) throw new Error(`a 200 run got ${r.non2xx} other answers`)
  for (const r of runs.bare304) if (r.answers3xx < r.answers) throw new Error('a bare 304 run got other answers')
  const rps = (list: AutocannonResult[]) => median(list.map((r) => r.rps))
  const each = (list: AutocannonResult[]) => list.map((r) => Math.round(r.rps)).join(' / ')
  return {
    'warm 200 req/s, service runs': each(runs.service200),
    'warm 200 req/s, bare runs': each(runs.bare200),
    '(a) warm 200: service / bare, ratio of medians (goal >= 0.8)': round(rps(runs.service200) / rps(runs.bare200)),
    '304 req/s, service runs': each(runs.service304),
    '304 req/s, bare runs': each(runs.bare304),
    '(a2) 304: service / bare, ratio of medians (goal >= 0.8)': round(rps(runs.service304) / rps(runs.bare304)),
    'service p50 / p99 latency ms under 50 connections': `${median(runs.service200.map((r) => r.p50Ms))} / ${median(runs.service200.map((r) => r.p99Ms))}`,
    'service peak RSS MB under load': Math.round(Math.max(...runs.service200.map((r) => r.maxRssMb ?? 0))),
    'bare server peak RSS MB under load': Math.round(Math.max(...runs.bare200.map((r) => r.maxRssMb ?? 0))),
  }
}

/**
 * A 304 run against the service: `If-None-Match` is the ETag it answers now. Its body changes with every refresh (30 s),
 * so a fixed ETag would turn a later run into 200s; a run that a refresh crossed anyway (fewer than 99% 304s) is made
 * again, once.
 */
async function measureNotModified(url: string): Promise<AutocannonResult> {
  for (let attempt = 0; ; attempt++) {
    const current = await fetch(url)
    await current.arrayBuffer()
    const result = await measureWithAutocannon({ url, headers: { 'if-none-match': current.headers.get('etag')! } })
    if (result.answers3xx >= 0.99 * result.answers) return result
    if (attempt === 1) throw new Error(`a 304 run got ${result.answers3xx} 304s of ${result.answers} answers, twice`)
  }
}

/** The read-API benchmark: warm throughput ratios (separate processes), cold latency ratio, single-flight ratio. */
export async function benchReadApi(): Promise<Record<string, number | string>> {
  const upstream = await startUpstreamThread(UPSTREAM_DELAY_MS)
  const clock = { offset: 0 }
  const services = createReadServices({
    env: {},
    store: createMemoryStore(),
    logger: silentLogger,
    now: () => Date.now() + clock.offset,
    upstream: createDexScreenerClient({ baseUrl: upstream.url, ...systemClock }),
    gecko: null,
  })
  const server = await startServer({ port: 0, endpoints: { 'control-room': createControlRoomEndpoint(() => services) } })
  const url = `${server.url}/api/control-room`

  // (b) cold refreshes against an upstream that answers after a fixed delay: the first one of the process (module
  // loading, JIT, new upstream connections) apart, then the median of five on a running instance (every 30 s in use).
  const coldOnce = async () => {
    clock.offset += 11 * 60_000 // past the stale grace: the caller waits for the refresh
    const before = await upstream.requestCount()
    const started = performance.now()
    const body = Buffer.from(await (await fetch(url)).arrayBuffer())
    const ms = performance.now() - started
    return { ms, body, requests: (await upstream.requestCount()) - before }
  }
  const first = await coldOnce()
  const runs = [] as Awaited<ReturnType<typeof coldOnce>>[]
  for (let i = 0; i < 5; i++) runs.push(await coldOnce())
  const coldMs = runs.map((r) => r.ms).sort((a, b) => a - b)[2]!
  const oneRefresh = runs[0]!.requests

  // (c) 200 concurrent cold requests.
  clock.offset += 11 * 60_000
  const before = await upstream.requestCount()
  await Promise.all(Array.from({ length: 200 }, () => fetch(url).then((r) => r.arrayBuffer())))
  const concurrentRequests = (await upstream.requestCount()) - before

  await server.close()
  const warm = await benchWarmThroughput(upstream.url)
  await upstream.close()
  return {
    ...warm,
    'first cold refresh of the process ms': Math.round(first.ms),
    'cold refresh ms (median of 5)': Math.round(coldMs),
    'upstream delay ms': UPSTREAM_DELAY_MS,
    '(b) refresh a caller waits for / upstream delay (goal <= 2.5; universe warm after the first)': round(coldMs / UPSTREAM_DELAY_MS),
    'upstream requests for 200 concurrent cold': concurrentRequests,
    'upstream requests of one refresh': oneRefresh,
    '(c) concurrent / one refresh (goal 1.0)': round(concurrentRequests / oneRefresh),
  }
}

const round = (n: number) => Math.round(n * 100) / 100
