import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { launchMessage } from '../lib/launches/chainEvents.js'
import { chainEventsChannel } from '../lib/launches/keys.js'
import type { Launch } from '../lib/launches/schema.js'
import { createUpstashStore } from '../lib/store/upstash.js'
import { startFakeDexScreener } from '../tests/support/fakeDexScreener.js'
import { startNpmStart } from '../tests/support/npmStart.js'
import { startRedisServer } from '../tests/support/redisServer.js'
import { createSyntheticMarket } from '../tests/support/syntheticMarket.js'
import { startUpstashRestServer } from '../tests/support/upstashRestServer.js'

// `npm run bench -- stream`: what open streams cost one `npm start`. Memory: its resident set before and with 1,000
// streams open, each of which has had its first event (goal: under 60 MB more). Cost: the upstream calls and store
// commands of one 35 s stretch (a refresh window and its look) while a client polls the room once a second, with no
// stream open, with 200 open, and with 1,000 open (goal: at most 2 more store commands, and the same upstream calls,
// give or take 2). Every command the server sends goes through its Upstash front, SUBSCRIBE included (a subscription
// is one command however long it stays open), and is counted by name. In the middle of the 200 streams' stretch a
// launch is published on the chain's events channel through a second front over the same Redis, as the deploy side
// would after a receipt: how many streams got it, and how soon. The streams come from this process, a separate one
// from the server.

const STREAMS = 1000
const FEW_STREAMS = 200
const STRETCH_MS = 35_000
const PREFIX = `bench-stream-${process.pid}:`

/** The server's resident set, in MB. */
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024

/** An open stream: when it got its first `launch` event (performance.now(), null: none yet), and how to end it. */
type OpenStream = { launchAt: () => number | null; close: () => void }

