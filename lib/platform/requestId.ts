import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'

/** A Web handler, as every module in `api/` exports it. */
export type WebHandler = (request: Request) => Response | Promise<Response>

const requestIds = new AsyncLocalStorage<string>()

/** What an id taken from a header may look like (Vercel's `x-vercel-id` is `cdg1::iad1::abcde-1700000000000-0123abcd`). */
const ID_PATTERN = /^[A-Za-z0-9:._-]{1,128}$/

/** The id of the request being served, in this call and everything it started (undefined outside a request). */
export function currentRequestId(): string | undefined {
  return requestIds.getStore()
}

/** Responses that already carry their request's id, built with {@link requestIdHeaders}. */
const stamped = new WeakSet<Response>()

/**
 * The `X-Request-Id` header of the request being served, for a response built now (empty outside a request), and
 * `stamp` to mark that response as carrying it: {@link withRequestId} then leaves its headers alone. Set in the
 * record a Response is built from, the header costs nothing more; set afterwards, it turns the record into a
 * `Headers` object, which the local server's adapter must then copy again on every answer.
 */
export function requestIdHeaders(): { headers: Record<string, string>; stamp: (response: Response) => Response } {
  const id = requestIds.getStore()
  if (!id) return { headers: {}, stamp: (response) => response }
  return {
    headers: { 'x-request-id': id },
    stamp: (response) => {
      stamped.add(response)
      return response
    },
  }
}

/** The id of a request: Vercel's `x-vercel-id` when present and well formed, otherwise a new UUID. */
export function requestIdOf(request: Request): string {
  const vercelId = request.headers.get('x-vercel-id')
  return vercelId && ID_PATTERN.test(vercelId) ? vercelId : randomUUID()
}

/**
 * Serves each request under its id: every log line written while serving it (background work it starts included)
 * carries the id, and the answer carries it as `X-Request-Id`, so a caller's answer and the operator's log lines meet.
 * A handler called from inside another (the MCP tools call the read handlers) keeps the outer request's id.
 */
export function withRequestId(handler: WebHandler): (request: Request) => Promise<Response> {
  return async (request) => {
    const outer = requestIds.getStore()
    const id = outer ?? requestIdOf(request)
    const response = outer ? await handler(request) : await requestIds.run(id, () => handler(request))
    return stamped.has(response) ? response : withHeader(response, 'x-request-id', id)
  }
}

/** The response with one more header (copied first when its headers are immutable, as a fetched response's are). */
function withHeader(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value)
    return response
  } catch {
    const copy = new Response(response.body, response)
    copy.headers.set(name, value)
    return copy
  }
}
