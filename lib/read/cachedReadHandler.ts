import { logConfigFailure } from '../platform/config.js'
import { cachedJsonResponse, clientAddress, errorResponse, guardRequest, type Method } from '../platform/http.js'
import { errorName } from '../platform/log.js'
import { createMemoryStore } from '../store/memory.js'
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
  /** Requests a client may make per minute (token-search, token-history); absent: not throttled per client. */
  rateLimitPerMinute?: (services: ReadServices) => number
  /** Answer 429 when the service-wide upstream budget is spent (token-search): the caller may retry shortly. */
  budgetSpentIs429?: boolean
}

/** The shared shape of both read endpoints: guard, parse, cached read, and the mapping of failures to statuses. */
export function createCachedReadHandler<Input>(parameters: CreateCachedReadHandlerParameters<Input>) {
  const { name, services, parseInput, read, upstreamFailure, rateLimitPerMinute, budgetSpentIs429 = false } = parameters
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
    if (rateLimitPerMinute) {
      const limited = await throttleClient(ctx, name, request, rateLimitPerMinute(ctx))
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
      if (error instanceof UpstreamError && error.kind === 'throttled' && budgetSpentIs429) {
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

/** This instance's own throttle, for when the shared store is unreachable: per instance, never none. */
const localThrottles = createMemoryStore()

/**
 * Per-client throttle of a read endpoint (an IPv6 client is its /64, {@link clientAddress}). With the shared store
 * unreachable the same limit holds per instance: a store outage is no reason to let everything through, nor a 500.
 */
async function throttleClient(ctx: ReadServices, name: string, request: Request, limit: number): Promise<Response | null> {
  const parameters = { key: `${ctx.keyPrefix}throttle:${name}:${clientAddress(request)}`, limit, windowMs: 60_000 }
  let verdict: Awaited<ReturnType<ReadServices['store']['throttle']>>
  try {
    verdict = await ctx.store.throttle(parameters)
  } catch (error) {
    ctx.logger.warn('store_unavailable', { operation: 'throttle', error: errorName(error), effect: 'throttled per instance' })
    verdict = await localThrottles.throttle(parameters)
  }
  if (verdict.ok) return null
  const seconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000))
  return errorResponse(429, 'RATE_LIMITED', `Too many requests: at most ${limit} a minute per client; retry in ${seconds} s.`, {
    'retry-after': String(seconds),
  })
}
