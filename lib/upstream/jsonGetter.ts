import type { Deadline, Sleep } from '../platform/clock.js'
import { BaseError } from '../platform/errors.js'
import type { DroppedRows } from './fields.js'

/** Why an upstream call failed. */
/** `budget`: the refresh spent its own request budget; `throttled`: the service-wide per-minute budget is spent. */
export type UpstreamErrorKind = 'network' | 'timeout' | 'status' | 'body' | 'budget' | 'throttled'

/** A failed upstream call, after retries. Its message names the path, never a secret. */
export class UpstreamError extends BaseError<'UPSTREAM_ERROR'> {
  override name = 'UpstreamError'
  readonly kind: UpstreamErrorKind
  /** The provider's HTTP status, when it answered one. */
  readonly status: number | undefined
  /** The provider's `Retry-After`, in ms, when it sent one. */
  readonly retryAfterMs: number | null
  constructor(message: string, kind: UpstreamErrorKind, status?: number, retryAfterMs: number | null = null) {
    // Its message is written here from the path alone: it is public, as every BaseError's.
    super(message, { code: 'UPSTREAM_ERROR', httpStatus: 503, details: { kind } })
    this.kind = kind
    this.status = status
    this.retryAfterMs = retryAfterMs
  }
}

/** Requests a caller may still make; shared by all calls of one refresh so retries count too. */
export type RequestBudget = { remaining: number }

/**
 * Options of one client call: `budget` caps the caller's own requests; `preAdmitted` holds slots of the service-wide
 * budget the caller reserved ahead in one step (each attempt takes one instead of asking `admit`, until none is left);
 * `dropped` counts the rows a parser left out of the answer, by cause.
 */
export type CallOptions = { signal?: AbortSignal; budget?: RequestBudget; preAdmitted?: RequestBudget; dropped?: DroppedRows }

/** Parameters of {@link createJsonGetter}. */
export type CreateJsonGetterParameters = {
  baseUrl: string
  /** Request headers of every call (e.g. the API version a provider wants in `Accept`). */
  headers?: Record<string, string>
  fetch?: typeof globalThis.fetch
  /** Timeout of one HTTP attempt (default 8000 ms). */
  requestTimeoutMs?: number
  /** Retries after the first attempt, only on network errors, 408, 429 and 5xx (default 2). */
  maxRetries?: number
  /** First backoff step (default 250 ms); each retry doubles it, with full jitter. */
  backoffBaseMs?: number
  /** Longest `Retry-After` honoured (default 5000 ms); a longer one ends the retries. */
  maxRetryAfterMs?: number
  random?: () => number
  /** The path as it may appear in messages and logs (without queries or address lists). */
  describePath?: (path: string) => string
  /**
   * Asked before every attempt, retries included: false means the service-wide request budget of this provider is
   * spent, and the call fails with kind `throttled` instead of being sent.
   */
  admit?: () => Promise<boolean>
  /** The clock a `Retry-After` date is read against... */
  now: () => number
  /** ...the one the waits between attempts run on... */
  sleep: Sleep
  /** ...and the one each attempt's timeout runs on. */
  deadline: Deadline
}

/** GETs a path and reads the JSON body with `parse` (null: the body has the wrong shape). */
export type JsonGetter = <T>(path: string, parse: (body: unknown) => T | null, options?: CallOptions) => Promise<T>

const RETRYABLE_STATUS: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504])

/** Parses `Retry-After` (seconds or an HTTP date) into milliseconds from `now`. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null
  const trimmed = value.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000)
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}

type Attempt<T> = { value?: T; error?: UpstreamError; retry: boolean; retryAfterMs: number | null }

/**
 * A GET-JSON client for one provider: a timeout per attempt, bounded jittered retries (network errors, 408, 429, 5xx)
 * that honour `Retry-After`, a shared request budget, and a non-JSON or wrongly shaped body treated as an error.
 */
export function createJsonGetter(parameters: CreateJsonGetterParameters): JsonGetter {
  const {
    baseUrl,
    headers = { accept: 'application/json' },
    fetch: fetchFn = globalThis.fetch,
    requestTimeoutMs = 8000,
    maxRetries = 2,
    backoffBaseMs = 250,
    maxRetryAfterMs = 5000,
    random = Math.random,
    describePath = (path) => path.replace(/\?.*$/, ''),
    admit,
    now,
    sleep,
    deadline,
  } = parameters
  const root = baseUrl.replace(/\/+$/, '')

  async function attempt<T>(path: string, parse: (body: unknown) => T | null, outer?: AbortSignal): Promise<Attempt<T>> {
    const route = describePath(path)
    const timeout = deadline(requestTimeoutMs)
    const signal = outer ? AbortSignal.any([outer, timeout]) : timeout
    let response: Response
    let text: string
    try {
      response = await fetchFn(`${root}${path}`, { headers, signal })
      text = await response.text()
    } catch {
      if (outer?.aborted)
        return { retry: false, retryAfterMs: null, error: new UpstreamError(`upstream refresh deadline passed during ${route}`, 'timeout') }
      if (timeout.aborted)
        return {
          retry: true,
          retryAfterMs: null,
          error: new UpstreamError(`upstream ${route} timed out after ${requestTimeoutMs} ms`, 'timeout'),
        }
      return { retry: true, retryAfterMs: null, error: new UpstreamError(`upstream ${route} could not be reached`, 'network') }
    }
    if (!response.ok) {
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), now())
      return {
        retry: RETRYABLE_STATUS.has(response.status),
        retryAfterMs,
        error: new UpstreamError(`upstream ${route} answered HTTP ${response.status}`, 'status', response.status, retryAfterMs),
      }
    }
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return {
        retry: false,
        retryAfterMs: null,
        error: new UpstreamError(`upstream ${route} answered a body that is not JSON`, 'body', response.status),
      }
    }
    const value = parse(body)
    if (value === null)
      return {
        retry: false,
        retryAfterMs: null,
        error: new UpstreamError(`upstream ${route} answered JSON of an unknown shape`, 'body', response.status),
      }
    return { retry: false, retryAfterMs: null, value }
  }

  return async (path, parse, { signal: outer, budget, preAdmitted } = {}) => {
    let lastError: UpstreamError | undefined
    for (let retry = 0; ; retry++) {
      if (budget) {
        // Spent while this call waited to retry: the attempt's own failure is the cause worth reporting.
        if (budget.remaining <= 0)
          throw lastError ?? new UpstreamError(`upstream request budget spent before ${describePath(path)}`, 'budget')
        budget.remaining--
      }
      const reserved = preAdmitted !== undefined && preAdmitted.remaining > 0
      if (reserved) preAdmitted.remaining--
      if (admit && !reserved && !(await admit()))
        throw new UpstreamError(`upstream request budget of the service is spent for this minute (${describePath(path)})`, 'throttled')
      const result = await attempt(path, parse, outer)
      if (result.error === undefined) return result.value as NonNullable<typeof result.value>
      const error = result.error
      lastError = error
      if (!result.retry || retry >= maxRetries || (budget && budget.remaining <= 0)) throw error
      if (result.retryAfterMs !== null && result.retryAfterMs > maxRetryAfterMs) throw error
      const backoff = Math.round(random() * backoffBaseMs * 2 ** retry)
      if (!outer?.aborted) await sleep(Math.max(backoff, result.retryAfterMs ?? 0), { signal: outer })
      if (outer?.aborted) {
        throw new UpstreamError(`upstream refresh deadline passed while waiting to retry ${describePath(path)}`, 'timeout')
      }
    }
  }
}
