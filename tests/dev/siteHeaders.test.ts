import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer, vercelRouting } from '../../dev/server.js'

/** Writes `bytes` on one connection and reads until the server closes it (or `waitMs` pass): everything it sent. */
function exchange(url: string, bytes: string | Buffer, waitMs = 3000): Promise<{ text: string; closed: boolean }> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    const socket = connect(Number(port), hostname, () => socket.write(bytes))
    const done = (closed: boolean) => {
      clearTimeout(timer)
      socket.destroy()
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closed })
    }
    const timer = setTimeout(() => done(false), waitMs)
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('end', () => done(true))
    socket.on('error', () => done(true))
  })
}

/** The header lines of each answer in `text`, lower-cased names, in order. */
function answers(text: string): { status: number; headers: [string, string][] }[] {
  return [...text.matchAll(/HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n/g)].map((m) => ({
    status: Number(m[1]),
    headers: m[2]!.split('\r\n').map((line) => {
      const at = line.indexOf(':')
      return [line.slice(0, at).toLowerCase(), line.slice(at + 1).trim()] as [string, string]
    }),
  }))
}

const named = (headers: [string, string][], name: string) => headers.filter(([n]) => n === name).map(([, v]) => v)

/** npm start's answers as a deployment's: vercel.json's site-wide headers on every one, once, the handler's own winning. */
describe('vercel.json headers on npm start', () => {
  let server: RunningServer
  let site: Record<string, string>
  beforeAll(async () => {
    const routing = await vercelRouting()
    site = routing.headers
    server = await startServer({
      port: 0,
      ...routing,
      endpoints: {
        plain: {
          fetch: () => new Response('{}', { headers: { 'content-type': 'application/json', 'x-content-type-options': 'nosniff' } }),
        },
        // A handler naming a site header in other letter case overrides it; the answer carries it once.
        framed: { fetch: () => new Response('{}', { headers: { 'X-Frame-Options': 'SAMEORIGIN', 'content-type': 'application/json' } }) },
        fromHeaders: { fetch: () => new Response('{}', { headers: new Headers({ 'referrer-policy': 'same-origin' }) }) },
        later: {
          fetch: async () => {
            // Answers after a turn of the event loop: site headers must reach an answer made later, too.
            await new Promise((resolve) => setImmediate(resolve))
            return new Response(null, { status: 204 })
          },
        },
      },
    })
  })
  afterAll(() => server.close())

  const get = (path: string, extra = '') => exchange(server.url, `GET ${path} HTTP/1.1\r\nHost: x\r\n${extra}Connection: close\r\n\r\n`)

  it('sends every site header exactly once on endpoint answers, static files and 404s', async () => {
    expect(Object.keys(site).length).toBeGreaterThanOrEqual(5)
    for (const path of ['/api/plain', '/api/later', '/', '/api/none', '/nowhere.txt']) {
      const [answer] = answers((await get(path)).text)
      expect(answer, path).toBeDefined()
      for (const [name, value] of Object.entries(site)) expect(named(answer!.headers, name), `${path} ${name}`).toEqual([value])
    }
  })

  it('lets a handler’s own value win, whatever its letter case or header type', async () => {
    const [framed] = answers((await get('/api/framed')).text)
    expect(named(framed!.headers, 'x-frame-options')).toEqual(['SAMEORIGIN'])
    const [fromHeaders] = answers((await get('/api/fromHeaders')).text)
    expect(named(fromHeaders!.headers, 'referrer-policy')).toEqual(['same-origin'])
    expect(named(fromHeaders!.headers, 'x-frame-options')).toEqual([site['x-frame-options']])
  })

  it('keeps them on an answer that closes the connection after a body too large to drain', async () => {
    const head = `POST /api/plain HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`
    const [answer] = answers((await exchange(server.url, head, 500)).text)
    expect(named(answer!.headers, 'connection')).toEqual(['close'])
    for (const [name, value] of Object.entries(site)) expect(named(answer!.headers, name), name).toEqual([value])
  })

  it('answers a GET followed by bytes that are not HTTP once, then closes: no second answer the client did not ask for', async () => {
    const { text, closed } = await exchange(server.url, 'GET /api/plain HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP AT ALL\r\n\r\n')
    expect(answers(text).map((a) => a.status)).toEqual([200])
    expect(closed).toBe(true)
    // Bytes that are not HTTP and follow no request get their own JSON 400.
    const alone = await exchange(server.url, 'NOT HTTP AT ALL\r\n\r\n')
    expect(answers(alone.text).map((a) => a.status)).toEqual([400])
  })
})
