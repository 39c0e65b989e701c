import { clientAddress } from '../platform/clientAddress.js'
import { type AnswerAtOnce, createEndpoint, type Endpoint } from '../platform/edge.js'
import { type ErrorContract, errorAnswerOf } from '../platform/errorAnswer.js'
import {
  type CachedAnswerHeaders,
  type CachedJsonResponseParameters,
  cachedAnswerHeaders,
  cachedJsonResponse,
  errorResponse,
  jsonResponse,
  type Method,
} from '../platform/http.js'
import { errorName } from '../platform/log.js'
import { rateLimitHeaders } from '../platform/rateLimitHeaders.js'
import { type Refused, type Result, refused } from '../platform/result.js'
import type { ThrottleReturnType } from '../store/throttle.js'
import { StoreError } from '../store/types.js'
import { UpstreamError } from '../upstream/dexscreener.js'
import type { CacheReadReturnType, LocalCachedBody } from './cache/cachedBody.js'
import { READ_CACHE_TTL_MS } from './readers.js'
import type { ReadServices } from './services.js'

const METHODS: readonly Method[] = ['GET', 'HEAD']

/** Parameters of {@link createCachedReadEndpoint}. */
export type CreateCachedReadEndpointParameters<Input> = {
  /** Event-name prefix of this endpoint's log lines. */
  name: string
  services: () => ReadServices
  /** Reads the request's input, or answers the request itself (400). */
  parseInput: (request: Request) => ParsedReadInput<Input>
  read: (services: ReadServices, input: Input) => Promise<CacheReadReturnType>
  /**
   * The body when this instance holds it fresh, else null, with no I/O: lets an endpoint that throttles no client
   * answer a warm read at once (`AnswerAtOnce` in `edge.ts`).
   */
  peek?: (services: ReadServices, input: Input) => CacheReadReturnType | null
  /** The answer when the upstream failed and nothing fresh is cached. */
  upstreamFailure: { status: number; code: string; message: string }
  /** Requests a client may make per minute (token-search, token-history); absent: not throttled per client. */
  rateLimitPerMinute?: (services: ReadServices) => number
  /** The throttle's name in the `RateLimit` headers (`search`, `history`). */
  rateLimitPolicy?: string
  /** Answer 429 when the service-wide upstream budget is spent (token-search): the caller may retry shortly. */
  budgetSpentIs429?: boolean
  /**
   * Answer a store outage as itself, 503 `STORE_UNAVAILABLE` with `Retry-After` and this sentence (the history
   * endpoints: what they serve lives only in the store, so nothing else can answer), rather than as a failure nobody
   * expected (500). The store's own message names the operation that failed: the operator's, not the client's.
   */
  storeOutageMessage?: string
} & ReadEndpointOptions

/** A read endpoint's input, or its refusal: the 400 (or 404) it answers instead, under that answer's code. */
export type ParsedReadInput<Input> = Result<{ input: Input }, string, { response: Response }>

/** What a read endpoint's edge may be given instead of what the instance reads itself. */
export type ReadEndpointOptions = {
  /** The public origin a plain-HTTP request is redirected to (default: `PUBLIC_URL`, read once per instance). */
  publicOriginOf?: () => string | null
}

/**
 * The shared shape of the read endpoints, bound to the edge (`edge.ts`): parse, cached read, and the mapping of
 * failures to statuses; an endpoint that throttles no client answers a warm read on the edge's fast path.
 */
