import { withRequestId } from '../lib/platform/requestId.js'
import { createControlRoomHandler } from '../lib/read/handlers.js'
import { getReadServices } from '../lib/read/services.js'

const handler = createControlRoomHandler(getReadServices)

export default { fetch: withRequestId(handler, handler.answerAtOnce) }
