import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { RawPair } from './syntheticMarket.js'

/** A way the fake upstream misbehaves, as seen in the wild (reference/upstream.md). */
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

const matchesText = (pair: RawPair, needle: string) =>
  [pair.baseToken.symbol, pair.baseToken.name, pair.quoteToken.symbol, pair.quoteToken.name, pair.baseToken.address, pair.quoteToken.address]
    .some((v) => typeof v === 'string' && v.toLowerCase().includes(needle))

const volumeOf = (pair: RawPair) => Number((pair.volume as { h24?: unknown } | undefined)?.h24 ?? 0) || 0

/** Starts the fake upstream on a free loopback port. */
export async function startFakeDexScreener(initialPairs: RawPair[] = []): Promise<FakeDexScreener> {
  let pairs = initialPairs
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
    const url = new URL(path, 'http://fake')
    if (url.pathname === '/latest/dex/search') {
      const needle = (url.searchParams.get('q') ?? '').toLowerCase()
      const found = pairs.filter((p) => matchesText(p, needle)).sort((a, b) => volumeOf(b) - volumeOf(a)).slice(0, 30)
      return reply(200, { schemaVersion: '1.0.0', pairs: found.length ? found : null })
    }
    const tokens = /^\/tokens\/v1\/([^/]+)\/(.+)$/.exec(url.pathname)
    if (tokens) {
      const wanted = new Set(decodeURIComponent(tokens[2]!).split(',').slice(0, 30).map((a) => a.toLowerCase()))
      const found = pairs.filter(
        (p) => p.chainId === tokens[1] && (wanted.has(p.baseToken.address.toLowerCase()) || wanted.has(String(p.quoteToken.address).toLowerCase())),
      )
      return reply(200, found)
    }
    return reply(404, { error: 'not found' })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setPairs: (next) => {
      pairs = next
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
