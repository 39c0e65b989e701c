import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { createEndpoint } from '../platform/edge.js'
import { jsonResponse, type Method } from '../platform/http.js'
import { notAllowedAnswer } from '../platform/routeDocs.js'
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

/** `GET /api/openapi`, as the document declares itself. */
export const openApiRoute: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getOpenApi',
    summary: 'This document (also at /openapi.json)',
    description: 'This OpenAPI 3.1 document, generated from the zod schemas the handlers validate with.',
    responses: {
      '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } },
      '405': notAllowedAnswer,
    },
  },
}
