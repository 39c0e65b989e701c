import { openApiEndpoint } from '../lib/docs/openapiHandler.js'

/** `GET /api/openapi` (and `/openapi.json`). */
export default openApiEndpoint
