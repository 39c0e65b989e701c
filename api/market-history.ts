import { withRequestId } from '../lib/platform/requestId.js'
import { createCachedReadHandler } from '../lib/read/cachedReadHandler.js'
import { peekMarketHistory, readMarketHistory } from '../lib/read/readers.js'
import { getReadServices, type ReadServices } from '../lib/read/services.js'

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

const handler = createMarketHistoryHandler(getReadServices)

export default { fetch: withRequestId(handler, handler.answerAtOnce) }
