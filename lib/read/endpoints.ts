import { z } from 'zod'
import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { type HistoryRange, parseHistoryRange } from '../market/history.js'
import { parseQuery, QUERY_MAX_LENGTH } from '../market/search.js'
import { controlRoomSchema, marketHistorySchema, tokenHistorySchema, tokenSearchResultSchema } from '../market/types.js'
import {
  cachedReadHeaders,
  corsHeaders,
  errorAnswer,
  ifNoneMatchParameter,
  jsonAnswer,
  notAllowedAnswer,
  notModifiedAnswer,
  preflightOperation,
  quotaHeaders,
  redirectAnswer,
  retryAfterHeaders,
} from '../platform/routeDocs.js'
import { badReadRequest, createCachedReadEndpoint, invalidParameter, type ReadEndpointOptions } from './cachedReadEndpoint.js'
import { peekControlRoom, peekMarketHistory, readControlRoom, readMarketHistory, readTokenHistory, readTokenSearch } from './readers.js'
import type { ReadServices } from './services.js'

// The HTTP handlers of the read endpoints, over the services they are given, each with its OpenAPI declaration;
// api/ binds each to its route.

/** A token address as `token-history` takes it: 0x and 40 hex digits, any case. */
const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/

/** The `range` of the history endpoints, as the OpenAPI document declares it. */
const rangeParameter = z
  .enum(['24h', '7d'])
  .default('24h')
  .optional()
  .describe('24h: every 5 minutes over the last day (the default); 7d: every 30 minutes over the last week')

/** The `GET /api/control-room` endpoint over the given services. */
export function createControlRoomEndpoint(services: () => ReadServices, options: ReadEndpointOptions = {}) {
  return createCachedReadEndpoint({
    ...options,
    name: 'control_room',
    services,
    parseInput: () => ({ ok: true, input: undefined }),
    read: (ctx) => readControlRoom(ctx),
    peek: (ctx) => peekControlRoom(ctx),
    upstreamFailure: {
      status: 500,
      code: 'UPSTREAM_UNAVAILABLE',
      message: 'The market-data upstream is unavailable and no fresh data is cached; try again shortly.',
    },
  })
}

/** The `GET /api/token-search?q=` endpoint over the given services. */
export function createTokenSearchEndpoint(services: () => ReadServices, options: ReadEndpointOptions = {}) {
  return createCachedReadEndpoint({
    ...options,
    name: 'token_search',
    services,
    rateLimitPerMinute: (ctx) => ctx.searchRateLimitPerMinute,
    rateLimitPolicy: 'search',
    budgetSpentIs429: true,
    parseInput: (request) => {
      const parsed = parseQuery(new URL(request.url).searchParams.get('q'))
      if (parsed.ok) return { ok: true, input: parsed.query }
      return parsed.code === 'QUERY_REQUIRED'
        ? badReadRequest(parsed.code, 'Query parameter q is required: a token symbol or name.')
        : badReadRequest(parsed.code, `Query parameter q is longer than ${QUERY_MAX_LENGTH} characters.`)
    },
    read: (ctx, query) => readTokenSearch(ctx, query),
    upstreamFailure: {
      status: 502,
      code: 'UPSTREAM_ERROR',
      message: 'The market-data upstream answered with an error; try again shortly.',
    },
  })
}

/** The `GET /api/token-history?address=0x…` endpoint over the given services. */
export function createTokenHistoryEndpoint(services: () => ReadServices, options: ReadEndpointOptions = {}) {
  return createCachedReadEndpoint({
    ...options,
    name: 'token_history',
    services,
    rateLimitPerMinute: (ctx) => ctx.tokenHistoryRateLimitPerMinute,
    rateLimitPolicy: 'history',
    parseInput: (request) => {
      const params = new URL(request.url).searchParams
      const address = params.get('address')?.trim() ?? ''
      if (!ADDRESS_PATTERN.test(address))
        return badReadRequest('INVALID_ADDRESS', 'Query parameter address must be a 0x-prefixed 20-byte hex address.')
      const range = parseHistoryRange(params)
      if (!range.ok) return invalidParameter(range.problem)
      return { ok: true, input: { address: address.toLowerCase(), range: range.range } }
    },
    read: (ctx, { address, range }) => readTokenHistory(ctx, address, range),
    upstreamFailure: { status: 500, code: 'INTERNAL', message: 'The history could not be read; try again shortly.' },
  })
}

