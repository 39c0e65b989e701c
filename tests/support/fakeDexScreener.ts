import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { RawPair } from './syntheticMarket.js'

/** A way the fake upstream misbehaves, as seen in the wild. */
export type Fault =
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: string }
  | { kind: 'html'; status?: number }
  | { kind: 'json'; body: unknown }
  | { kind: 'reset' }
  | { kind: 'hang' }
  | { kind: 'delay'; ms: number }

/** A local DexScreener-shaped HTTP server over a list of raw pairs. */
export type FakeDexScreener = {
  url: string
  /** Paths (with query) of every request received, in order. */
  requests: string[]
  setPairs(pairs: RawPair[]): void
  /** Fixed delay before every answer (benchmarks). */
  setDelay(ms: number): void
  /** Answers the next request whose path starts with `prefix` with `fault`. */
  failOnce(prefix: string, fault: Fault): void
  /** Answers every request whose path starts with `prefix` with `fault` until {@link clearFaults}. */
  failAlways(prefix: string, fault: Fault): void
  clearFaults(): void
  close(): Promise<void>
}

const ANTI_BOT_PAGE = '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>'

const volumeOf = (pair: RawPair) => Number((pair.volume as { h24?: unknown } | undefined)?.h24 ?? 0) || 0

/** Pairs per token in a `/tokens/v1` answer. */
const TOKEN_PAIRS_MAX = 30

/** DexScreener's promoted lists (paid boosts and profiles). */
const PROMOTED_PATHS = {
  'boosts-latest': '/token-boosts/latest/v1',
  'boosts-top': '/token-boosts/top/v1',
  'profiles-latest': '/token-profiles/latest/v1',
} as const

/**
 * A promoted list as DexScreener serves it: mostly other chains' tokens, with a few of the market's Base tokens (a
 * different handful per list, chosen by address, not by volume: promotion is bought, not earned).
 */
function promotedList(pairs: readonly RawPair[], list: string): unknown[] {
  const salt = list.length
  const base = [...new Set(pairs.filter((p) => p.chainId === 'base').map((p) => p.baseToken.address))]
    .filter((address) => Number.parseInt(address.slice(-2), 16) % 7 === salt % 7)
    .slice(0, 8)
  const others = pairs.filter((p) => p.chainId !== 'base').slice(0, 22)
  return [
    ...others.map((p) => ({ url: 'https://dexscreener.com/x', chainId: p.chainId, tokenAddress: p.baseToken.address, amount: 100 })),
    ...base.map((tokenAddress) => ({ url: 'https://dexscreener.com/base/x', chainId: 'base', tokenAddress, amount: 50, totalAmount: 500 })),
  ]
}

/** Starts the fake upstream on a free loopback port. */
export async function startFakeDexScreener(initialPairs: RawPair[] = []): Promise<FakeDexScreener> {
  let pairs = initialPairs
  // Indexes, rebuilt when the market changes, so the fake answers as fast as a real one and never dominates a benchmark.
  let index: { byVolume: RawPair[]; text: string[]; byAddress: Map<string, RawPair[]> } | null = null
  const indexed = () => {
    if (index) return index
    const byVolume = [...pairs].sort((a, b) => volumeOf(b) - volumeOf(a))
    const text = byVolume.map((p) =>
      [p.baseToken.symbol, p.baseToken.name, p.quoteToken.symbol, p.quoteToken.name, p.baseToken.address, p.quoteToken.address]
        .filter((v) => typeof v === 'string')
        .join('\u0000')
        .toLowerCase(),
    )
    const byAddress = new Map<string, RawPair[]>()
    for (const p of byVolume) {
      for (const address of new Set(
        [p.baseToken.address, String(p.quoteToken.address)].map((a) => `${p.chainId}:${String(a).toLowerCase()}`),
      )) {
        const list = byAddress.get(address) ?? []
        list.push(p)
        byAddress.set(address, list)
      }
    }
    index = { byVolume, text, byAddress }
    return index
  }
  // Answers already written, by path, until the market changes: a tick asks the same questions every time, and writing
  // the same JSON again was the fake's largest cost in a week of ticks (a real upstream answers from its cache too).
  const written = new Map<string, string>()
  let delay = 0
  const once: { prefix: string; fault: Fault }[] = []
  const always: { prefix: string; fault: Fault }[] = []
  const requests: string[] = []

  const server = createServer(async (req, res) => {
    const path = req.url ?? '/'
    requests.push(path)
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      if (res.destroyed) return
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end(typeof body === 'string' ? body : JSON.stringify(body))
    }
    if (delay > 0) await new Promise((r) => setTimeout(r, delay))
    const onceIndex = once.findIndex((f) => path.startsWith(f.prefix))
    const fault = onceIndex >= 0 ? once.splice(onceIndex, 1)[0]!.fault : always.find((f) => path.startsWith(f.prefix))?.fault
    if (fault) {
      switch (fault.kind) {
        case 'status':
          return reply(fault.status, fault.body ?? JSON.stringify({ error: `status ${fault.status}` }), fault.headers)
        case 'html':
          res.writeHead(fault.status ?? 200, { 'content-type': 'text/html' })
          return void res.end(ANTI_BOT_PAGE)
        case 'json':
          return reply(200, fault.body)
        case 'reset':
          return void req.socket.destroy()
        case 'hang':
          return // never answers; the client's timeout must fire
        case 'delay':
          await new Promise((r) => setTimeout(r, fault.ms))
      }
    }
    const cached = written.get(path)
    if (cached !== undefined) return reply(200, cached)
    const answer = (body: unknown) => {
      const json = JSON.stringify(body)
      written.set(path, json)
      reply(200, json)
    }
    const url = new URL(path, 'http://fake')
    if (url.pathname === '/latest/dex/search') {
      const needle = (url.searchParams.get('q') ?? '').toLowerCase()
      const { byVolume, text } = indexed()
      const found: RawPair[] = []
      for (let i = 0; i < byVolume.length && found.length < 30; i++) if (text[i]!.includes(needle)) found.push(byVolume[i]!)
      return answer({ schemaVersion: '1.0.0', pairs: found.length ? found : null })
    }
    const tokens = /^\/tokens\/v1\/([^/]+)\/(.+)$/.exec(url.pathname)
    if (tokens) {
      // Per requested token its 30 highest-volume pairs on the chain (either side), as the real answer is bounded:
      // a hub token's answer is not every pair of the chain.
      const wanted = decodeURIComponent(tokens[2]!)
        .split(',')
        .slice(0, 30)
        .map((a) => a.toLowerCase())
      const found = new Set<RawPair>()
      for (const address of wanted)
        for (const p of (indexed().byAddress.get(`${tokens[1]}:${address}`) ?? []).slice(0, TOKEN_PAIRS_MAX)) found.add(p)
      return answer([...found])
    }
    const promoted = Object.entries(PROMOTED_PATHS).find(([, route]) => route === url.pathname)?.[0]
    if (promoted) return answer(promotedList(pairs, promoted))
    return reply(404, { error: 'not found' })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setPairs: (next) => {
      pairs = next
      index = null
      written.clear()
    },
    setDelay: (ms) => {
      delay = ms
    },
    failOnce: (prefix, fault) => void once.push({ prefix, fault }),
    failAlways: (prefix, fault) => void always.push({ prefix, fault }),
    clearFaults: () => {
      once.length = 0
      always.length = 0
    },
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}