/** Opens a stream and resolves once its first event has arrived; `close` ends it. */
function openStream(url: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/stream`, { agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`))
      let seen = ''
      let tail = ''
      let launchAt: number | null = null
      res.on('data', (chunk: Buffer) => {
        if (seen.length < 64) seen += chunk.toString('latin1', 0, 64)
        if (launchAt === null) {
          // Only the frame's head is looked at; a frame split across chunks is caught by the tail kept.
          const text = tail + chunk.toString('latin1', 0, Math.min(chunk.length, 256))
          if (text.includes('event: launch')) launchAt = performance.now()
          tail = chunk.toString('latin1', Math.max(0, chunk.length - 16))
        }
        if (seen.includes('event: control-room')) resolve({ launchAt: () => launchAt, close: () => req.destroy() })
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

/** A confirmed launch as the deploy side publishes it (its facts made up; the stream only relays them). */
const benchLaunch = (at: number): Launch => ({
  address: `0x${'b'.repeat(40)}`,
  name: 'Bench Launch',
  symbol: 'BNCH',
  variant: 'asset',
  decimals: 18,
  initialSupply: '1000',
  supplyCap: null,
  createdAt: new Date(at).toISOString(),
  txHash: `0x${'c'.repeat(64)}`,
  roles: { admin: null, minter: null },
  status: 'confirmed',
  pool: null,
  powers: null,
  market: null,
  metadata: null,
})

/** Commands by name, most first: `GET 3, EVALSHA 2`. */
const byName = (commands: readonly string[]) => {
  const counts = new Map<string, number>()
  for (const name of commands) counts.set(name, (counts.get(name) ?? 0) + 1)
  return (
    [...counts]
      .sort((a, b) => b[1] - a[1])
      .map(([name, n]) => `${name} ${n}`)
      .join(', ') || 'none'
  )
}

/** Runs the stream benchmark. */
export async function benchStream(): Promise<Record<string, number | string>> {
  const redis = await startRedisServer()
  const upstash = await startUpstashRestServer({ redisSocket: redis.socket })
  // The deploy side's way to the same Redis: what it publishes is not the stream instance's cost.
  const publisherFront = await startUpstashRestServer({ redisSocket: redis.socket })
  const publisher = createUpstashStore({ url: publisherFront.url, token: publisherFront.token })
  const upstream = await startFakeDexScreener(createSyntheticMarket())
  const server = await startNpmStart({
    DEXSCREENER_BASE_URL: upstream.url,
    UPSTASH_REDIS_REST_URL: upstash.url,
    UPSTASH_REDIS_REST_TOKEN: upstash.token,
    STORE_KEY_PREFIX: PREFIX,
    // Every stream comes from this one address: the per-client limit is lifted for the bench.
    STREAM_MAX_PER_CLIENT: String(STREAMS + 10),
  })
  try {
    await (await fetch(`${server.url}/api/control-room`)).arrayBuffer()
    const warm = await openStream(server.url)
    warm.close()
    /** Upstream calls and store commands (by name) over one stretch, with a poller running; `midway` runs halfway. */
    const stretch = async (midway?: () => Promise<void>) => {
      const [calls, commands] = [upstream.requests.length, upstash.commands.length]
      const stop = poll(server.url)
      await new Promise((resolve) => setTimeout(resolve, STRETCH_MS / 2))
      await midway?.()
      await new Promise((resolve) => setTimeout(resolve, STRETCH_MS / 2))
      stop()
      const sent = upstash.commands.slice(commands)
      return { calls: upstream.requests.length - calls, commands: sent.length, names: byName(sent) }
    }
    /** Opens `count` more streams, 100 at a time, and lets the server settle its buffers. */
    const openMore = async (count: number) => {
      for (let i = 0; i < count; i += 100) streams.push(...(await Promise.all(Array.from({ length: 100 }, () => openStream(server.url)))))
      await new Promise((resolve) => setTimeout(resolve, 2000))
    }
    const streams: OpenStream[] = []
    const without = await stretch()
    global.gc?.()
    const before = rssMb(server.pid)
    const opening = upstash.commands.length
    await openMore(FEW_STREAMS)
    const openingCost = byName(upstash.commands.slice(opening))
    const subscriptions = upstash.subscriptions
    let publishedAt = 0
    const few = await stretch(async () => {
      publishedAt = performance.now()
      await publisher.publish(chainEventsChannel(PREFIX, 8453), launchMessage(benchLaunch(Date.now()), Date.now()))
    })
    const delays = streams
      .map((s) => s.launchAt())
      .filter((at): at is number => at !== null)
      .map((at) => at - publishedAt)
    await openMore(STREAMS - FEW_STREAMS)
    const withStreams = rssMb(server.pid)
    const many = await stretch()
    for (const stream of streams) stream.close()
    return {
      'npm start RSS MB, no stream open': Math.round(before),
      [`npm start RSS MB, ${STREAMS} streams open`]: Math.round(withStreams),
      [`(a) RSS added by ${STREAMS} streams, MB (goal < 60)`]: Math.round(withStreams - before),
      [`store commands opening the first ${FEW_STREAMS} streams`]: openingCost,
      [`subscriptions the server holds with ${FEW_STREAMS} streams open`]: subscriptions,
      [`upstream calls in 35 s, 0 / ${FEW_STREAMS} / ${STREAMS} streams`]: `${without.calls} / ${few.calls} / ${many.calls}`,
      [`store commands in 35 s, 0 / ${FEW_STREAMS} / ${STREAMS} streams`]: `${without.commands} / ${few.commands} / ${many.commands}`,
      'store commands by name, 0 streams': without.names,
      [`store commands by name, ${FEW_STREAMS} streams (a launch published midway)`]: few.names,
      [`store commands by name, ${STREAMS} streams`]: many.names,
      [`(b) difference to 0 streams, store commands, ${FEW_STREAMS} / ${STREAMS} (goal <= 2)`]: `${few.commands - without.commands} / ${many.commands - without.commands}`,
      [`(b) difference to 0 streams, upstream calls, ${FEW_STREAMS} / ${STREAMS} (goal <= 2)`]: `${few.calls - without.calls} / ${many.calls - without.calls}`,
      [`(c) streams that got the launch, of ${FEW_STREAMS}`]: delays.length,
      '(c) the launch after its PUBLISH, ms, slowest stream (goal < 5000)': delays.length ? Math.round(Math.max(...delays)) : 'none',
    }
  } finally {
    await server.stop()
    await Promise.all([upstream.close(), upstash.close(), publisherFront.close()])
    await redis.stop()
  }
}
