import { withRequestId } from '../lib/platform/requestId.js'
import { createMarketHistoryHandler } from '../lib/read/handlers.js'
import { getReadServices } from '../lib/read/services.js'

const handler = createMarketHistoryHandler(getReadServices)

export default { fetch: withRequestId(handler, handler.answerAtOnce) }
