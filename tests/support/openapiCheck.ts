import { Ajv2020 } from 'ajv/dist/2020.js'
import { buildOpenApiDocument } from '../../lib/docs/openapiDocument.js'

type Operation = {
  responses: Record<string, { content?: Record<string, { schema: unknown }>; headers?: Record<string, { required?: boolean }> }>
}

const document = buildOpenApiDocument() as { paths: Record<string, Record<string, Operation>> }
const ajv = new Ajv2020({ strict: false, allErrors: true })
ajv.addSchema(document, 'openapi.json')

/** Every (path, method, status) the suite has seen, for a coverage check. */
export const seenResponses = new Set<string>()

/**
 * Checks a response against the OpenAPI document: the status must be documented for the path and method, the
 * documented headers present, and a JSON body valid against the documented schema. Answers the problems found.
 */
export async function checkAgainstOpenApi(path: string, method: string, response: Response): Promise<string[]> {
  const m = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase()
  const operation = document.paths[path]?.[m]
  const key = `${m.toUpperCase()} ${path} ${response.status}`
  if (!document.paths[path]) return [`${path} is not in the OpenAPI document`]
  if (!operation) {
    // A method the path does not list: 405 with Allow and an Error body, as the document says for every path.
    if (response.status !== 405 || !response.headers.has('allow')) return [`${key}: an unlisted method must get 405 with Allow`]
    seenResponses.add(`${method.toUpperCase()} ${path} 405`)
    const validate = ajv.getSchema('openapi.json#/components/schemas/Error')!
    const body = JSON.parse(await response.clone().text()) as unknown
    return validate(body) ? [] : [`${key}: body does not match Error: ${ajv.errorsText(validate.errors)}`]
  }
  const documented = operation.responses[String(response.status)]
  if (!documented) return [`${key}: status not documented`]
  seenResponses.add(key)
  const problems: string[] = []
  for (const [header, spec] of Object.entries(documented.headers ?? {})) {
    if (spec.required && !response.headers.has(header)) problems.push(`${key}: required header ${header} missing`)
  }
  const content = documented.content
  if (!content || method.toUpperCase() === 'HEAD' || response.status === 304) return problems
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim()
  const media = content[type]
  if (!media) return [...problems, `${key}: content type ${type} not documented`]
  if (type !== 'application/json') return problems
  const body = JSON.parse(await response.clone().text()) as unknown
  const pointer =
    Object.keys(document.paths).indexOf(path) >= 0
      ? `openapi.json#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/${m}/responses/${response.status}/content/${type.replace('/', '~1')}/schema`
      : ''
  const validate = ajv.getSchema(pointer)
  if (!validate) return [...problems, `${key}: schema not found`]
  if (!validate(body)) problems.push(`${key}: body does not match the document: ${ajv.errorsText(validate.errors)}`)
  return problems
}

/** Wraps a handler so that every response it gives is checked against the OpenAPI document (a mismatch throws). */
export function withOpenApiCheck(path: string, endpoint: { fetch: (request: Request) => Response | Promise<Response> }) {
  return async (request: Request): Promise<Response> => {
    const response = await endpoint.fetch(request)
    const problems = await checkAgainstOpenApi(path, request.method, response)
    if (problems.length) throw new Error(`response breaks the OpenAPI document:\n${problems.join('\n')}`)
    return response
  }
}

/** Paths the site answers that map onto a documented path (vercel.json rewrites). */
const REWRITES: Record<string, string> = {
  '/openapi.json': '/api/openapi',
  '/skill.md': '/api/skill',
  '/llms.txt': '/api/llms',
  '/.well-known/x402': '/api/x402/manifest',
}

/** `fetch` that checks every answer from an /api/ path (or a rewrite of one) against the OpenAPI document. */
export async function fetchChecked(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init)
  const response = await fetch(request)
  const { pathname } = new URL(request.url)
  const path = REWRITES[pathname] ?? pathname
  if (path.startsWith('/api/') && document.paths[path]) {
    const problems = await checkAgainstOpenApi(path, request.method, response)
    if (problems.length) throw new Error(`response breaks the OpenAPI document:\n${problems.join('\n')}`)
  }
  return response
}
