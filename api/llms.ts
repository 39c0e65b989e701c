import { createTextEndpoint } from '../lib/docs/endpoint.js'
import { buildLlmsTxt } from '../lib/docs/llmsTxt.js'

/** `GET /api/llms` (and `/llms.txt`): the llms.txt index. */
export default createTextEndpoint('text/plain; charset=utf-8', buildLlmsTxt)
