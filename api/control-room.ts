import { readControlRoom } from '../lib/market/readModels.js'
import { createCachedReadHandler } from '../lib/readEndpoint.js'
import { getReadServices, type ReadServices } from '../lib/readServices.js'

/** The `GET /api/control-room` handler over the given services. */
export function createControlRoomHandler(services: () => ReadServices) {
  return createCachedReadHandler({
    name: 'control_room',
    services,
    parseInput: () => ({ ok: true, input: undefined }),
    read: (ctx) => readControlRoom(ctx),
    upstreamFailure: {
      status: 500,
      code: 'UPSTREAM_UNAVAILABLE',
      message: 'The market-data upstream is unavailable and no fresh data is cached; try again shortly.',
    },
  })
}

export default { fetch: createControlRoomHandler(getReadServices) }
