import { randomUUID } from 'node:crypto'
import { tryGetContext } from 'hono/context-storage'

/** A Web handler, as every module in `api/` exports it. */
export type WebHandler = (request: Request) => Response | Promise<Response>

/** The variables an endpoint's Hono context carries (see `edge.ts`). */
export type EdgeVariables = { requestId: string }

/** What an id taken from a header may look like (Vercel's `x-vercel-id` is `cdg1::iad1::abcde-1700000000000-0123abcd`). */
const ID_PATTERN = /^[A-Za-z0-9:._-]{1,128}$/

/** The id of a request: Vercel's `x-vercel-id` when present and well formed, otherwise a new UUID. */
export function requestIdOf(request: Request): string {
  const vercelId = request.headers.get('x-vercel-id')
  return vercelId && ID_PATTERN.test(vercelId) ? vercelId : randomUUID()
}

/**
 * The id of the request being served, in this call and everything it started (undefined outside a request): the
 * endpoint's Hono context, kept by Hono's context-storage middleware, carries it.
 */
export function currentRequestId(): string | undefined {
  return tryGetContext<{ Variables: EdgeVariables }>()?.var.requestId
}
