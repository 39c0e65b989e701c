import { createLlmsTxtEndpoint } from '../lib/docs/endpoint.js'

/** `GET /api/llms` (and `/llms.txt`): the llms.txt index. The documents run on no side of the instance. */
export default createLlmsTxtEndpoint()
