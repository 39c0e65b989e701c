import { readdir, readFile } from 'node:fs/promises'
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
  type Server,
  ServerResponse,
} from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { extname, join, normalize, resolve, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { getRequestListener } from '@hono/node-server'
import { DISCARD_LIMIT_BYTES } from '../lib/platform/http.js'

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)))

/** A Web handler as Vercel runs it: a plain Request in, a Response out. */
export type WebHandler = (request: Request) => Response | Promise<Response>

/** Parameters of {@link startServer}. */
export type StartServerParameters = {
  port?: number
  host?: string
  /** Handlers by endpoint name (`control-room` serves `/api/control-room`); default: every module in `api/`. */
  handlers?: Record<string, WebHandler>
  /** Folder served as static files at `/` (default `public/`). */
  publicDir?: string
  /** Rewrites applied before routing, as in vercel.json (`/openapi.json` -> `/api/openapi`). */
  rewrites?: Record<string, string>
  /** Headers added to every response that does not set them itself, as vercel.json's `headers` for `/(.*)`. */
  headers?: Record<string, string>
  /**
   * Reverse proxies in front that set `X-Forwarded-*` (`TRUST_PROXY`, default 0): with none, a client's own
   * `X-Forwarded-*` and `X-Real-IP` are dropped and its address is the connection's; with N, the client is the Nth
   * `X-Forwarded-For` entry from the right, and `X-Forwarded-Proto` is believed.
   */
  trustProxy?: number
  /** How long a client may take to send its request headers (default 20 s). */
  headersTimeoutMs?: number
  /** How long a client may take to send its whole request (default 60 s). */
  requestTimeoutMs?: number
}

/** A running local server. */
export type RunningServer = { url: string; server: Server; close(): Promise<void> }

/** Loads every handler module in `api/` exactly as Vercel would: the default export's `fetch`. */
export async function loadApiHandlers(apiDir = join(ROOT, 'api')): Promise<Record<string, WebHandler>> {
  const handlers: Record<string, WebHandler> = {}
  for (const file of (await readdir(apiDir)).sort()) {
    if (!/\.(ts|js|mjs)$/.test(file) || file.endsWith('.d.ts')) continue
    const module = (await import(pathToFileURL(join(apiDir, file)).href)) as { default?: { fetch?: WebHandler } }
    const fetchHandler = module.default?.fetch
    if (typeof fetchHandler === 'function') handlers[file.replace(/\.(ts|js|mjs)$/, '')] = fetchHandler
  }
  return handlers
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
}

async function serveStatic(publicDir: string, pathname: string): Promise<Response | null> {
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname === '/' ? '/index.html' : pathname)
  } catch {
    return new Response(JSON.stringify({ error: 'The path has a malformed percent escape.', code: 'MALFORMED_PATH' }), {
      status: 400,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    })
  }
  const relative = normalize(decoded).replace(/^([/\\])+/, '')
  const file = resolve(publicDir, relative)
  if (!file.startsWith(resolve(publicDir) + sep)) return null
  try {
    const body = await readFile(file)
    return new Response(body, { headers: { 'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream' } })
  } catch {
    return null
  }
}

/** The path of an endpoint: `/api/<name>`. */
const API_PATH = /^\/api\/[A-Za-z0-9_-]+\/?$/

/** Longest a client may take to finish sending a body the handler did not read. */
const DRAIN_DEADLINE_MS = 10_000

/** Requests whose unread body is being drained (each once). */
const draining = new WeakSet<IncomingMessage>()

/**
 * Reads and drops the rest of a request body, up to 1 MB and 10 s; past either the connection is closed. `done` runs
 * once the body has been read to its end. Called twice for one request, the second call only adds its `done`.
 */
function drainBody(req: IncomingMessage, done?: () => void): void {
  if (done) req.once('end', done)
  if (draining.has(req)) return
  draining.add(req)
  let size = 0
  const close = () => req.socket.destroy()
  const timer = setTimeout(close, DRAIN_DEADLINE_MS)
  timer.unref()
  req.on('data', (chunk: Buffer) => {
    size += chunk.length
    if (size > DISCARD_LIMIT_BYTES) close()
  })
  req.once('end', () => clearTimeout(timer))
  req.once('error', () => clearTimeout(timer))
  req.resume()
}

