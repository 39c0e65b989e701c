import { createHash, timingSafeEqual } from 'node:crypto'
import { z } from 'zod'
import { accepted, type Result, refused } from './result.js'

/** HTTP methods as they appear on the wire. */
export type Method = 'GET' | 'HEAD' | 'POST' | 'OPTIONS'

/** Request headers a browser may send cross-origin. */
export const CORS_ALLOWED_HEADERS = ['Content-Type', 'X-Service-Key', 'Idempotency-Key', 'If-None-Match']

/** Response headers a browser script may read cross-origin. */
export const CORS_EXPOSED_HEADERS = [
  'ETag',
  'Retry-After',
  'X-Data-State',
  'X-Data-Age',
  'X-Data-Source',
  'X-Request-Id',
  'RateLimit',
  'RateLimit-Policy',
]

/**
 * The CORS headers of an open endpoint's actual answers, as the edge's CORS middleware sets them; written into the
 * headers of a warm read's answer, which skips the middleware (`edge.ts`).
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': CORS_EXPOSED_HEADERS.join(','),
}

/** Security headers of every answer. */
export const BASE_HEADERS = { 'x-content-type-options': 'nosniff' }

/** Machine codes of the error bodies of the read endpoints, health and the tick. */
export const READ_ERROR_CODES = [
  'METHOD_NOT_ALLOWED',
  'QUERY_REQUIRED',
  'QUERY_TOO_LONG',
  'RATE_LIMITED',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_ERROR',
  'CONFIG_INVALID',
  'INTERNAL',
  'NOT_FOUND',
  'UNAUTHORIZED',
  'MALFORMED_REQUEST',
  'INVALID_ADDRESS',
  'UNKNOWN_TOKEN',
  'BODY_TOO_LARGE',
  'STREAMS_FULL',
  'INVALID_PARAMETER',
  'LAUNCHES_OFF',
  'NOT_A_LAUNCH',
  'STORE_UNAVAILABLE',
] as const

/** A JSON error body of the read endpoints: a human message and a stable machine code. */
export const errorBodySchema = z.object({
  error: z.string().describe('What went wrong, for people'),
  code: z.enum(READ_ERROR_CODES).describe('What went wrong, for programs'),
  field: z.string().optional().describe('The query parameter that is wrong (INVALID_PARAMETER)'),
  retryAfterSeconds: z.number().int().optional().describe('Seconds to wait before retrying, as Retry-After (STORE_UNAVAILABLE)'),
  requestId: z.string().optional().describe('The request’s id, to quote to the operator (INTERNAL)'),
})

/** A JSON error body: a human message and a stable machine code (and, for a wrong parameter, which one). */
export type ErrorBody = { error: string; code: string; field?: string }

/** Parameters of {@link jsonResponse}. */
export type JsonResponseParameters = {
  status?: number
  /** The body, already serialised (cached bodies are served byte for byte, pre-encoded). */
  body: string | Uint8Array
  headers?: Record<string, string>
  /** Answered without a body (HEAD). */
  head?: boolean
}

/** A JSON response with the security headers (the edge adds CORS and the request id). */
export function jsonResponse({ status = 200, body, headers = {}, head = false }: JsonResponseParameters): Response {
  return new Response(head ? null : (body as BodyInit), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...BASE_HEADERS, ...headers },
  })
}

/** A JSON error response `{ error, code }` that no cache keeps. */
export function errorResponse(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
  field?: string,
): Response {
  const body: ErrorBody = field === undefined ? { error: message, code } : { error: message, code, field }
  return jsonResponse({ status, body: JSON.stringify(body), headers: { 'cache-control': 'no-store', ...headers } })
}

/** True when an `If-None-Match` header names `etag` (or `*`); weak validators match too. */
export function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false
  if (ifNoneMatch === etag) return true // what a client that keeps the last ETag sends
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === etag
  })
}

/** Parameters of {@link cachedAnswerHeaders}. */
export type CachedAnswerHeadersParameters = {
  etag: string
  /** Seconds the body stays fresh in shared caches (0 when it is already past its window). */
  maxAgeSeconds: number
  /** Seconds a cache may serve it stale while revalidating, and stale when the origin fails. */
  staleWhileRevalidateSeconds: number
  staleIfErrorSeconds: number
  /** Further headers (how old the data is, whether it is stale, which upstream served it). */
  headers?: Record<string, string>
}

/** The headers of a cached read's 200 and of its 304, made once and shared by every answer they fit. */
export type CachedAnswerHeaders = { readonly ok: Readonly<Record<string, string>>; readonly notModified: Readonly<Record<string, string>> }

