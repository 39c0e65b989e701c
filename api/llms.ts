import { buildLlmsTxt } from '../lib/docs/llmsTxt.js'
import { createTextHandler } from '../lib/docs/textHandler.js'
import { withRequestId } from '../lib/platform/requestId.js'

/** `GET /api/llms` (and `/llms.txt`): the llms.txt index. */
export default { fetch: withRequestId(createTextHandler('text/plain; charset=utf-8', buildLlmsTxt)) }
