import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../dev/server.js'

/** Sends `head` (and never the rest), then answers what the server wrote before it closed the connection. */
function sendAndWait(url: string, head: string, trickle?: string): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname)
    let answer = ''
    const drip = trickle ? setInterval(() => socket.write(trickle), 200) : undefined
    socket.setEncoding('utf8')
    socket.on('data', (text: string) => (answer += text))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearInterval(drip)
      resolve(answer)
    })
    socket.write(head)
  })
}

/**
 * npm start's deadlines against clients that never finish (slowloris): the headers within `headersTimeoutMs`, the
 * whole request within `requestTimeoutMs`, each answered 408 in JSON and the connection closed. The server under
 * test is `startServer` with short deadlines (npm start's are 20 s and 60 s).
 */
// The cases run at once: each waits out a deadline on a connection of its own (2 s), which one after the other held
// a worker for 6 s.
describe.concurrent('npm start closes requests that never finish arriving', () => {
  let server: RunningServer
  beforeAll(async () => {
    const read = async (request: Request) => new Response(await request.text(), { headers: { 'content-type': 'application/json' } })
    server = await startServer({ port: 0, endpoints: { echo: { fetch: read } }, headersTimeoutMs: 1000, requestTimeoutMs: 2000 })
  })
  afterAll(() => server.close())

  it('answers 408 to headers that stop half-way, and closes', async () => {
    const answer = await sendAndWait(server.url, 'GET /api/echo HTTP/1.1\r\nhost: x\r\n')
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/)
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      error: 'The request took too long to arrive and was not processed.',
      code: 'REQUEST_TIMEOUT',
    })
  })

  it('answers 408 to headers sent a byte at a time past the deadline', async () => {
    const answer = await sendAndWait(server.url, 'GET /api/echo HTTP/1.1\r\n', 'x')
    expect(answer).toMatch(/^HTTP\/1\.1 408 /)
  })

  it('closes a request whose body never finishes, within the request deadline', async () => {
    const answer = await sendAndWait(
      server.url,
      'POST /api/echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{',
      ' ',
    )
    expect(answer).toMatch(/^HTTP\/1\.1 408 /)
  })

  it('still answers a request that arrives in time', async () => {
    const response = await fetch(`${server.url}/api/echo`, { method: 'POST', body: '{"ok":true}' })
    expect(await response.json()).toEqual({ ok: true })
  })
})
