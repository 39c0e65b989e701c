import { CORS_HEADERS, errorResponse, guardRequest, type Method } from '../platform/http.js'

const METHODS: readonly Method[] = ['GET', 'HEAD']

/** A GET endpoint that answers a text document with CORS and a 5-minute cache. */
export function createTextHandler(contentType: string, produce: () => Promise<string> | string) {
  return async (request: Request): Promise<Response> => {
    const guarded = guardRequest(request, METHODS)
    if (guarded) return guarded
    let text: string
    try {
      text = await produce()
    } catch {
      return errorResponse(500, 'INTERNAL', 'The document is not available on this deployment.')
    }
    return new Response(request.method === 'HEAD' ? null : text, {
      headers: {
        'content-type': contentType,
        'cache-control': 'public, max-age=300',
        'x-content-type-options': 'nosniff',
        ...CORS_HEADERS,
      },
    })
  }
}
