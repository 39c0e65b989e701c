import { defaultHealthHandler } from '../lib/health/handler.js'
import { withRequestId } from '../lib/platform/requestId.js'

export default { fetch: withRequestId(defaultHealthHandler()) }
