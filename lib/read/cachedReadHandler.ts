import { logConfigFailure } from '../platform/config.js'
import { cachedJsonResponse, clientAddress, errorResponse, guardRequest, type Method } from '../platform/http.js'
import { errorName } from '../platform/log.js'
import { UpstreamError } from '../upstream/dexscreener.js'
import type { CacheReadReturnType } from './cache.js'
import { ReadNotFoundError } from './errors.js'
import { READ_CACHE_TTL_MS } from './models.js'
import type { ReadServices } from './services.js'

const METHODS: readonly Method[] = ['GET', 'HEAD']

/** Parameters of {@link createCachedReadHandler}. */
export type CreateCachedReadHandlerParameters<Input> = {
  /** Event-name prefix of this endpoint's log lines. */
  name: string
  services: () => ReadServices
  /** Reads the request's input, or answers the request itself (400). */
  parseInput: (request: Request) => { ok: true; input: Input } | { ok: false; response: Response }
  read: (services: ReadServices, input: Input) => Promise<CacheReadReturnType>
  /** The answer when the upstream failed and nothing fresh is cached. */
  upstreamFailure: { status: number; code: string; message: string }
  /** Throttle each client to `searchRateLimitPerMinute` (token-search), and answer 429 when the service-wide upstream budget is spent. */
  throttled?: boolean
}

/** The shared shape of both read endpoints: guard, parse, cached read, and the mapping of failures to statuses. */
export function createCachedReadHandler<Input>(parameters: CreateCachedReadHandlerParameters<Input>) {
  const { name, services, parseInput, read, upstreamFailure, throttled = false } = parameters
  return async (request: Request): Promise<Response> => {
    const guarded = guardRequest(request, METHODS)
    if (guarded) return guarded
    let ctx: ReadServices
    try {
      ctx = services()
    } catch (error) {
      // The message names the variables, never their values; the client only learns that the operator must act.
      logConfigFailure(name, error)
      return errorResponse(500, 'CONFIG_INVALID', 'The service is misconfigured; the operator has been told.')
    }
    if (throttled) {
      const limited = await throttleClient(ctx, name, request)
      if (limited) return limited
    }
    const parsed = parseInput(request)
    if (!parsed.ok) return parsed.response
    try {
      const { entry, stale } = await read(ctx, parsed.input)
      const now = ctx.now()
      return cachedJsonResponse({
        request,
        body: entry.bytes,
        etag: entry.etag,
        maxAgeSeconds: stale ? 0 : (entry.expiresAt - now) / 1000,
        staleWhileRevalidateSeconds: READ_CACHE_TTL_MS / 1000,
        staleIfErrorSeconds: ctx.staleIfErrorSeconds,
        headers: {
          'x-data-state': stale ? 'stale' : 'fresh',
          'x-data-age': String(Math.max(0, Math.floor((now - entry.fetchedAt) / 1000))),
          ...(entry.source ? { 'x-data-source': entry.source } : {}),
        },
      })
    } catch (error) {
      if (error instanceof ReadNotFoundError) return errorResponse(404, error.code, error.message)
      if (error instanceof UpstreamError && error.kind === 'throttled' && throttled) {
        ctx.logger.warn(`${name}_upstream_budget_spent`, { message: error.message })
        return errorResponse(
          429,
          'RATE_LIMITED',
          'The service is at its upstream request budget for this minute and has no cached answer for this; try again shortly.',
          { 'retry-after': '10' },
        )
      }
      if (error instanceof UpstreamError) {
        ctx.logger.warn(`${name}_upstream_failed`, { kind: error.kind, status: error.status, message: error.message })
        const { status, code, message } = upstreamFailure
        return errorResponse(status, code, message, { 'retry-after': '5' })
      }
      ctx.logger.error(`${name}_failed`, { error: errorName(error) })
      return errorResponse(500, 'INTERNAL', 'The request could not be completed; try again shortly.')
    }
  }
}

/** A 400 answer for a read endpoint. */
export function badReadRequest(code: string, message: string): { ok: false; response: Response } {
  return { ok: false, response: errorResponse(400, code, message) }
}

/** Per-client throttle of a read endpoint; a store outage lets the request through (throttling is not worth a 500). */
async function throttleClient(ctx: ReadServices, name: string, request: Request): Promise<Response | null> {
  const client = clientAddress(request)
  try {
    const verdict = await ctx.store.throttle({
      key: `${ctx.keyPrefix}throttle:${name}:${client}`,
      limit: ctx.searchRateLimitPerMinute,
      windowMs: 60_000,
    })
    if (verdict.ok) return null
    const seconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000))
    return errorResponse(
      429,
      'RATE_LIMITED',
      `Too many requests: at most ${ctx.searchRateLimitPerMinute} a minute per client; retry in ${seconds} s.`,
      { 'retry-after': String(seconds) },
    )
  } catch (error) {
    ctx.logger.warn('store_unavailable', { operation: 'throttle', error: errorName(error), effect: 'not throttled' })
    return null
  }
}
