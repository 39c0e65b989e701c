import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { startFakeDexScreener } from '../tests/support/fakeDexScreener.js'
import { startNpmStart } from '../tests/support/npmStart.js'
import { startRedisServer } from '../tests/support/redisServer.js'
import { createSyntheticMarket } from '../tests/support/syntheticMarket.js'
import { startUpstashRestServer } from '../tests/support/upstashRestServer.js'

// `npm run bench -- stream`: what open streams cost one `npm start`. Memory: its resident set before and with 1,000
// streams open, each of which has had its first event (goal: under 60 MB more). Cost: the upstream calls and store
// commands of one 35 s stretch (a refresh window and its look) while a client polls the room once a second, with no
// stream open and with 1,000 open (goal: the same, give or take 2). The streams come from this process, a separate
// one from the server.

const STREAMS = 1000
const STRETCH_MS = 35_000

/** The server's resident set, in MB. */
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024

/** Opens a stream and resolves once its first event has arrived; `close` ends it. */
function openStream(url: string): Promise<{ close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/stream`, { agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`))
      let seen = ''
      res.on('data', (chunk: Buffer) => {
        if (seen.length < 64) seen += chunk.toString('latin1', 0, 64)
        if (seen.includes('event: control-room')) resolve({ close: () => req.destroy() })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

/** Polls the room once a second until stopped, as other traffic would. */
function poll(url: string): () => void {
  const timer = setInterval(() => void fetch(`${url}/api/control-room`).then((r) => r.arrayBuffer()), 1000)
  return () => clearInterval(timer)
}

/** Runs the stream benchmark. */
export async function benchStream(): Promise<Record<string, number | string>> {
  const redis = await startRedisServer()
  const upstash = await startUpstashRestServer({ redisSocket: redis.socket })
  const upstream = await startFakeDexScreener(createSyntheticMarket())
  const server = await startNpmStart({
    DEXSCREENER_BASE_URL: upstream.url,
    UPSTASH_REDIS_REST_URL: upstash.url,
    UPSTASH_REDIS_REST_TOKEN: upstash.token,
    STORE_KEY_PREFIX: `bench-stream-${process.pid}:`,
    // Every stream comes from this one address: the per-client limit is lifted for the bench.
    STREAM_MAX_PER_CLIENT: String(STREAMS + 10),
  })
  try {
    await (await fetch(`${server.url}/api/control-room`)).arrayBuffer()
    const warm = await openStream(server.url)
    warm.close()
    /** Upstream calls and store commands over one stretch, with a poller running. */
    const stretch = async () => {
      const [calls, commands] = [upstream.requests.length, upstash.commands.length]
      const stop = poll(server.url)
      await new Promise((resolve) => setTimeout(resolve, STRETCH_MS))
      stop()
      return { calls: upstream.requests.length - calls, commands: upstash.commands.length - commands }
    }
    const without = await stretch()
    global.gc?.()
    const before = rssMb(server.pid)
    const streams: { close: () => void }[] = []
    for (let i = 0; i < STREAMS; i += 100) streams.push(...(await Promise.all(Array.from({ length: 100 }, () => openStream(server.url)))))
    await new Promise((resolve) => setTimeout(resolve, 2000)) // let the server settle its buffers
    const withStreams = rssMb(server.pid)
    const open = await stretch()
    for (const stream of streams) stream.close()
    return {
      'npm start RSS MB, no stream open': Math.round(before),
      [`npm start RSS MB, ${STREAMS} streams open`]: Math.round(withStreams),
      [`(a) RSS added by ${STREAMS} streams, MB (goal < 60)`]: Math.round(withStreams - before),
      'upstream calls in 35 s, 0 streams / 1000 streams': `${without.calls} / ${open.calls}`,
      'store commands in 35 s, 0 streams / 1000 streams': `${without.commands} / ${open.commands}`,
      '(b) difference, upstream calls + store commands (goal <= 2 each)': `${open.calls - without.calls}, ${open.commands - without.commands}`,
    }
  } finally {
    await server.stop()
    await Promise.all([upstream.close(), upstash.close()])
    await redis.stop()
  }
}
