import { Hono, type MiddlewareHandler } from 'hono'
import { contextStorage } from 'hono/context-storage'
import { cors } from 'hono/cors'
import { requestId } from 'hono/request-id'
import { publicOrigin } from './config.js'
import { type ErrorContract, errorAnswerOf } from './errorAnswer.js'
import { BASE_HEADERS, CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, errorResponse, jsonResponse, type Method } from './http.js'
import { currentRequestId, type EdgeVariables, requestIdOf, type WebHandler } from './requestId.js'

/**
 * The answer to a warm read, made at once from what the instance holds (no I/O, no log line, no work left running),
 * with `requestId` among its headers; or null to let the endpoint's middleware and handler answer.
 */
export type AnswerAtOnce = (request: Request, requestId: string) => Response | null

/** A handler behind the edge: the request, and what the endpoint's own middleware found out about it. */
export type EndpointHandler<V extends object> = (request: Request, variables: V) => Response | Promise<Response>

/** Parameters of {@link createEndpoint}. */
export type CreateEndpointParameters<V extends object = object> = {
  /** The methods the handler serves; OPTIONS is always answered (a CORS preflight), anything else gets 405. */
  methods: readonly Method[]
  handler: EndpointHandler<V>
  /**
   * The endpoint's own middleware, run after the edge's (so never for a preflight or a method it does not serve): it
   * may answer the request itself, or set variables the handler reads (the agent-key check).
   */
  middleware?: readonly MiddlewareHandler<{ Variables: V }>[]
  /** The warm-read fast path, tried before any middleware (see {@link createEndpoint}). */
  answerAtOnce?: AnswerAtOnce
  /** Which browser origins may call: every one (default, the public API), or the endpoint's own CORS middleware. */
  cors?: MiddlewareHandler
  /** The service's public origin, asked only for a plain-HTTP request (default: `PUBLIC_URL`). */
  publicOriginOf?: () => string | null
  /**
   * How the endpoint answers an error its handler or middleware throws (default: `handler` in the log line, bodies
   * without `ok`, only a not-found and a broken configuration answered as themselves).
   */
  errors?: ErrorContract
}

/** An endpoint as Vercel runs it: `export default` of an `api/` module. */
export type Endpoint = { fetch: WebHandler }

/**
 * Binds a handler to a route with what every endpoint answers the same way, as Hono middleware: a request id in every
 * log line and on every answer (`X-Request-Id`), the redirect of plain HTTP to the public https origin, CORS with its
 * preflight, and 405 with `Allow` for other methods. An error a handler (or a middleware) throws is answered by the one
 * mapping of lib/platform/errorAnswer.ts, under the endpoint's `errors` contract: a not-found is its 404, a broken
 * configuration 500 `CONFIG_INVALID`, anything unexpected a logged 500 `INTERNAL`; and the process stays up.
 *
 * The warm-read fast path: a GET or HEAD that needs no redirect is first offered to `answerAtOnce`. A read endpoint
 * answers from its own copy there, with every header the middleware would add already in the record its answer is
 * made from, and skips the middleware's context: entering an async context per request, and copying an answer's
 * headers to add one, would cost a warm read a quarter of its throughput (`npm run bench -- warm`).
 */
export function createEndpoint<V extends object = object>(parameters: CreateEndpointParameters<V>): Endpoint {
  const { methods, handler, answerAtOnce, publicOriginOf = publicOrigin } = parameters
  const app = new Hono<{ Variables: EdgeVariables & V }>()
  // An endpoint called from inside another (the MCP tools call the read endpoints) keeps the outer request's id.
  app.use(requestId({ headerName: '', generator: (c) => currentRequestId() ?? requestIdOf(c.req.raw) }))
  app.use(contextStorage())
  app.use(async (c, next) => {
    await next()
    c.res = withEdgeHeaders(c.res, c.var.requestId)
  })
  app.use(redirectPlainHttp(publicOriginOf))
  app.use(parameters.cors ?? openCors(methods))
  app.use(allowOnly(methods))
  for (const middleware of parameters.middleware ?? []) app.use(middleware as MiddlewareHandler)
  app.all('*', (c) => handler(c.req.raw, c.var as V))
  const errors = parameters.errors ?? { endpoint: 'handler', withOk: false }
  app.onError((error, c) => {
    const { status, body, headers } = errorAnswerOf(error, errors)
    const head = c.req.method === 'HEAD'
    return jsonResponse({ status, body: JSON.stringify(body), headers: { 'cache-control': 'no-store', ...headers }, head })
  })
  if (!answerAtOnce) return { fetch: (request) => app.fetch(request) }
  return {
    fetch: (request) => {
      const read = request.method === 'GET' || request.method === 'HEAD'
      return (read && !isPlainHttp(request) && answerAtOnce(request, requestIdOf(request))) || app.fetch(request)
    },
  }
}

/** CORS open to every origin, without credentials: the public read and deploy API. */
function openCors(methods: readonly Method[]): MiddlewareHandler {
  return cors({
    origin: '*',
    allowMethods: [...methods, 'OPTIONS'],
    allowHeaders: CORS_ALLOWED_HEADERS,
    exposeHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 86_400,
  })
}

/** True for a request the edge saw over plain HTTP (`X-Forwarded-Proto: http`). */
function isPlainHttp(request: Request): boolean {
  return request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'http'
}

/**
 * A 308 for a plain-HTTP request to the same path on the service's public https origin (never a host the client names,
 * and never kept by a cache). Without an https public origin there is nowhere safe to redirect to, and the request is
 * served. The header is read first: a request the edge saw over https (every one on Vercel) never looks the origin up.
 */
function redirectPlainHttp(publicOriginOf: () => string | null): MiddlewareHandler {
  return async (c, next) => {
    const origin = isPlainHttp(c.req.raw) ? publicOriginOf() : null
    if (!origin?.startsWith('https://')) return next()
    const url = new URL(c.req.url)
    return new Response(null, {
      status: 308,
      headers: { location: `${origin}${url.pathname}${url.search}`, 'cache-control': 'no-store', 'access-control-allow-origin': '*' },
    })
  }
}

/** 405 with `Allow` for a method the endpoint does not serve (the preflight is answered before, by CORS). */
function allowOnly(methods: readonly Method[]): MiddlewareHandler {
  const allow = [...methods, 'OPTIONS'].join(', ')
  return async (c, next) => {
    if (methods.includes(c.req.method as Method)) return next()
    return errorResponse(405, 'METHOD_NOT_ALLOWED', `Method ${c.req.method} is not allowed here; use ${methods.join(' or ')}.`, {
      allow,
    })
  }
}

/**
 * The answer with its request id and the security headers: set in place, or on one copy when its headers are
 * immutable (a redirect's, a fetched answer's).
 */
function withEdgeHeaders(response: Response, id: string): Response {
  const set = (target: Response) => {
    target.headers.set('x-request-id', id)
    for (const [name, value] of Object.entries(BASE_HEADERS)) if (!target.headers.has(name)) target.headers.set(name, value)
    return target
  }
  try {
    return set(response)
  } catch {
    return set(new Response(response.body, response))
  }
}
