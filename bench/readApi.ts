import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createControlRoomHandler } from '../api/control-room.js'
import { startServer } from '../dev/server.js'
import { silentLogger } from '../lib/log.js'
import { createReadServices } from '../lib/readServices.js'
import { createMemoryStore } from '../lib/store/memory.js'
import { createDexScreenerClient } from '../lib/upstream/dexscreener.js'
import { measureThroughput } from './load.js'
import { startUpstreamThread } from './upstreamThread.js'

const UPSTREAM_DELAY_MS = 100

/** The read-API benchmark of issue 2: warm throughput ratio, cold latency ratio, single-flight ratio. */
export async function benchReadApi(): Promise<Record<string, number>> {
  const upstream = await startUpstreamThread(UPSTREAM_DELAY_MS)
  const clock = { offset: 0 }
  const services = createReadServices({
    env: {},
    store: createMemoryStore(),
    logger: silentLogger,
    now: () => Date.now() + clock.offset,
    upstream: createDexScreenerClient({ baseUrl: upstream.url }),
  })
  const server = await startServer({ port: 0, handlers: { 'control-room': createControlRoomHandler(() => services) } })
  const url = `${server.url}/api/control-room`

  // (b) cold refreshes against an upstream that answers after a fixed delay: the first one of the process (module
  // loading, JIT, new upstream connections) apart, then the median of five on a running instance (every 30 s in use).
  const coldOnce = async () => {
    clock.offset += 60_000
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
  const bytes = runs[4]!.body

  // (a) warm requests/s against a bare Node server answering the same bytes.
  const bare = createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
    res.end(bytes)
  })
  await new Promise<void>((ok) => bare.listen(0, '127.0.0.1', () => ok()))
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`
  // Keep the window open for the whole measurement.
  const warmRps = await measureThroughput({ url })
  const bareRps = await measureThroughput({ url: bareUrl })

  // (c) 200 concurrent cold requests.
  clock.offset += 60_000
  const before = await upstream.requestCount()
  await Promise.all(Array.from({ length: 200 }, () => fetch(url).then((r) => r.arrayBuffer())))
  const concurrentRequests = (await upstream.requestCount()) - before

  await server.close()
  bare.close()
  await upstream.close()
  return {
    'warm control-room req/s': Math.round(warmRps),
    'bare node req/s (same bytes)': Math.round(bareRps),
    '(a) warm / bare (goal >= 0.8)': round(warmRps / bareRps),
    'first cold refresh of the process ms': Math.round(first.ms),
    'cold refresh ms (median of 5)': Math.round(coldMs),
    'upstream delay ms': UPSTREAM_DELAY_MS,
    '(b) cold / upstream delay (goal <= 2.5)': round(coldMs / UPSTREAM_DELAY_MS),
    'upstream requests for 200 concurrent cold': concurrentRequests,
    'upstream requests of one refresh': oneRefresh,
    '(c) concurrent / one refresh (goal 1.0)': round(concurrentRequests / oneRefresh),
  }
}

const round = (n: number) => Math.round(n * 100) / 100
