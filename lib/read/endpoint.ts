import { parseOhlcvQuery } from '../market/ohlcvQuery.js'
import { parseQuery, QUERY_MAX_LENGTH } from '../market/search.js'
import { type HistoryRange, parseHistoryRange } from '../market/snapshots.js'
import { accepted } from '../platform/result.js'
import {
  badReadRequest,
  createCachedReadEndpoint,
  invalidParameter,
  type ParsedReadInput,
  type ReadEndpointOptions,
} from './cachedReadEndpoint.js'
import { peekControlRoom, peekMarketHistory, readControlRoom, readMarketHistory, readTokenHistory, readTokenSearch } from './readers.js'
import type { ReadServices } from './services.js'
import { readTokenOhlcv } from './tokenOhlcv.js'

// The HTTP faces of the read endpoints, over the services they are given (their OpenAPI declarations are in
// openapi.ts); api/ binds each to its route.

/** A token address as `token-history` takes it: 0x and 40 hex digits, any case. */
export const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/

/** What the history endpoints answer, 503 `STORE_UNAVAILABLE`, when the store, where the history lives, cannot be read. */
export const HISTORY_STORE_OUTAGE = 'The shared store (Redis), where the history lives, cannot be read right now; retry after Retry-After.'

/** The `GET /api/control-room` endpoint over the given services. */
export function createControlRoomEndpoint(services: () => ReadServices, options: ReadEndpointOptions = {}) {
  return createCachedReadEndpoint({
    ...options,
    name: 'control_room',
    services,
    parseInput: () => accepted({ input: undefined }),
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
      if (parsed.ok) return accepted({ input: parsed.query })
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
      return accepted({ input: { address: address.toLowerCase(), range: range.range } })
    },
    read: (ctx, { address, range }) => readTokenHistory(ctx, address, range),
    upstreamFailure: { status: 500, code: 'INTERNAL', message: 'The history could not be read; try again shortly.' },
    storeOutageMessage: HISTORY_STORE_OUTAGE,
  })
}

/** The `GET /api/market-history` endpoint over the given services: the dashboard's charts in one request. */
export function createMarketHistoryEndpoint(services: () => ReadServices, options: ReadEndpointOptions = {}) {
  return createCachedReadEndpoint({
    ...options,
    name: 'market_history',
    services,
    parseInput: (request): ParsedReadInput<HistoryRange> => {
      // The dashboard's warm request has no query: it skips the URL parser.
      if (!request.url.includes('?')) return accepted({ input: '24h' })
      const range = parseHistoryRange(new URL(request.url).searchParams)
      return range.ok ? accepted({ input: range.range }) : invalidParameter(range.problem)
    },
    read: (ctx, range) => readMarketHistory(ctx, range),
    peek: (ctx, range) => peekMarketHistory(ctx, range),
    upstreamFailure: { status: 500, code: 'INTERNAL', message: 'The history could not be read; try again shortly.' },
    storeOutageMessage: HISTORY_STORE_OUTAGE,
  })
}

/** The `GET /api/token-ohlcv` endpoint over the given services: a token's candles in GeckoTerminal's terms. */
export function createTokenOhlcvEndpoint(services: () => ReadServices, options: ReadEndpointOptions = {}) {
  return createCachedReadEndpoint({
    ...options,
    name: 'token_ohlcv',
    services,
    rateLimitPerMinute: (ctx) => ctx.tokenOhlcvRateLimitPerMinute,
    rateLimitPolicy: 'ohlcv',
    budgetSpentIs429: true,
    parseInput: (request) => {
      const parsed = parseOhlcvQuery(new URL(request.url).searchParams)
      return parsed.ok ? accepted({ input: parsed.query }) : invalidParameter(parsed.problem)
    },
    read: (ctx, query) => readTokenOhlcv(ctx, query),
    upstreamFailure: {
      status: 502,
      code: 'UPSTREAM_ERROR',
      message: 'GeckoTerminal, where the candles come from, answered with an error; try again shortly.',
    },
  })
}