/**
 * Node closes a connection as soon as the answer to a `Connection: close` request is written, whether or not the
 * client is still sending its body; closing with unread bytes resets the connection, and the client, mid-upload,
 * sees the reset instead of its answer. Until such a body is drained (within {@link drainBody}'s bounds), the close
 * waits.
 */
function closeAfterBody(req: IncomingMessage): void {
  const socket = req.socket as Socket & { destroySoon?: () => void }
  const destroySoon = socket.destroySoon
  if (typeof destroySoon !== 'function') return
  socket.destroySoon = function deferredDestroySoon(this: Socket) {
    socket.destroySoon = destroySoon
    if (req.readableEnded || req.destroyed) return destroySoon.call(socket)
    drainBody(req, () => destroySoon.call(socket))
  }
}

/** Headers a client may claim about where it connects from; without a trusted proxy none is believed. */
const CLIENT_CLAIMED_HEADERS = /^x-(real-ip|forwarded-[a-z]+)$/i
/** The same behind trusted proxies, which set `X-Forwarded-Proto` and `-Host` themselves. */
const PROXY_SET_HEADERS = /^x-(real-ip|forwarded-for)$/i

/** The client's address behind `hops` trusted proxies: the `hops`th `X-Forwarded-For` entry from the right. */
function proxiedClient(req: IncomingMessage, hops: number): string | undefined {
  const entries = String(req.headers['x-forwarded-for'] ?? '')
    .split(',')
    .map((entry) => entry.trim())
  return entries[entries.length - hops]
}

/**
 * Gives the request `X-Real-IP: address` as Vercel's edge does, dropping every header `dropped` names first. Most
 * requests carry none, and are left as they came but for the one header added.
 */
function setClientAddress(req: IncomingMessage, address: string, dropped: RegExp): void {
  const raw = req.rawHeaders
  let claims = false
  for (let i = 0; i < raw.length && !claims; i += 2) claims = (raw[i]!.charCodeAt(0) | 32) === 120 && dropped.test(raw[i]!) // x…
  if (claims) {
    const kept: string[] = []
    for (let i = 0; i < raw.length; i += 2) if (!dropped.test(raw[i]!)) kept.push(raw[i]!, raw[i + 1]!)
    req.rawHeaders = kept
    for (const name of Object.keys(req.headers)) if (dropped.test(name)) delete req.headers[name]
  }
  req.rawHeaders.push('x-real-ip', address)
  req.headers['x-real-ip'] = address
}

/**
 * A `ServerResponse` that sends vercel.json's site-wide headers with every answer; a header the handler sets itself
 * wins. They join the record the answer's headers are written from, so Node keeps its fast path (headers set one by
 * one beforehand would make it copy and check every header of every answer again).
 */
function responseWithSiteHeaders(siteHeaders: Readonly<Record<string, string>>): typeof ServerResponse {
  const names = Object.keys(siteHeaders)
  if (names.length === 0) return ServerResponse
  const values = names.map((name) => siteHeaders[name]!)
  // The site headers a name of each length could be (in any letter case): most names are no site header's length.
  const byLength: number[][] = []
  for (const [index, name] of names.entries()) {
    byLength[name.length] ??= []
    byLength[name.length]!.push(index)
  }
  class SiteHeadersResponse extends ServerResponse {
    #oneByOne = false

    override setHeader(name: string, value: number | string | readonly string[]): this {
      this.#oneByOne = true
      return super.setHeader(name, value)
    }

    override writeHead(
      statusCode: number,
      reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
      headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
    ): this {
      const hasReason = typeof reasonOrHeaders === 'string'
      const given = hasReason ? headers : reasonOrHeaders
      let all: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined = given
      if (this.#oneByOne || given === undefined || Array.isArray(given)) {
        // Headers set one by one (or a raw list): Node merges them with these.
        for (const name of names) if (!this.hasHeader(name)) super.setHeader(name, siteHeaders[name]!)
      } else {
        // One flat list, [name, value, name, value, …], which Node writes as it is: the record's headers, then the
        // site's that the record does not name.
        const list: OutgoingHttpHeader[] = []
        let named = 0
        for (const key in given) {
          const value = given[key]
          if (value === undefined) continue
          const candidates = byLength[key.length]
          if (candidates)
            for (const index of candidates) if (key === names[index] || key.toLowerCase() === names[index]) named |= 1 << index
          list.push(key, value)
        }
        for (let index = 0; index < names.length; index++) if ((named & (1 << index)) === 0) list.push(names[index]!, values[index]!)
        all = list
      }
      return hasReason ? super.writeHead(statusCode, reasonOrHeaders, all) : super.writeHead(statusCode, all)
    }
  }
  return SiteHeadersResponse as typeof ServerResponse
}