/** The headers a cached read answers with: `ETag`, a fitting `Cache-Control`, CORS and the security headers. */
export function cachedAnswerHeaders(parameters: CachedAnswerHeadersParameters): CachedAnswerHeaders {
  const { etag, maxAgeSeconds, staleWhileRevalidateSeconds, staleIfErrorSeconds } = parameters
  const age = Math.max(0, Math.ceil(maxAgeSeconds))
  const headers = {
    etag,
    'cache-control': `public, max-age=${age}, s-maxage=${age}, stale-while-revalidate=${staleWhileRevalidateSeconds}, stale-if-error=${staleIfErrorSeconds}`,
    ...parameters.headers,
  }
  return {
    ok: { 'content-type': 'application/json; charset=utf-8', ...BASE_HEADERS, ...CORS_HEADERS, ...headers },
    notModified: { ...BASE_HEADERS, ...CORS_HEADERS, ...headers },
  }
}

/** Parameters of {@link cachedJsonResponse}. */
export type CachedJsonResponseParameters = {
  request: Request
  body: string | Uint8Array
  etag: string
  /** From {@link cachedAnswerHeaders}. */
  headers: CachedAnswerHeaders
  /** The request's id, when the answer skips the edge's middleware (a warm read, `edge.ts`). */
  requestId?: string
  /** Headers of this answer alone (a throttled client's quota). */
  extraHeaders?: Record<string, string> | undefined
}

/** A 200 (or 304 for a matching `If-None-Match`) for a cached read. */
export function cachedJsonResponse({ request, body, etag, headers, requestId, extraHeaders }: CachedJsonResponseParameters): Response {
  const notModified = matchesEtag(request.headers.get('if-none-match'), etag)
  // A record made for this answer: the id joins it here, for the local server's adapter writes a record as it is.
  const record = { ...(notModified ? headers.notModified : headers.ok), ...extraHeaders }
  if (requestId !== undefined) record['x-request-id'] = requestId
  if (notModified) return new Response(null, { status: 304, headers: record })
  return new Response(request.method === 'HEAD' ? null : (body as BodyInit), { status: 200, headers: record })
}

/** Result of {@link readJsonBody}. */
export type ReadJsonBodyReturnType = Result<
  { body: unknown },
  'BODY_TOO_LARGE' | 'UNSUPPORTED_CONTENT_TYPE' | 'INVALID_JSON',
  { status: 400 | 413; message: string }
>

/** Most bytes of a refused body read and thrown away so that the client gets its answer; past that the read stops. */
export const DISCARD_LIMIT_BYTES = 1024 * 1024

/**
 * Reads and drops the rest of a refused body up to {@link DISCARD_LIMIT_BYTES} in all: a client still sending gets its
 * answer rather than a reset connection. Past the limit the stream is cancelled, which closes the connection.
 */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, alreadyRead: number): Promise<void> {
  let size = alreadyRead
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return
    size += value.byteLength
    if (size > DISCARD_LIMIT_BYTES) return void (await reader.cancel().catch(() => undefined))
  }
}

/** Result of {@link readBodyBytes}: the body, or that it passed the limit. */
export type ReadBodyBytesReturnType = Result<{ bytes: Buffer }, 'BODY_TOO_LARGE'>

/**
 * Reads a request body of at most `limitBytes`, refusing early on `Content-Length` and stopping the read as soon as the
 * limit is passed, so an oversized body is never buffered whole.
 */
export async function readBodyBytes(request: Request, limitBytes: number): Promise<ReadBodyBytesReturnType> {
  const declared = Number(request.headers.get('content-length') ?? '0')
  if (Number.isFinite(declared) && declared > limitBytes) return refused('BODY_TOO_LARGE')
  const chunks: Uint8Array[] = []
  let size = 0
  if (request.body) {
    const reader = request.body.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > limitBytes) {
        await discardRest(reader, size)
        return refused('BODY_TOO_LARGE')
      }
      chunks.push(value)
    }
  }
  return accepted({ bytes: Buffer.concat(chunks) })
}

/** Reads a JSON request body of at most `limitBytes` (see {@link readBodyBytes}), after checking its content type. */
export async function readJsonBody(request: Request, limitBytes: number): Promise<ReadJsonBodyReturnType> {
  const tooLarge = refused('BODY_TOO_LARGE', { status: 413, message: `The request body is larger than ${limitBytes} bytes.` } as const)
  const declared = Number(request.headers.get('content-length') ?? '0')
  if (Number.isFinite(declared) && declared > limitBytes) return tooLarge
  const contentType = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (contentType !== 'application/json') {
    return refused('UNSUPPORTED_CONTENT_TYPE', {
      status: 400,
      message: 'Send the body as JSON with Content-Type: application/json.',
    } as const)
  }
  const read = await readBodyBytes(request, limitBytes)
  if (!read.ok) return tooLarge
  try {
    return accepted({ body: JSON.parse(read.bytes.toString('utf8')) as unknown })
  } catch {
    return refused('INVALID_JSON', { status: 400, message: 'The request body is not valid JSON.' } as const)
  }
}

/** True when `authorization` is `Bearer <secret>`, compared in constant time (over digests, so lengths leak nothing). */
export function isBearerValid(authorization: string | null, secret: string): boolean {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1]
  if (!bearer) return false
  const digest = (v: string) => createHash('sha256').update(v).digest()
  return timingSafeEqual(digest(bearer), digest(secret))
}
