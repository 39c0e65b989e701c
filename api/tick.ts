import { withRequestId } from '../lib/platform/requestId.js'
import { defaultTickHandler } from '../lib/tick/handler.js'

export default { fetch: withRequestId(defaultTickHandler()) }
