import { handleOpenApi } from '../lib/docs/openapiHandler.js'
import { withRequestId } from '../lib/platform/requestId.js'

export default { fetch: withRequestId(handleOpenApi) }