export function createCachedReadEndpoint<Input>(parameters: CreateCachedReadEndpointParameters<Input>): Endpoint {
  const {
    name,
    services,
    parseInput,
    read,
    peek,
    upstreamFailure,
    rateLimitPerMinute,
    budgetSpentIs429 = false,
    storeOutageMessage,
    publicOriginOf,
  } = parameters
  const policy = parameters.rateLimitPolicy ?? name
  const headersOf = createAnswerHeadersMemo()
  // The read endpoints' bodies carry no `ok`; a read that found nothing (a ReadNotFoundError) is its 404.
  const errors: ErrorContract = {
    endpoint: name,
    withOk: false,
    // Only the outage the read's answer put in words (below): a store error that reached the edge some other way is a
    // path nobody expected, answered INTERNAL with its log line, never with the store's own message.
    ...(storeOutageMessage === undefined
      ? {}
      : { answersAsItself: (error) => error instanceof StoreError && error.shortMessage === storeOutageMessage }),
  }

  /** The answer to a read, or to its failure; `quota` adds the client's `RateLimit` headers to a 200 or 304. */
  const readAndAnswer = async (ctx: ReadServices, request: Request, input: Input, quota?: Record<string, string>): Promise<Response> => {
    try {
      return cachedJsonResponse({ ...answerParameters(ctx, request, await read(ctx, input), headersOf), extraHeaders: quota })
    } catch (error) {
      return failureResponse(ctx, error, { errors, upstreamFailure, budgetSpentIs429, storeOutageMessage }, quota)
    }
  }

  /** A throttled endpoint: the client's share first, then the read; its 200, 304 and 429 tell the client its quota. */
  const throttleThenRead = async (ctx: ReadServices, request: Request, limit: number): Promise<Response> => {
    const verdict = await throttleClient(ctx, name, request, limit)
    const quota = rateLimitHeaders({
      policy,
      quota: limit,
      windowSeconds: 60,
      remaining: verdict.remaining,
      resetSeconds: verdict.resetAfterMs / 1000,
    })
    if (!verdict.ok) {
      const seconds = Math.max(1, Math.ceil(verdict.resetAfterMs / 1000))
      return errorResponse(429, 'RATE_LIMITED', `Too many requests: at most ${limit} a minute per client; retry in ${seconds} s.`, {
        'retry-after': String(seconds),
        ...quota,
      })
    }
    const parsed = parseInput(request)
    if (parsed.ok) return readAndAnswer(ctx, request, parsed.input, quota)
    // A refused query counted too: its 400 tells the client its quota like every other answer.
    for (const [name, value] of Object.entries(quota)) parsed.response.headers.set(name, value)
    return parsed.response
  }

  /** A warm read's answer; anything else (a bad query, a broken configuration, a miss) is the handler's. */
  const answerAtOnce: AnswerAtOnce = (request, requestId) => {
    let ctx: ReadServices
    try {
      ctx = services()
    } catch {
      return null // the handler logs it
    }
    const parsed = parseInput(request)
    const warm = parsed.ok ? (peek?.(ctx, parsed.input) ?? null) : null
    return warm ? cachedJsonResponse({ ...answerParameters(ctx, request, warm, headersOf), requestId }) : null
  }

  const handler = (request: Request): Response | Promise<Response> => {
    // A broken configuration throws here, and the edge answers it 500 CONFIG_INVALID: the operator's log line names the
    // variables, never their values; the client only learns that the operator must act.
    const ctx = services()
    if (rateLimitPerMinute) return throttleThenRead(ctx, request, rateLimitPerMinute(ctx))
    const parsed = parseInput(request)
    return parsed.ok ? readAndAnswer(ctx, request, parsed.input) : parsed.response
  }
  return createEndpoint({
    methods: METHODS,
    handler,
    errors,
    answerAtOnce: peek && !rateLimitPerMinute ? answerAtOnce : undefined,
    publicOriginOf,
  })
}

/** The answer to a read that failed (with the client's quota, on a throttled endpoint). */
function failureResponse(
  ctx: ReadServices,
  error: unknown,
  {
    errors,
    upstreamFailure,
    budgetSpentIs429,
    storeOutageMessage,
  }: { errors: ErrorContract } & Pick<
    CreateCachedReadEndpointParameters<unknown>,
    'upstreamFailure' | 'budgetSpentIs429' | 'storeOutageMessage'
  >,
  quota: Record<string, string> = {},
): Response {
  const name = errors.endpoint
  if (error instanceof UpstreamError && error.kind === 'throttled' && budgetSpentIs429) {
    ctx.logger.warn(`${name}_upstream_budget_spent`, { message: error.shortMessage })
    return errorResponse(
      429,
      'RATE_LIMITED',
      'The service is at its upstream request budget for this minute and has no cached answer for this; retry in 10 s.',
      { 'retry-after': '10', ...quota },
    )
  }
  if (error instanceof UpstreamError) {
    ctx.logger.warn(`${name}_upstream_failed`, { kind: error.kind, status: error.status, message: error.shortMessage })
    const { status, code, message } = upstreamFailure
    return errorResponse(status, code, message, { 'retry-after': '5', ...quota })
  }
  // The operator's line for an outage the endpoint answers as itself (an unexpected error logs its own).
  const outage = error instanceof StoreError && storeOutageMessage !== undefined
  if (outage) ctx.logger.warn('store_unavailable', { operation: name, error: errorName(error), effect: 'answered 503' })
  const answered = outage ? new StoreError(storeOutageMessage, { cause: error }) : error
  // Anything else as the edge answers it (a not-found its 404, a bug INTERNAL), here with the client's quota.
  const { status, body, headers } = errorAnswerOf(answered, { ...errors, logger: ctx.logger })
  return jsonResponse({ status, body: JSON.stringify(body), headers: { 'cache-control': 'no-store', ...headers, ...quota } })
}

