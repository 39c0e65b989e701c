import { readdir, readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { getRequestListener } from '@hono/node-server'
import { serveStatic } from '@hono/node-server/serve-static'
import { type Context, Hono, type MiddlewareHandler } from 'hono'
import { loadPublicOrigin } from '../lib/platform/config.js'
import type { Endpoint } from '../lib/platform/edge.js'
import { DISCARD_LIMIT_BYTES } from '../lib/platform/http.js'
import { answerClientErrors, drainUnreadBody, responseWithSiteHeaders, setClientAddress } from './nodeConnections.js'

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)))

/** Parameters of {@link startServer}. */
export type StartServerParameters = {
  port?: number
  host?: string
  /** Endpoints by name (`control-room` serves `/api/control-room`); default: every module in `api/`, each imported on its first request. */
  endpoints?: Record<string, Endpoint>
  /** Folder served as static files at `/` (default `public/`). */
  publicDir?: string
  /** vercel.json's rewrites onto endpoints (`/openapi.json` is answered by `/api/openapi`). */
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

/**
 * Every endpoint module under `api/`, named by its path as Vercel names its functions (`api/x402/deploy.ts` serves
 * `/api/x402/deploy`). With `lazy`, a module is imported on its route's first request, as a function's instance on
 * Vercel loads only its own module: a start does not pay for the modules it never serves (viem, the AWS SDK, x402 and
 * the Uniswap SDKs are most of a start's CPU). A module that fails to import then answers its requests with the
 * server's 500 and prints its error on stderr, while the other routes serve; one with no default `{ fetch }` answers
 * 404, as a path with no endpoint does. Without `lazy`, each module is imported now and an import error is thrown.
 */
export async function loadApiEndpoints(
  apiDir = join(ROOT, 'api'),
  prefix = '',
  options: { lazy?: boolean } = {},
): Promise<Record<string, Endpoint>> {
  const endpoints: Record<string, Endpoint> = {}
  for (const entry of (await readdir(apiDir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const file = entry.name
    if (entry.isDirectory()) {
      Object.assign(endpoints, await loadApiEndpoints(join(apiDir, file), `${prefix}${file}/`, options))
      continue
    }
    if (!/\.(ts|js|mjs)$/.test(file) || file.endsWith('.d.ts')) continue
    const name = `${prefix}${file.replace(/\.(ts|js|mjs)$/, '')}`
    const load = async () => ((await import(pathToFileURL(join(apiDir, file)).href)) as { default?: Partial<Endpoint> }).default
    if (options.lazy) {
      endpoints[name] = lazyEndpoint(name, load)
      continue
    }
    const endpoint = await load()
    if (typeof endpoint?.fetch === 'function') endpoints[name] = endpoint as Endpoint
  }
  return endpoints
}

/** An endpoint whose module is imported on its first request, once, however many requests wait for it. */
function lazyEndpoint(name: string, load: () => Promise<Partial<Endpoint> | undefined>): Endpoint {
  let loading: Promise<Partial<Endpoint> | undefined> | undefined
  return {
    fetch: async (request) => {
      if (!loading) {
        loading = load()
        loading.catch((error: unknown) =>
          console.error(`api/${name} failed to load: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
        )
      }
      const endpoint = await loading
      if (typeof endpoint?.fetch !== 'function') return serverAnswer(404, 'NOT_FOUND', `No route for ${new URL(request.url).pathname}`)
      return endpoint.fetch(request)
    },
  }
}

/** A JSON answer of the local server's own (a 404, a 405 off the endpoints, a malformed path, a handler that threw). */
function serverAnswer(status: number, code: string, error: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error, code }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*', ...headers },
  })
}

/** The JSON 404 of a path the site does not serve. */
const notFound = (c: Context) => serverAnswer(404, 'NOT_FOUND', `No route for ${new URL(c.req.url).pathname}`)

/** The static files are read with GET and HEAD only: any other method gets 405 with `Allow`, as an endpoint's does. */
const readOnly: MiddlewareHandler = async (c, next) => {
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
  return serverAnswer(405, 'METHOD_NOT_ALLOWED', `Method ${c.req.method} is not allowed here; use GET or HEAD.`, { allow: 'GET, HEAD' })
}

/** A 400 for a path with a malformed percent escape, before any file is looked for. */
const refuseMalformedPath: MiddlewareHandler = async (c, next) => {
  try {
    decodeURIComponent(new URL(c.req.url).pathname)
  } catch {
    return serverAnswer(400, 'MALFORMED_PATH', 'The path has a malformed percent escape.')
  }
  return next()
}

/**
 * The local site as a Hono app: each endpoint at `/api/<name>` (with or without a trailing slash), vercel.json's
 * rewrites onto them, the static files of `publicDir` (GET and HEAD; 405 with `Allow` for any other method), and a
 * JSON 404 for anything else, under `/api/` whatever the method.
 */
export function createLocalSite(parameters: Required<Pick<StartServerParameters, 'endpoints' | 'publicDir' | 'rewrites'>>): Hono {
  const { endpoints, publicDir, rewrites } = parameters
  const app = new Hono({ strict: false })
  for (const [name, endpoint] of Object.entries(endpoints)) app.all(`/api/${name}`, (c) => endpoint.fetch(c.req.raw))
  // An endpoint answers on the method, headers, query and body, never the path, so a rewrite hands it the request as it
  // came, as its own route does. A copy (`new Request`) would throw for a method the fetch standard forbids (TRACE:
  // a 500 instead of the endpoint's 405), and would take the body's stream, so that a body the endpoint did not read
  // could no longer be drained and the next request on the connection waited for nothing.
  for (const [source, destination] of Object.entries(rewrites)) {
    // A destination's query (`?address=:address`) is Vercel's way to hand a path's part on; the endpoint reads the path.
    const endpoint = endpoints[destination.replace(/^\/api\//, '').replace(/\?.*$/, '')]
    if (endpoint) app.all(source, (c) => endpoint.fetch(c.req.raw))
  }
  // The files are a second app that the first falls through to, so that an endpoint's route holds one handler: Hono
  // then answers at once what the endpoint answers at once (a warm read), before Node reads on past the request.
  const files = new Hono()
  // Under /api/ only endpoints answer (as on Vercel): a name that is none is not found, whatever the method.
  files.all('/api/*', notFound)
  files.use(readOnly)
  files.get('*', refuseMalformedPath, serveStatic({ root: publicDir }))
  files.notFound(notFound)
  app.notFound((c) => files.fetch(c.req.raw))
  // A handler never throws by design; if one does, the process stays up and the client gets a plain 500.
  app.onError(() => serverAnswer(500, 'INTERNAL', 'Internal error'))
  return app
}

/**
 * Starts the local server that mounts the same endpoint code Vercel runs, at `/api/<name>`. Node's requests become Web
 * `Request`s through `@hono/node-server`; below HTTP, `nodeConnections.ts` does what Vercel's edge does in front of a
 * deployment (the client's address, unread bodies, unparseable requests).
 */
export async function startServer(parameters: StartServerParameters = {}): Promise<RunningServer> {
  const { port = 3000, host = '127.0.0.1', trustProxy = 0, headersTimeoutMs = 20_000, requestTimeoutMs = 60_000 } = parameters
  const site = createLocalSite({
    endpoints: parameters.endpoints ?? (await loadApiEndpoints(undefined, undefined, { lazy: true })),
    publicDir: parameters.publicDir ?? join(ROOT, 'public'),
    rewrites: parameters.rewrites ?? {},
  })
  const listener = getRequestListener(
    (request, { incoming, outgoing }) => {
      // A body past 1 MB that the handler does not read is not worth draining: answer, then close the connection.
      if (Number(incoming.headers['content-length'] ?? 0) > DISCARD_LIMIT_BYTES) outgoing.setHeader('connection', 'close')
      return site.fetch(request)
    },
    // Unread bodies are drained by drainUnreadBody, with a deadline that fits slow clients (the adapter's own gives 500 ms).
    { autoCleanupIncoming: false },
  )
  // Node checks the two deadlines every 30 s by default, so a 20 s limit could hold a connection 50 s: check each second.
  const server = createServer(
    {
      connectionsCheckingInterval: Math.min(1000, headersTimeoutMs),
      // vercel.json's site-wide headers join each answer's own record as Node writes it: as middleware that sets them
      // on the Response afterwards, they cost a warm 304 half its throughput (0.48 of a bare server, against 0.93).
      ServerResponse: responseWithSiteHeaders(parameters.headers ?? {}),
    },
    (req, res) => {
      setClientAddress(req, trustProxy)
      drainUnreadBody(req, res)
      void listener(req, res)
    },
  )
  answerClientErrors(server)
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

/**
 * The service's public origin under `npm start` when none is configured (`PUBLIC_URL`, or Vercel's production URL):
 * the address the server listens on, set as `PUBLIC_URL`. The paid door names itself (its 402, manifest and receipts)
 * only by the configured public origin, never by the Host header a client writes; off Vercel the listening address is
 * the one origin this process knows for itself. Call it right after the listen resolves, before a request is read: the
 * listen's callback and this run in one turn of the event loop, and each instance reads its settings on its first
 * request.
 */
export function defaultPublicUrl(listening: string, env: NodeJS.ProcessEnv = process.env): void {
  if (loadPublicOrigin(env) === null) env.PUBLIC_URL = listening
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
  const { instanceReadSource } = await import('../lib/read/instance.js')
  const { loadDeployConfig } = await import('../lib/deploy/config.js')
  const { loadPaymentsConfig } = await import('../lib/payments/config.js')
  let describe: string
  try {
    describe = instanceReadSource().describe
    loadPublicOrigin(process.env)
    // The paid door's settings (and the deploy ones they rest on): a bad value stops npm start, naming the variable.
    loadPaymentsConfig(process.env, loadDeployConfig(process.env))
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
  defaultPublicUrl(running.url)
  // The scheduled work runs here too, so a self-hosted server is always on (TICK_INTERVAL_SECONDS=0 turns it off).
  const { startInProcessTicker } = await import('../lib/tick/ticker.js')
  const ticker = await startInProcessTicker().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error))
    process.exit(1)
  })
  // Stopping is wired before the line that says the server is ready: a script may stop it at once.
  const stop = () => void running.close().then(() => process.exit(0))
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  const ticking = ticker.intervalSeconds > 0 ? `tick every ${ticker.intervalSeconds} s` : 'tick off'
  console.log(`listening on ${running.url} (${describe}, ${ticking})`)
}
