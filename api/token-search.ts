import { withRequestId } from '../lib/platform/requestId.js'
import { createTokenSearchHandler } from '../lib/read/handlers.js'
import { getReadServices } from '../lib/read/services.js'

export default { fetch: withRequestId(createTokenSearchHandler(getReadServices)) }
