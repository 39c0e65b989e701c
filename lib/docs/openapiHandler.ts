import { createEndpoint } from '../platform/edge.js'
import { jsonResponse, type Method } from '../platform/http.js'
import { buildOpenApiDocument } from './openapi.js'

const METHODS: readonly Method[] = ['GET', 'HEAD']
let body: string | undefined

/** `GET /api/openapi` (and `/openapi.json`): the OpenAPI 3.1 document. */
export const openApiEndpoint = createEndpoint({
  methods: METHODS,
  handler: (request) => {
    body ??= JSON.stringify(buildOpenApiDocument(), null, 2)
    return jsonResponse({ body, head: request.method === 'HEAD', headers: { 'cache-control': 'public, max-age=300' } })
  },
})
