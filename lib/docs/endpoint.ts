import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { createEndpoint, type Endpoint } from '../platform/edge.js'
import { errorResponse, type Method } from '../platform/http.js'
import { notAllowedAnswer } from '../platform/routeDocs.js'

const METHODS: readonly Method[] = ['GET', 'HEAD']

/** A GET endpoint that answers a text document with a 5-minute cache. */
export function createTextEndpoint(contentType: string, produce: () => Promise<string> | string): Endpoint {
  return createEndpoint({
    methods: METHODS,
    handler: async (request) => {
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
        },
      })
    },
  })
}

/** `GET /api/skill`, as the OpenAPI document declares it. */
export const skillRoute: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getSkill',
    summary: 'The agent skill file (also at /skill.md)',
    description: 'The agent skill file: how an AI agent reads market data and deploys, with examples.',
    responses: {
      '200': { description: 'Markdown', content: { 'text/markdown': { schema: { type: 'string' } } } },
      '405': notAllowedAnswer,
    },
  },
}

/** `GET /api/llms`, as the OpenAPI document declares it. */
export const llmsTxtRoute: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getLlmsTxt',
    summary: 'llms.txt index (also at /llms.txt)',
    description: 'The llms.txt index: what the service is and where an agent reads on.',
    responses: { '200': { description: 'Text', content: { 'text/plain': { schema: { type: 'string' } } } }, '405': notAllowedAnswer },
  },
}
