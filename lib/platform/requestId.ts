import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'

/** A Web handler, as every module in `api/` exports it. */
export type WebHandler = (request: Request) => Response | Promise<Response>

const requestIds = new AsyncLocalStorage<string>()

/** What an id taken from a header may look like (Vercel's `x-vercel-id` is `cdg1::iad1::abcde-1700000000000-0123abcd`). */
const ID_PATTERN = /^[A-Za-z0-9:._-]{1,128}$/

/** The id of a request answered at once, while its answer is made (see {@link withRequestId}). */
let answeringAtOnce: string | undefined

/** The id of the request being served, in this call and everything it started (undefined outside a request). */
export function currentRequestId(): string | undefined {
  return requestIds.getStore() ?? answeringAtOnce
}

/**
 * The answer to a request that needs no I/O, writes no log line and leaves no work running (a warm read), made at
 * once; or null when the handler proper must answer.
 */
export type AnswerAtOnce = (request: Request) => Response | null

/** Marks a response that already carries its request's id ({@link stampRequestId}). */
const STAMPED = Symbol('carries X-Request-Id')

/**
 * Marks a response built with the current request's `X-Request-Id` ({@link currentRequestId}) among the headers it
 * was made from: {@link withRequestId} then leaves it alone. Set in the record a Response is built from, the header
 * costs nothing more; set afterwards, it turns the record into a `Headers` object, which the local server's adapter
 * must then copy again on every answer.
 */
export function stampRequestId(response: Response): Response {
  ;(response as Stamped)[STAMPED] = true
  return response
}

type Stamped = Response & { [STAMPED]?: true }

/** The id of a request: Vercel's `x-vercel-id` when present and well formed, otherwise a new UUID. */
export function requestIdOf(request: Request): string {
  const vercelId = request.headers.get('x-vercel-id')
  return vercelId && ID_PATTERN.test(vercelId) ? vercelId : randomUUID()
}

/**
 * Serves each request under its id: every log line written while serving it (background work it starts included)
 * carries the id, and the answer carries it as `X-Request-Id`, so a caller's answer and the operator's log lines meet.
 * A handler called from inside another (the MCP tools call the read handlers) keeps the outer request's id. A handler
 * that throws gives a rejected promise.
 *
 * `answerAtOnce` is asked first: what it answers needs the id only for its header, so it is made without entering an
 * async context for the request, which costs a warm read about a tenth of its throughput on the local server (the
 * context follows every callback Node runs afterwards). It must not log or start anything: nothing would carry the id.
 */
export function withRequestId(handler: WebHandler, answerAtOnce?: AnswerAtOnce): WebHandler {
  return (request) => {
    const outer = requestIds.getStore()
    const id = outer ?? requestIdOf(request)
    let answer: Response | Promise<Response>
    try {
      if (answerAtOnce && outer === undefined) {
        answeringAtOnce = id
        let quick: Response | null
        try {
          quick = answerAtOnce(request)
        } finally {
          answeringAtOnce = undefined
        }
        if (quick) return withIdHeader(quick, id)
      }
      answer = outer ? handler(request) : requestIds.run(id, handler, request)
    } catch (error) {
      return Promise.reject(error)
    }
    return answer instanceof Promise ? answer.then((response) => withIdHeader(response, id)) : withIdHeader(answer, id)
  }
}

/** The response carrying `id` as `X-Request-Id`: as it is when stamped, else with the header added. */
function withIdHeader(response: Response, id: string): Response {
  return (response as Stamped)[STAMPED] ? response : withHeader(response, 'x-request-id', id)
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
