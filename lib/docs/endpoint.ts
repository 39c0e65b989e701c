import type { AgentAction } from '../deploy/actions/action.js'
import { createEndpoint, type Endpoint } from '../platform/edge.js'
import { jsonResponse, type Method } from '../platform/http.js'
import { perInstanceAsync } from '../platform/perInstance.js'

// The documents' endpoints. They run on no side of the instance (no store, no upstream): each builds its text from
// the code alone, once per instance, and loads only its own document (the skill file never loads the OpenAPI one).

const METHODS: readonly Method[] = ['GET', 'HEAD']

/** A GET endpoint that answers a text document with a 5-minute cache. */
function createTextEndpoint(contentType: string, produce: () => Promise<string> | string): Endpoint {
  return createEndpoint({
    methods: METHODS,
    // A document that cannot be built is thrown to the edge, which answers it as every endpoint does (INTERNAL).
    handler: async (request) => {
      const text = await produce()
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

/** Options of the documents' endpoints. */
export type DocumentEndpointOptions = {
  /** The agent actions the document lists (default: the registry's). */
  actions?: readonly AgentAction[]
}

/** `GET /api/llms` (and `/llms.txt`): the llms.txt index. */
export function createLlmsTxtEndpoint({ actions }: DocumentEndpointOptions = {}): Endpoint {
  const text = perInstanceAsync(async () => (await import('./llmsTxt.js')).buildLlmsTxt({ actions }))
  return createTextEndpoint('text/plain; charset=utf-8', text)
}

/**
 * `GET /api/skill` (and `/skill.md`): the agent skill file, shipped as code (`skillDocument.ts`) so every build carries
 * it, with its list of actions written from the registry (for the registry's own, byte for byte SKILL.md).
 */
export function createSkillEndpoint({ actions }: DocumentEndpointOptions = {}): Endpoint {
  const text = perInstanceAsync(async () => {
    const [{ SKILL_DOCUMENT }, { skillWithActions }, { AGENT_ACTIONS }] = await Promise.all([
      import('./skillDocument.js'),
      import('./actionList.js'),
      import('../deploy/actions/registry.js'),
    ])
    return skillWithActions(SKILL_DOCUMENT, actions ?? AGENT_ACTIONS)
  })
  return createTextEndpoint('text/markdown; charset=utf-8', text)
}

/** `GET /api/openapi` (and `/openapi.json`): the OpenAPI 3.1 document, written out once per instance. */
export function createOpenApiEndpoint({ actions }: DocumentEndpointOptions = {}): Endpoint {
  const documentText = perInstanceAsync(async () =>
    JSON.stringify((await import('./openapiDocument.js')).buildOpenApiDocument({ actions }), null, 2),
  )
  return createEndpoint({
    methods: METHODS,
    handler: async (request) =>
      jsonResponse({ body: await documentText(), head: request.method === 'HEAD', headers: { 'cache-control': 'public, max-age=300' } }),
  })
}
