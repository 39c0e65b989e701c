import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { ControlRoom } from '../lib/market/types.js'
import { startFakeDexScreener } from '../tests/support/fakeDexScreener.js'
import { startFakeGeckoTerminal } from '../tests/support/fakeGeckoTerminal.js'
import { startNpmStart } from '../tests/support/npmStart.js'
import { startRedisServer } from '../tests/support/redisServer.js'
import { createSyntheticMarket } from '../tests/support/syntheticMarket.js'
import { startUpstashRestServer } from '../tests/support/upstashRestServer.js'
import { startUpstreamThread } from './upstreamThread.js'

/** Interleaved rounds of the throughput comparison. */
const ROUNDS = 3
const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** One run of `bench/manyClients.mjs`: load from its own process, each request from another client address. */
type ManyClientsResult = { rps: number; p50Ms: number; p99Ms: number; errors: number; non2xx: number }

/** Measures `url` for 5 s with 50 connections, every request from a client of its own (the throttle's real case). */
async function fromManyClients(url: string): Promise<ManyClientsResult> {
  const { stdout } = await promisify(execFile)(process.execPath, [`${ROOT}bench/manyClients.mjs`, url, '5', '50'])
  return JSON.parse(stdout) as ManyClientsResult
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const round2 = (n: number) => Math.round(n * 100) / 100

/**
 * `npm run bench -- ohlcv`: a warm token-ohlcv request against a warm control-room read on `npm start` (load from
 * autocannon's own process, rounds interleaved, ratio of the medians), then what a cold one costs on Upstash (commands
 * counted at the Upstash front over redis-server) and upstream (calls counted at the fake upstreams).
 */
export async function benchOhlcv(): Promise<Record<string, number | string>> {
  return { ...(await warmThroughput()), ...(await coldCost()) }
}

/**
 * Warm token-ohlcv (its per-client throttle included, at its default) against the warm control room, on the in-process
 * store, both under the same load: many clients of a few requests each, as a public endpoint is asked.
 */
async function warmThroughput(): Promise<Record<string, number | string>> {
  const upstream = await startUpstreamThread(0, { gecko: true })
  const service = await startNpmStart({ DEXSCREENER_BASE_URL: upstream.url, GECKOTERMINAL_BASE_URL: upstream.geckoUrl!, TRUST_PROXY: '1' })
  try {
    const roomUrl = `${service.url}/api/control-room`
    const room = (await (await fetch(roomUrl)).json()) as ControlRoom
    const ohlcvUrl = `${service.url}/api/token-ohlcv?address=${room.liveActivity[0]!.address}&timeframe=hour&limit=100`
    const runs = { room: [] as ManyClientsResult[], ohlcv: [] as ManyClientsResult[] }
    for (let i = 0; i < ROUNDS; i++) {
      // Each run starts warm: one read makes (or keeps) the body the run is served from.
      await (await fetch(roomUrl)).arrayBuffer()
      runs.room.push(await fromManyClients(roomUrl))
      await (await fetch(ohlcvUrl)).arrayBuffer()
      runs.ohlcv.push(await fromManyClients(ohlcvUrl))
    }
    for (const r of [...runs.room, ...runs.ohlcv])
      if (r.errors > 0 || r.non2xx > 0) throw new Error(`a run got ${r.errors} errors, ${r.non2xx} non-2xx`)
    const rps = (list: ManyClientsResult[]) => median(list.map((r) => r.rps))
    const each = (list: ManyClientsResult[]) => list.map((r) => Math.round(r.rps)).join(' / ')
    return {
      'warm control-room req/s, runs': each(runs.room),
      'warm token-ohlcv req/s, runs (its per-client throttle included)': each(runs.ohlcv),
      'warm token-ohlcv / warm control-room, ratio of medians': round2(rps(runs.ohlcv) / rps(runs.room)),
      'token-ohlcv p50 / p99 ms under 50 connections': `${median(runs.ohlcv.map((r) => r.p50Ms))} / ${median(runs.ohlcv.map((r) => r.p99Ms))}`,
    }
  } finally {
    await service.stop()
    await upstream.close()
  }
}

/** What cold and warm candle requests cost: store commands at the Upstash front, upstream calls at the fakes. */
async function coldCost(): Promise<Record<string, number | string>> {
  const redis = await startRedisServer()
  const upstash = await startUpstashRestServer({ redisSocket: redis.socket })
  const market = createSyntheticMarket()
  const dexscreener = await startFakeDexScreener(market)
  const gecko = await startFakeGeckoTerminal(market, { perMinute: 1000 })
  const env = {
    DEXSCREENER_BASE_URL: dexscreener.url,
    GECKOTERMINAL_BASE_URL: gecko.url,
    UPSTASH_REDIS_REST_URL: upstash.url,
    UPSTASH_REDIS_REST_TOKEN: upstash.token,
    STORE_KEY_PREFIX: 'ohlcvbench:',
  }
  const [one, other] = [await startNpmStart(env), await startNpmStart(env)]
  try {
    const room = (await (await fetch(`${one.url}/api/control-room`)).json()) as ControlRoom
    const inRoom = room.liveActivity[5]!.address
    const outside = market.find(
      (p) => p.chainId === 'base' && !room.liveActivity.some((t) => t.address === p.baseToken.address.toLowerCase()),
    )!
    const cost = async (url: string) => {
      const [commands, dex, geo] = [upstash.commands.length, dexscreener.requests.length, gecko.requests.length]
      const status = (await fetch(url)).status
      if (status !== 200) throw new Error(`${url} answered ${status}`)
      return { commands: upstash.commands.slice(commands), upstream: dexscreener.requests.length - dex + gecko.requests.length - geo }
    }
    const path = (address: string) => `/api/token-ohlcv?address=${address}&timeframe=hour&limit=100`
    await fetch(`${other.url}/api/control-room`) // the second instance holds the room too, as a busy one would
    const cold = await cost(`${one.url}${path(inRoom)}`)
    await cost(`${one.url}${path(inRoom)}`) // the throttle's script is now known to Redis on this instance too
    const warm = await cost(`${one.url}${path(inRoom)}`)
    const shared = await cost(`${other.url}${path(inRoom)}`)
    const coldOutside = await cost(`${one.url}${path(outside.baseToken.address.toLowerCase())}`)
    const describe = ({ commands }: { commands: string[] }) => `${commands.length} (${commands.join(' ')})`
    return {
      'cold, a top-100 token: store commands': describe(cold),
      'cold, a top-100 token: upstream calls': cold.upstream,
      'cold, a token outside the top 100: store commands': describe(coldOutside),
      'cold, a token outside the top 100: upstream calls (its pool looked up once)': coldOutside.upstream,
      'warm, same instance: store commands (the per-client throttle)': describe(warm),
      'warm, same instance: upstream calls': warm.upstream,
      'warm, another instance: store commands': describe(shared),
      'warm, another instance: upstream calls': shared.upstream,
    }
  } finally {
    await Promise.all([one.stop(), other.stop()])
    await Promise.all([dexscreener.close(), gecko.close(), upstash.close()])
    await redis.stop()
  }
}