/** What {@link cachedJsonResponse} needs for one read's answer. */
function answerParameters(
  ctx: ReadServices,
  request: Request,
  { entry, stale }: CacheReadReturnType,
  headersOf: AnswerHeadersMemo,
): CachedJsonResponseParameters {
  return { request, body: entry.bytes, etag: entry.etag, headers: headersOf(entry, stale, ctx.now(), ctx.staleIfErrorSeconds) }
}

/** The answer headers of a cached entry at a time: made again only when one of their values changes. */
type AnswerHeadersMemo = (entry: LocalCachedBody, stale: boolean, now: number, staleIfErrorSeconds: number) => CachedAnswerHeaders

/**
 * Remembers the last answer headers made: `Cache-Control` and `X-Data-Age` change once a second and the rest with the
 * entry, so a warm read in the same second reuses them instead of building every string and record again.
 */
function createAnswerHeadersMemo(): AnswerHeadersMemo {
  let last: {
    entry: LocalCachedBody
    stale: boolean
    maxAge: number
    dataAge: number
    staleIfError: number
    headers: CachedAnswerHeaders
  } | null = null
  return (entry, stale, now, staleIfErrorSeconds) => {
    const maxAge = stale ? 0 : Math.max(0, Math.ceil((entry.expiresAt - now) / 1000))
    const dataAge = Math.max(0, Math.floor((now - entry.fetchedAt) / 1000))
    if (
      last &&
      last.entry === entry &&
      last.stale === stale &&
      last.maxAge === maxAge &&
      last.dataAge === dataAge &&
      last.staleIfError === staleIfErrorSeconds
    ) {
      return last.headers
    }
    const headers = cachedAnswerHeaders({
      etag: entry.etag,
      maxAgeSeconds: maxAge,
      staleWhileRevalidateSeconds: READ_CACHE_TTL_MS / 1000,
      staleIfErrorSeconds,
      headers: {
        'x-data-state': stale ? 'stale' : 'fresh',
        'x-data-age': String(dataAge),
        ...(entry.source ? { 'x-data-source': entry.source } : {}),
      },
    })
    last = { entry, stale, maxAge, dataAge, staleIfError: staleIfErrorSeconds, headers }
    return headers
  }
}

/** A 400 answer for a read endpoint. */
export function badReadRequest<const code extends string>(code: code, message: string): Refused<code, { response: Response }> {
  return refused(code, { response: errorResponse(400, code, message) })
}

/** The 400 of a wrong query parameter: `INVALID_PARAMETER`, the field named in the body and the message. */
export function invalidParameter({
  field,
  reason,
}: {
  field: string
  reason: string
}): Refused<'INVALID_PARAMETER', { response: Response }> {
  return refused('INVALID_PARAMETER', {
    response: errorResponse(400, 'INVALID_PARAMETER', `Query parameter ${field} ${reason}.`, {}, field),
  })
}

/**
 * Per-client throttle of a read endpoint (an IPv6 client is its /64, {@link clientAddress}). With the shared store
 * unreachable the same limit holds per instance: a store outage is no reason to let everything through, nor a 500.
 */
async function throttleClient(ctx: ReadServices, name: string, request: Request, limit: number): Promise<ThrottleReturnType> {
  const parameters = { key: ctx.keys.throttle(name, clientAddress(request)), limit, windowMs: 60_000 }
  try {
    return await ctx.throttle.limit(parameters)
  } catch (error) {
    ctx.logger.warn('store_unavailable', { operation: 'throttle', error: errorName(error), effect: 'throttled per instance' })
    return ctx.localThrottle.limit(parameters)
  }
}
