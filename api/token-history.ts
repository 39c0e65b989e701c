import { withRequestId } from '../lib/platform/requestId.js'
import { badReadRequest, createCachedReadHandler } from '../lib/read/cachedReadHandler.js'
import { readTokenHistory } from '../lib/read/readers.js'
import { getReadServices, type ReadServices } from '../lib/read/services.js'

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

export default { fetch: withRequestId(createTokenHistoryHandler(getReadServices)) }
