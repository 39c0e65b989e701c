import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'

// An HTTP proxy in front of a local part (the store's REST front, the RPC, KMS, the facilitator) that fails calls on
// cue, as one instance sees that part: a call is passed, answered 503 without reaching the part, reached and its
// answer lost, or cut off (the connection dropped: the instance's process is gone).

/** What becomes of one call: `pass`; `refuse` (503, the part never saw it); `lose-answer` (the part did it, the answer is lost); `cut` (dropped, never sent). */
export type ProxyVerdict = 'pass' | 'refuse' | 'lose-answer' | 'cut'

/** The running proxy. */
export type FaultProxy = { url: string; close(): Promise<void> }

/** Parameters of {@link startFaultProxy}. */
export type StartFaultProxyParameters = {
  /** The part's base URL (`http://127.0.0.1:port`). */
  target: string
  /** Asked once per call, as it arrives, with its path. */
  verdict: (path: string) => ProxyVerdict
  /** Asked when the part's answer is back: false drops it (the instance died while it waited). */
  deliver: () => boolean
}

/** Starts the proxy on a free loopback port. */
export async function startFaultProxy({ target, verdict, deliver }: StartFaultProxyParameters): Promise<FaultProxy> {
  const to = new URL(target)
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const said = verdict(req.url ?? '/')
    if (said === 'cut') return void req.socket.destroy()
    if (said === 'refuse') {
      res.writeHead(503, { 'content-type': 'application/json' })
      return void res.end('{"error":"unavailable"}')
    }
    const forwarded = httpRequest(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } },
      async (answer) => {
        const body: Buffer[] = []
        for await (const chunk of answer) body.push(chunk as Buffer)
        if (said === 'lose-answer' || !deliver()) return void req.socket.destroy()
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        res.end(Buffer.concat(body))
      },
    )
    forwarded.on('error', () => req.socket.destroy())
    forwarded.end(Buffer.concat(chunks))
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}
