import { parseQuery, QUERY_MAX_LENGTH } from '../market/search.js'
import { badReadRequest, createCachedReadHandler } from './cachedReadHandler.js'
import { peekControlRoom, peekMarketHistory, readControlRoom, readMarketHistory, readTokenHistory, readTokenSearch } from './readers.js'
import type { ReadServices } from './services.js'

// The HTTP handlers of the read endpoints, over the services they are given; api/ binds each to its route.

/** The `GET /api/control-room` handler over the given services. */
export function createControlRoomHandler(services: () => ReadServices) {
  return createCachedReadHandler({
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

/** The `GET /api/token-search?q=` handler over the given services. */
export function createTokenSearchHandler(services: () => ReadServices) {
  return createCachedReadHandler({
    name: 'token_search',
    services,
    rateLimitPerMinute: (ctx) => ctx.searchRateLimitPerMinute,
    budgetSpentIs429: true,
    parseInput: (request) => {
      const parsed = parseQuery(new URL(request.url).searchParams.get('q'))
      if (parsed.ok) return { ok: true, input: parsed.query }
      return parsed.problem === 'missing'
        ? badReadRequest('QUERY_REQUIRED', 'Query parameter q is required: a token symbol or name.')
        : badReadRequest('QUERY_TOO_LONG', `Query parameter q is longer than ${QUERY_MAX_LENGTH} characters.`)
    },
    read: (ctx, query) => readTokenSearch(ctx, query),
    upstreamFailure: {
      status: 502,
      code: 'UPSTREAM_ERROR',
      message: 'The market-data upstream answered with an error; try again shortly.',
    },
  })
}

/** The `GET /api/token-history?address=0x…` handler over the given services. */
export function createTokenHistoryHandler(services: () => ReadServices) {
  return createCachedReadHandler({
    name: 'token_history',
    services,
    rateLimitPerMinute: (ctx) => ctx.tokenHistoryRateLimitPerMinute,
    parseInput: (request) => {
      const address = new URL(request.url).searchParams.get('address')?.trim() ?? ''
      if (!/^0x[0-9a-fA-F]{40}$/.test(address))
        return badReadRequest('INVALID_ADDRESS', 'Query parameter address must be a 0x-prefixed 20-byte hex address.')
      return { ok: true, input: address.toLowerCase() }
    },
    read: (ctx, address) => readTokenHistory(ctx, address),
    upstreamFailure: { status: 500, code: 'INTERNAL', message: 'The history could not be read; try again shortly.' },
  })
}

/** The `GET /api/market-history` handler over the given services: the dashboard's charts in one request. */
export function createMarketHistoryHandler(services: () => ReadServices) {
  return createCachedReadHandler({
    name: 'market_history',
    services,
    parseInput: () => ({ ok: true, input: undefined }),
    read: (ctx) => readMarketHistory(ctx),
    peek: (ctx) => peekMarketHistory(ctx),
    upstreamFailure: { status: 500, code: 'INTERNAL', message: 'The history could not be read; try again shortly.' },
  })
}