/** The `GET /api/market-history` endpoint over the given services: the dashboard's charts in one request. */
export function createMarketHistoryEndpoint(services: () => ReadServices, options: ReadEndpointOptions = {}) {
  return createCachedReadEndpoint({
    ...options,
    name: 'market_history',
    services,
    parseInput: (request): { ok: true; input: HistoryRange } | { ok: false; response: Response } => {
      // The dashboard's warm request has no query: it skips the URL parser.
      if (!request.url.includes('?')) return { ok: true, input: '24h' }
      const range = parseHistoryRange(new URL(request.url).searchParams)
      return range.ok ? { ok: true, input: range.range } : invalidParameter(range.problem)
    },
    read: (ctx, range) => readMarketHistory(ctx, range),
    peek: (ctx, range) => peekMarketHistory(ctx, range),
    upstreamFailure: { status: 500, code: 'INTERNAL', message: 'The history could not be read; try again shortly.' },
  })
}

/** `GET /api/control-room`, as the OpenAPI document declares it. */
export const controlRoomRoute: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getControlRoom',
    summary: 'Top 100 Base tokens by 24h volume, the top 15 as trending, stats and commentary (cached 30 s)',
    description:
      'The top 100 Base tokens by 24h volume (liveActivity), the first 15 (trending), market stats and a generated commentary. Cached server-side for 30 s: calls within the window get the same body; after it the last body is answered at once (X-Data-State: stale) while one refresh runs. X-Data-Age is the data age in seconds; X-Data-Source says when the GeckoTerminal failover built it.',
    parameters: [ifNoneMatchParameter],
    responses: {
      '308': redirectAnswer,
      '200': { ...jsonAnswer(controlRoomSchema, 'The control room'), headers: cachedReadHeaders },
      '304': notModifiedAnswer,
      '405': notAllowedAnswer,
      '500': {
        ...errorAnswer(
          'Both upstreams are unavailable and no body younger than STALE_IF_ERROR_SECONDS is cached (UPSTREAM_UNAVAILABLE), or the service is misconfigured (CONFIG_INVALID)',
        ),
        headers: corsHeaders,
      },
    },
  },
  options: preflightOperation,
}

/** `GET /api/token-search`, as the OpenAPI document declares it. */
export const tokenSearchRoute: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'searchTokens',
    summary: 'Base pairs whose base token symbol or name contains q, by 24h volume (cached 30 s)',
    description:
      'Base pairs whose base token symbol or name contains q (case-insensitive; a full 0x address matches the token address), sorted by 24h volume. Each client may search SEARCH_RATE_LIMIT_PER_MINUTE times a minute.',
    requestParams: { query: z.object({ q: z.string().min(1).max(QUERY_MAX_LENGTH).describe('Symbol, name or 0x address; trimmed') }) },
    parameters: [ifNoneMatchParameter],
    responses: {
      '308': redirectAnswer,
      '200': {
        ...jsonAnswer(tokenSearchResultSchema, 'Matching pairs'),
        headers: { ...cachedReadHeaders, ...quotaHeaders('search', 'SEARCH_RATE_LIMIT_PER_MINUTE') },
      },
      '304': notModifiedAnswer,
      '400': errorAnswer(`q is missing, blank (QUERY_REQUIRED) or longer than ${QUERY_MAX_LENGTH} characters (QUERY_TOO_LONG)`),
      '405': notAllowedAnswer,
      '500': errorAnswer('Unexpected failure'),
      '429': {
        ...errorAnswer(
          'Too many searches from this client (SEARCH_RATE_LIMIT_PER_MINUTE a minute; an IPv6 client is its /64), or the searches’ share of the service-wide upstream budget (SEARCH_UPSTREAM_REQUESTS_PER_MINUTE) is spent and the term is not cached (RATE_LIMITED)',
        ),
        headers: { ...retryAfterHeaders, ...quotaHeaders('search', 'SEARCH_RATE_LIMIT_PER_MINUTE') },
      },
      '502': { ...errorAnswer('The upstream answered with an error (UPSTREAM_ERROR)'), headers: retryAfterHeaders },
    },
  },
  options: preflightOperation,
}

