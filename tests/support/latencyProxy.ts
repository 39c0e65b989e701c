import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A delaying HTTP proxy in front of a local part, so a benchmark sees production's distance (Base RPC, KMS, Upstash). */
export type LatencyProxy = {
  url: string
  /** Every request forwarded: when it arrived and when its answer was sent (performance.now() ms). */
  requests: { start: number; end: number }[]
  close(): Promise<void>
}

/** Parameters of {@link startLatencyProxy}. */
export type StartLatencyProxyParameters = {
  /** The part's base URL (`http://127.0.0.1:port`). */
  target: string
  /** Round-trip time added to every request, split evenly between the way there and the way back. */
  delayMs: number
}

/**
 * Starts a proxy that holds each request for half the delay before forwarding it and each answer for the other half
 * before sending it back: every call costs one round trip of `delayMs`, however many are in flight at once.
 */
export async function startLatencyProxy({ target, delayMs }: StartLatencyProxyParameters): Promise<LatencyProxy> {
  const to = new URL(target)
  const requests: LatencyProxy['requests'] = []
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms))
  const server = createServer(async (req, res) => {
    const start = performance.now()
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    await wait(delayMs / 2)
    const forwarded = httpRequest(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } },
      async (answer) => {
        const body: Buffer[] = []
        for await (const chunk of answer) body.push(chunk as Buffer)
        await wait(delayMs / 2)
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        res.end(Buffer.concat(body))
        requests.push({ start, end: performance.now() })
      },
    )
    forwarded.on('error', () => {
      if (!res.headersSent) res.writeHead(502)
      res.end()
    })
    forwarded.end(Buffer.concat(chunks))
  })
  server.keepAliveTimeout = 30_000
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}

/**
 * How many round trips of a proxy lie on the path between `from` and `to`: requests that overlap in time count once
 * (they were made together), so the answer is the number of waves one after another.
 */
export function sequentialRoundTrips(requests: readonly { start: number; end: number }[], from: number, to: number): number {
  const inside = requests.filter((r) => r.start >= from && r.end <= to).sort((a, b) => a.start - b.start)
  let waves = 0
  let waveEnd = -Infinity
  for (const r of inside) {
    if (r.start >= waveEnd) {
      waves++
      waveEnd = r.end
    } else waveEnd = Math.max(waveEnd, r.end)
  }
  return waves
}
