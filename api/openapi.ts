import { createOpenApiEndpoint } from '../lib/docs/endpoint.js'

/** `GET /api/openapi` (and `/openapi.json`): the OpenAPI 3.1 document. The documents run on no side of the instance. */
export default createOpenApiEndpoint()
