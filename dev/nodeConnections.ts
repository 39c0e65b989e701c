import { type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders, type Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { DISCARD_LIMIT_BYTES } from '../lib/platform/http.js'

// What the local server does below HTTP, where a Web framework has no say: where a client connects from, the bodies a
// handler left unread, and the requests Node cannot parse. Vercel's edge does each of these in front of a deployment.

/** Longest a client may take to finish sending a body the handler did not read. */
const DRAIN_DEADLINE_MS = 10_000

/** Requests whose unread body is being drained (each once). */
const draining = new WeakSet<IncomingMessage>()

/**
 * Reads and drops the rest of a request body, up to 1 MB and 10 s; past either the connection is closed. `done` runs
 * once the body has been read to its end. Called twice for one request, the second call only adds its `done`.
 */
function drainBody(req: IncomingMessage, done?: () => void): void {
  if (done) req.once('end', done)
  if (draining.has(req)) return
  draining.add(req)
  let size = 0
  const close = () => req.socket.destroy()
  const timer = setTimeout(close, DRAIN_DEADLINE_MS)
  timer.unref()
  req.on('data', (chunk: Buffer) => {
    size += chunk.length
    if (size > DISCARD_LIMIT_BYTES) close()
  })
  req.once('end', () => clearTimeout(timer))
  req.once('error', () => clearTimeout(timer))
  req.resume()
}

/**
 * Node closes a connection as soon as the answer to a `Connection: close` request is written, whether or not the
 * client is still sending its body; closing with unread bytes resets the connection, and the client, mid-upload,
 * sees the reset instead of its answer. Until such a body is drained (within {@link drainBody}'s bounds), the close
 * waits.
 */
function closeAfterBody(req: IncomingMessage): void {
  const socket = req.socket as Socket & { destroySoon?: () => void }
  const destroySoon = socket.destroySoon
  if (typeof destroySoon !== 'function') return
  socket.destroySoon = function deferredDestroySoon(this: Socket) {
    socket.destroySoon = destroySoon
    if (req.readableEnded || req.destroyed) return destroySoon.call(socket)
    drainBody(req, () => destroySoon.call(socket))
  }
}

/**
 * A body the handler answered without reading (a 405, a preflight, a refusal) is read and dropped, up to 1 MB, so the
 * client gets its answer on a live connection instead of a reset.
 */
export function drainUnreadBody(req: IncomingMessage, res: ServerResponse): void {
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return
  closeAfterBody(req)
  res.once('finish', () => {
    if (!req.readableEnded) drainBody(req)
  })
}

/** Headers a client may claim about where it connects from; without a trusted proxy none is believed. */
const CLIENT_CLAIMED_HEADERS = /^x-(real-ip|forwarded-[a-z]+)$/i
/** The same behind trusted proxies, which set `X-Forwarded-Proto` and `-Host` themselves. */
const PROXY_SET_HEADERS = /^x-(real-ip|forwarded-for)$/i

/**
 * As Vercel's edge does, gives the request `X-Real-IP`: the connection's address, or with `trustProxy` hops the
 * `trustProxy`th `X-Forwarded-For` entry from the right. Without a trusted proxy no `X-Forwarded-*` of the client's is
 * believed. Most requests carry none of these headers, and are left as they came but for the one header added.
 */
export function setClientAddress(req: IncomingMessage, trustProxy: number): void {
  const entries = trustProxy > 0 ? String(req.headers['x-forwarded-for'] ?? '').split(',') : []
  const address = entries[entries.length - trustProxy]?.trim() || req.socket.remoteAddress || 'unknown'
  const dropped = trustProxy > 0 ? PROXY_SET_HEADERS : CLIENT_CLAIMED_HEADERS
  const raw = req.rawHeaders
  let claims = false
  for (let i = 0; i < raw.length && !claims; i += 2) claims = (raw[i]!.charCodeAt(0) | 32) === 120 && dropped.test(raw[i]!) // x…
  if (claims) {
    const kept: string[] = []
    for (let i = 0; i < raw.length; i += 2) if (!dropped.test(raw[i]!)) kept.push(raw[i]!, raw[i + 1]!)
    req.rawHeaders = kept
    for (const name of Object.keys(req.headers)) if (dropped.test(name)) delete req.headers[name]
  }
  req.rawHeaders.push('x-real-ip', address)
  req.headers['x-real-ip'] = address
}

/**
 * A request Node cannot parse (an unknown method, a malformed header) or that arrives too slowly still gets a JSON
 * answer, then the connection closes after the client's bytes are read, not reset under them. Node's parser goes on
 * reading what the client sends after the bad request, and reports each later chunk as an error again: the answered
 * socket is left to finish, or to its deadline.
 */
export function answerClientErrors(server: Server): void {
  const answered = new WeakSet<Socket>()
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (answered.has(socket) && error.code !== 'ECONNRESET') return
    if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy()
    answered.add(socket)
    socket.resume()
    setTimeout(() => socket.destroy(), DRAIN_DEADLINE_MS).unref()
    // Bytes that follow a request already being answered (a body sent without framing): that answer is the client's,
    // and a second one would reach it unasked. As Node's own handler does, the connection closes after that answer.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
    if (inFlight?.headersSent) {
      if (inFlight.writableFinished) socket.end()
      else inFlight.once('finish', () => socket.end())
      return
    }
    const late = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
    const body = JSON.stringify(
      late
        ? { error: 'The request took too long to arrive and was not processed.', code: 'REQUEST_TIMEOUT' }
        : { error: 'The request is not valid HTTP and was not processed.', code: 'MALFORMED_REQUEST' },
    )
    const status = late ? '408 Request Timeout' : '400 Bad Request'
    socket.end(
      `HTTP/1.1 ${status}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    )
  })
}

/**
 * A `ServerResponse` that sends vercel.json's site-wide headers with every answer; a header the handler sets itself
 * wins. They join the record the answer's headers are written from, so Node keeps its fast path (headers set one by
 * one beforehand would make it copy and check every header of every answer again).
 */
export function responseWithSiteHeaders(siteHeaders: Readonly<Record<string, string>>): typeof ServerResponse {
  const names = Object.keys(siteHeaders)
  if (names.length === 0) return ServerResponse
  const values = names.map((name) => siteHeaders[name]!)
  // The site headers a name of each length could be (in any letter case): most names are no site header's length.
  const byLength: number[][] = []
  for (const [index, name] of names.entries()) {
    byLength[name.length] ??= []
    byLength[name.length]!.push(index)
  }
  class SiteHeadersResponse extends ServerResponse {
    #oneByOne = false

    override setHeader(name: string, value: number | string | readonly string[]): this {
      this.#oneByOne = true
      return super.setHeader(name, value)
    }

    override writeHead(
      statusCode: number,
      reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
      headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
    ): this {
      const hasReason = typeof reasonOrHeaders === 'string'
      const given = hasReason ? headers : reasonOrHeaders
      let all: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined = given
      if (this.#oneByOne || given === undefined || Array.isArray(given)) {
        // Headers set one by one (or a raw list): Node merges them with these.
        for (const name of names) if (!this.hasHeader(name)) super.setHeader(name, siteHeaders[name]!)
      } else {
        // One flat list, [name, value, name, value, …], which Node writes as it is: the record's headers, then the
        // site's that the record does not name.
        const list: OutgoingHttpHeader[] = []
        let named = 0
        for (const key in given) {
          const value = given[key]
          if (value === undefined) continue
          const candidates = byLength[key.length]
          if (candidates)
            for (const index of candidates) if (key === names[index] || key.toLowerCase() === names[index]) named |= 1 << index
          list.push(key, value)
        }
        for (let index = 0; index < names.length; index++) if ((named & (1 << index)) === 0) list.push(names[index]!, values[index]!)
        all = list
      }
      return hasReason ? super.writeHead(statusCode, reasonOrHeaders, all) : super.writeHead(statusCode, all)
    }
  }
  return SiteHeadersResponse as typeof ServerResponse
}
