import { guardRequest, jsonResponse, type Method } from '../platform/http.js'
import { buildOpenApiDocument } from './openapi.js'

const METHODS: readonly Method[] = ['GET', 'HEAD']
let body: string | undefined

/** `GET /api/openapi` (and `/openapi.json`): the OpenAPI 3.1 document. */
export async function handleOpenApi(request: Request): Promise<Response> {
  const guarded = guardRequest(request, METHODS)
  if (guarded) return guarded
  body ??= JSON.stringify(buildOpenApiDocument(), null, 2)
  return jsonResponse({ body, head: request.method === 'HEAD', headers: { 'cache-control': 'public, max-age=300' } })
}
