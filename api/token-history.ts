import { withRequestId } from '../lib/platform/requestId.js'
import { createTokenHistoryHandler } from '../lib/read/handlers.js'
import { getReadServices } from '../lib/read/services.js'

export default { fetch: withRequestId(createTokenHistoryHandler(getReadServices)) }
