import { createEndpoint } from '../platform/edge.js'
import { jsonResponse, type Method } from '../platform/http.js'
import { perInstance } from '../platform/perInstance.js'
import { buildOpenApiDocument } from './openapiDocument.js'

const METHODS: readonly Method[] = ['GET', 'HEAD']
/** The document as served, written out once per instance. */
const documentText = perInstance(() => JSON.stringify(buildOpenApiDocument(), null, 2))

/** `GET /api/openapi` (and `/openapi.json`): the OpenAPI 3.1 document. */
export const openApiEndpoint = createEndpoint({
  methods: METHODS,
  handler: (request) => {
    return jsonResponse({ body: documentText(), head: request.method === 'HEAD', headers: { 'cache-control': 'public, max-age=300' } })
  },
})
