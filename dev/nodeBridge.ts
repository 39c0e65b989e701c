import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { rawBodyOf } from '../lib/http.js'

/** A Web handler as Vercel runs it: a plain Request in, a Response out. */
export type WebHandler = (request: Request) => Response | Promise<Response>

/** Turns Node's request into the Web `Request` a Vercel function receives. */
export function toWebRequest(req: IncomingMessage): Request {
  const headers = new Headers()
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!)
  const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`
  const method = req.method ?? 'GET'
  const hasBody = method !== 'GET' && method !== 'HEAD'
  return new Request(url, {
    method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    // Node's fetch needs this for a streamed request body.
    ...(hasBody ? { duplex: 'half' } : {}),
  } as RequestInit)
}

/** Writes a Web `Response` to Node's response. */
export async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {}
  response.headers.forEach((value, key) => {
    headers[key] = value
  })
  res.writeHead(response.status, headers)
  if (!response.body) return void res.end()
  const raw = rawBodyOf(response)
  if (raw && !response.bodyUsed) return void res.end(raw)
  // Chunks go out as they come: no whole-body copy, and streamed bodies work too.
  const reader = response.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (!res.write(value)) await new Promise<void>((ok) => res.once('drain', () => ok()))
  }
  res.end()
}
