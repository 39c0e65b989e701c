import { withRequestId } from '../lib/platform/requestId.js'
import { createCachedReadHandler } from '../lib/read/cachedReadHandler.js'
import { readMarketHistory } from '../lib/read/models.js'
import { getReadServices, type ReadServices } from '../lib/read/services.js'

/** The `GET /api/market-history` handler over the given services: the dashboard's charts in one request. */
export function createMarketHistoryHandler(services: () => ReadServices) {
  return createCachedReadHandler({
    name: 'market_history',
    services,
    parseInput: () => ({ ok: true, input: undefined }),
    read: (ctx) => readMarketHistory(ctx),
    upstreamFailure: { status: 500, code: 'INTERNAL', message: 'The history could not be read; try again shortly.' },
  })
}

export default { fetch: withRequestId(createMarketHistoryHandler(getReadServices)) }
