import { parseQuery, QUERY_MAX_LENGTH } from '../lib/market/search.js'
import { withRequestId } from '../lib/platform/requestId.js'
import { badReadRequest, createCachedReadHandler } from '../lib/read/cachedReadHandler.js'
import { readTokenSearch } from '../lib/read/readers.js'
import { getReadServices, type ReadServices } from '../lib/read/services.js'

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

export default { fetch: withRequestId(createTokenSearchHandler(getReadServices)) }