/**
 * Starts the local server that mounts the same handler code Vercel runs, at `/api/<name>`. Node's requests become Web
 * `Request`s through `@hono/node-server` (a well-kept adapter with a fast path for string and byte bodies); it also
 * reads and discards a body the handler answered without reading (a 403 or 413), so the client gets its status
 * instead of a reset connection.
 */
export async function startServer(parameters: StartServerParameters = {}): Promise<RunningServer> {
  const {
    port = 3000,
    host = '127.0.0.1',
    publicDir = join(ROOT, 'public'),
    rewrites = {},
    headers: siteHeaders = {},
    trustProxy = 0,
    headersTimeoutMs = 20_000,
    requestTimeoutMs = 60_000,
  } = parameters
  const handlers = parameters.handlers ?? (await loadApiHandlers())
  // Looked up by the whole path, with or without its trailing slash: no pattern to match on the way to an endpoint.
  const endpoints = new Map<string, WebHandler>()
  for (const [name, handler] of Object.entries(handlers)) endpoints.set(`/api/${name}`, handler).set(`/api/${name}/`, handler)
  const rewriteOf = new Map(Object.entries(rewrites))

  const notFound = (pathname: string) =>
    new Response(JSON.stringify({ error: `No route for ${pathname}`, code: 'NOT_FOUND' }), {
      status: 404,
      headers: { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*' },
    })

  /** The answer to a request: an endpoint's (at once when it has it at once), a static file's, or a 404. */
  const route = (request: Request): Response | Promise<Response> => {
    // The adapter's URL is absolute and already checked: its path is what follows the authority, up to the query.
    const href = request.url
    const pathStart = href.indexOf('/', href.indexOf('//') + 2)
    const queryStart = href.indexOf('?', pathStart)
    const requested = queryStart < 0 ? href.slice(pathStart) : href.slice(pathStart, queryStart)
    const pathname = rewriteOf.get(requested) ?? requested
    const handler = endpoints.get(pathname)
    const readOnly = request.method === 'GET' || request.method === 'HEAD'
    if (handler) {
      const routed =
        pathname === requested
          ? request
          : new Request(new URL(pathname + href.slice(queryStart < 0 ? href.length : queryStart), href), request)
      // Only a GET or HEAD is answered at once, while Node may still be parsing what followed it. Node's own client
      // sends the body of a DELETE, OPTIONS or TRACE without framing, and those bytes read as a next request: the
      // 400 for them must reach the client first, as the one answer to what it sent.
      return readOnly ? handler(routed) : Promise.resolve(routed).then(handler)
    }
    if (!readOnly || API_PATH.test(pathname)) return notFound(requested)
    return serveStatic(publicDir, pathname).then((file) => file ?? notFound(requested))
  }

  const listener = getRequestListener(
    (request, { incoming, outgoing }) => {
      // A body past 1 MB that the handler does not read is not worth draining: answer, then close the connection.
      if (Number(incoming.headers['content-length'] ?? 0) > DISCARD_LIMIT_BYTES) outgoing.setHeader('connection', 'close')
      return route(request)
    },
    {
      // Unread bodies are drained below, with a deadline that fits slow clients (the adapter's own gives 500 ms).
      autoCleanupIncoming: false,
      // A handler never throws by design; if one does, the process stays up and the client gets a plain 500.
      errorHandler: () =>
        new Response(JSON.stringify({ error: 'Internal error', code: 'INTERNAL' }), {
          status: 500,
          headers: { 'content-type': 'application/json; charset=utf-8' },
        }),
    },
  )
  // Node checks the two deadlines every 30 s by default, so a 20 s limit could hold a connection 50 s: check each second.
  const server = createServer(
    { connectionsCheckingInterval: Math.min(1000, headersTimeoutMs), ServerResponse: responseWithSiteHeaders(siteHeaders) },
    (req, res) => {
      // As Vercel's edge does: the client's address comes from the connection (or the trusted proxies' X-Forwarded-For),
      // never from what the client claims; without a trusted proxy no X-Forwarded-* of the client's is believed.
      const address = (trustProxy > 0 ? proxiedClient(req, trustProxy) : undefined) || req.socket.remoteAddress || 'unknown'
      setClientAddress(req, address, trustProxy > 0 ? PROXY_SET_HEADERS : CLIENT_CLAIMED_HEADERS)
      // A body the handler answered without reading (a 405, a preflight, a refusal) is read and dropped, up to 1 MB, so
      // the client gets its answer on a live connection instead of a reset.
      const mayHaveBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined
      if (mayHaveBody) {
        closeAfterBody(req)
        res.once('finish', () => {
          if (!req.readableEnded) drainBody(req)
        })
      }
      void listener(req, res)
    },
  )
  // A request Node cannot parse (an unknown method, a malformed header) still gets a JSON answer, then the connection
  // closes after the client's bytes are read, not reset under them.
  // Node's parser goes on reading what the client sends after the bad request, and reports each later chunk as an
  // error again: the answered socket is left to finish, or to its deadline, rather than reset mid-upload.
  const answered = new WeakSet<Socket>()
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (answered.has(socket) && error.code !== 'ECONNRESET') return
    if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy()
    answered.add(socket)
    socket.resume()
    setTimeout(() => socket.destroy(), DRAIN_DEADLINE_MS).unref()
    // Bytes that follow a request already being answered (a body sent without framing): that answer is the client's,
    // and a second one would reach it unasked. As Node's own handler does, the connection closes after that answer.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
    if (inFlight?.headersSent) {
      if (inFlight.writableFinished) socket.end()
      else inFlight.once('finish', () => socket.end())
      return
    }
    const late = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
    const body = JSON.stringify(
      late
        ? { error: 'The request took too long to arrive and was not processed.', code: 'REQUEST_TIMEOUT' }
        : { error: 'The request is not valid HTTP and was not processed.', code: 'MALFORMED_REQUEST' },
    )
    const status = late ? '408 Request Timeout' : '400 Bad Request'
    socket.end(
      `HTTP/1.1 ${status}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    )
  })
  // A client gets 20 s to send its headers and 60 s for its whole request (Node's own are 60 s and 300 s).
  server.headersTimeout = headersTimeoutMs
  server.requestTimeout = requestTimeoutMs
  await new Promise<void>((ok, fail) => {
    server.once('error', fail)
    server.listen(port, host, () => ok())
  })
  const address = server.address() as AddressInfo
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`
  return {
    url,
    server,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}

/** The rewrites and site-wide headers of vercel.json, so `npm start` answers like a deployment. */
export async function vercelRouting(): Promise<{ rewrites: Record<string, string>; headers: Record<string, string> }> {
  const config = JSON.parse(await readFile(join(ROOT, 'vercel.json'), 'utf8')) as {
    rewrites?: { source: string; destination: string }[]
    headers?: { source: string; headers: { key: string; value: string }[] }[]
  }
  return {
    rewrites: Object.fromEntries((config.rewrites ?? []).map((r) => [r.source, r.destination])),
    headers: Object.fromEntries(
      (config.headers ?? []).filter((h) => h.source === '/(.*)').flatMap((h) => h.headers.map((x) => [x.key.toLowerCase(), x.value])),
    ),
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { getReadServices } = await import('../lib/read/services.js')
  const { loadPublicOrigin } = await import('../lib/platform/config.js')
  let describe: string
  try {
    describe = getReadServices().describe
    loadPublicOrigin(process.env)
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error))
    process.exit(1)
  }
  const trustProxy = Number(process.env.TRUST_PROXY ?? 0)
  if (!Number.isInteger(trustProxy) || trustProxy < 0 || trustProxy > 5) {
    console.error('Invalid npm start configuration: TRUST_PROXY: must be the number of proxies in front, 0 to 5')
    process.exit(1)
  }
  const port = Number(process.env.PORT ?? 3000)
  const running = await startServer({ port, host: process.env.HOST ?? '127.0.0.1', trustProxy, ...(await vercelRouting()) })
  // The scheduled work runs here too, so a self-hosted server is always on (TICK_INTERVAL_SECONDS=0 turns it off).
  const { startInProcessTicker } = await import('../lib/tick/ticker.js')
  const ticker = await startInProcessTicker().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error))
    process.exit(1)
  })
  const ticking = ticker.intervalSeconds > 0 ? `tick every ${ticker.intervalSeconds} s` : 'tick off'
  console.log(`listening on ${running.url} (${describe}, ${ticking})`)
  const stop = () => void running.close().then(() => process.exit(0))
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}
