import { withRequestId } from '../lib/platform/requestId.js'
import { createCachedReadHandler } from '../lib/read/cachedReadHandler.js'
import { peekControlRoom, readControlRoom } from '../lib/read/readers.js'
import { getReadServices, type ReadServices } from '../lib/read/services.js'

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

const handler = createControlRoomHandler(getReadServices)

export default { fetch: withRequestId(handler, handler.answerAtOnce) }