/** `GET /api/token-history`, as the OpenAPI document declares it. */
export const tokenHistoryRoute: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getTokenHistory',
    summary:
      'A token’s last 24 h (or 7 d) in the top 100 (price, 24h volume, liquidity, rank) at 5-minute (30-minute) resolution, oldest first, from the service’s own snapshots (cached 30 s)',
    description:
      'One token’s points from the service’s own snapshots of the top 100, oldest first: every 5 minutes over the last 24 hours, or with range=7d every 30 minutes over the last 7 days (intervalSeconds says which); the marks where it was out of the top 100 are absent.',
    requestParams: {
      query: z.object({
        address: z.string().regex(ADDRESS_PATTERN).describe('The token, 0x + 40 hex (any case)'),
        range: rangeParameter,
      }),
    },
    parameters: [ifNoneMatchParameter],
    responses: {
      '308': redirectAnswer,
      '200': {
        ...jsonAnswer(tokenHistorySchema, 'The series'),
        headers: { ...cachedReadHeaders, ...quotaHeaders('history', 'TOKEN_HISTORY_RATE_LIMIT_PER_MINUTE') },
      },
      '304': notModifiedAnswer,
      '400': errorAnswer(
        'address is missing or not a 20-byte hex address (INVALID_ADDRESS), or range is not 24h or 7d (INVALID_PARAMETER)',
      ),
      '404': errorAnswer('No snapshot of the range holds this token (UNKNOWN_TOKEN); remembered for 30 s'),
      '405': notAllowedAnswer,
      '429': {
        ...errorAnswer('Too many requests from this client (TOKEN_HISTORY_RATE_LIMIT_PER_MINUTE a minute) (RATE_LIMITED)'),
        headers: { ...retryAfterHeaders, ...quotaHeaders('history', 'TOKEN_HISTORY_RATE_LIMIT_PER_MINUTE') },
      },
      '500': errorAnswer('Unexpected failure (INTERNAL, CONFIG_INVALID)'),
    },
  },
  options: preflightOperation,
}

/** `GET /api/market-history`, as the OpenAPI document declares it. */
export const marketHistoryRoute: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getMarketHistory',
    summary:
      'The top 100’s last 24 h (or 7 d) in one answer: total 24h volume every 5 (30) minutes, and a price line of 48 half-hour (56 three-hour) slots per current top-100 token (cached 30 s); empty before the first snapshot',
    description:
      'Everything a dashboard’s charts need in one request: the summed 24h volume of the top 100 at every 5-minute mark, and a 48-slot price line per token of the latest snapshot (null where it was not listed). With range=7d: every 30-minute mark of the last 7 days, and 56 slots of 3 hours.',
    requestParams: { query: z.object({ range: rangeParameter }) },
    parameters: [ifNoneMatchParameter],
    responses: {
      '308': redirectAnswer,
      '200': { ...jsonAnswer(marketHistorySchema, 'The series'), headers: cachedReadHeaders },
      '304': notModifiedAnswer,
      '400': errorAnswer('range is not 24h or 7d (INVALID_PARAMETER)'),
      '405': notAllowedAnswer,
      '500': errorAnswer('Unexpected failure (INTERNAL, CONFIG_INVALID)'),
    },
  },
  options: preflightOperation,
}
