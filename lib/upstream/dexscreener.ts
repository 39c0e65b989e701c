import { type Pair, parsePairsBody } from './pair.js'

/** Why an upstream call failed. */
export type UpstreamErrorKind = 'network' | 'timeout' | 'status' | 'body' | 'budget'

/** A failed upstream call, after retries. Its message names the path, never a secret. */
export class UpstreamError extends Error {
  override name = 'UpstreamError'
  constructor(
    message: string,
    readonly kind: UpstreamErrorKind,
    readonly status?: number,
  ) {
    super(message)
  }
}

/** Requests a caller may still make; shared by all calls of one refresh so retries count too. */
export type RequestBudget = { remaining: number }

/** Options of one client call. */
export type CallOptions = { signal?: AbortSignal; budget?: RequestBudget }

/** Client for the DexScreener endpoints the read API uses. */
export type DexScreenerClient = {
  /** `/latest/dex/search?q=`: about 30 pairs on all chains. */
  search(query: string, options?: CallOptions): Promise<Pair[]>
  /** `/tokens/v1/base/{addresses}`: every Base pair of up to 30 tokens. */
  tokens(addresses: readonly string[], options?: CallOptions): Promise<Pair[]>
}

/** Parameters of {@link createDexScreenerClient}. */
export type CreateDexScreenerClientParameters = {
  baseUrl: string
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
}

/** Most addresses `/tokens/v1` takes in one call; it truncates silently past that. */
export const TOKENS_BATCH_SIZE = 30

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504])

/** Parses `Retry-After` (seconds or an HTTP date) into milliseconds from `now`. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (!value) return null
  const trimmed = value.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000)
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** Creates a DexScreener client with per-call timeouts, bounded jittered retries and tolerant parsing. */
export function createDexScreenerClient(parameters: CreateDexScreenerClientParameters): DexScreenerClient {
  const {
    baseUrl,
    fetch: fetchFn = globalThis.fetch,
    requestTimeoutMs = 8000,
    maxRetries = 2,
    backoffBaseMs = 250,
    maxRetryAfterMs = 5000,
    random = Math.random,
  } = parameters
  const root = baseUrl.replace(/\/+$/, '')

  async function attempt(path: string, outer?: AbortSignal): Promise<{ retryAfterMs: number | null; pairs?: Pair[]; error?: UpstreamError; retry: boolean }> {
    const timeout = AbortSignal.timeout(requestTimeoutMs)
    const signal = outer ? AbortSignal.any([outer, timeout]) : timeout
    let response: Response
    let text: string
    try {
      response = await fetchFn(`${root}${path}`, { headers: { accept: 'application/json' }, signal })
      text = await response.text()
    } catch {
      if (outer?.aborted) return { retry: false, retryAfterMs: null, error: new UpstreamError(`upstream refresh deadline passed during ${route(path)}`, 'timeout') }
      if (timeout.aborted) return { retry: true, retryAfterMs: null, error: new UpstreamError(`upstream ${route(path)} timed out after ${requestTimeoutMs} ms`, 'timeout') }
      return { retry: true, retryAfterMs: null, error: new UpstreamError(`upstream ${route(path)} could not be reached`, 'network') }
    }
    if (!response.ok) {
      return {
        retry: RETRYABLE_STATUS.has(response.status),
        retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
        error: new UpstreamError(`upstream ${route(path)} answered HTTP ${response.status}`, 'status', response.status),
      }
    }
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return { retry: false, retryAfterMs: null, error: new UpstreamError(`upstream ${route(path)} answered a body that is not JSON`, 'body', response.status) }
    }
    const pairs = parsePairsBody(body)
    if (!pairs) return { retry: false, retryAfterMs: null, error: new UpstreamError(`upstream ${route(path)} answered JSON without pairs`, 'body', response.status) }
    return { retry: false, retryAfterMs: null, pairs }
  }

  async function getPairs(path: string, { signal: outer, budget }: CallOptions = {}): Promise<Pair[]> {
    for (let retry = 0; ; retry++) {
      if (budget) {
        if (budget.remaining <= 0) throw new UpstreamError(`upstream request budget spent before ${route(path)}`, 'budget')
        budget.remaining--
      }
      const result = await attempt(path, outer)
      if (result.pairs) return result.pairs
      const error = result.error!
      if (!result.retry || retry >= maxRetries || (budget && budget.remaining <= 0)) throw error
      if (result.retryAfterMs !== null && result.retryAfterMs > maxRetryAfterMs) throw error
      const backoff = Math.round(random() * backoffBaseMs * 2 ** retry)
      try {
        await sleep(Math.max(backoff, result.retryAfterMs ?? 0), outer)
      } catch {
        throw new UpstreamError(`upstream refresh deadline passed while waiting to retry ${route(path)}`, 'timeout')
      }
    }
  }

  return {
    search: (query, options) => getPairs(`/latest/dex/search?q=${encodeURIComponent(query)}`, options),
    tokens: (addresses, options) => {
      if (addresses.length === 0) return Promise.resolve([])
      if (addresses.length > TOKENS_BATCH_SIZE) throw new RangeError(`at most ${TOKENS_BATCH_SIZE} addresses per call`)
      return getPairs(`/tokens/v1/base/${addresses.join(',')}`, options)
    },
  }
}

/** The path of a request without its query or address list, for messages. */
const route = (path: string): string => path.replace(/\?.*$/, '').replace(/^(\/tokens\/v1\/base)\/.*$/, '$1/…')
