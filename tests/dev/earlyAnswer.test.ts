import { Agent, request as httpRequest } from 'node:http'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'

const SIZES = { '1 KB': 1024, '70 KB': 70 * 1024, '300 KB': 300 * 1024, '1 MB': 1024 * 1024 }
const TRIES = 6

type Answer = { status: number; code: string } | { error: string }

/** One POST over Node's http client with the given agent; the answer, or the socket error the client saw. */
function post(url: string, agent: Agent, headers: Record<string, string>, body: Buffer, chunked = false): Promise<Answer> {
  return new Promise((resolve) => {
    const length: Record<string, string> = chunked ? {} : { 'content-length': String(body.length) }
    const req = httpRequest(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', ...length, ...headers } },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, code: (JSON.parse(text) as { code: string }).code }))
        res.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }))
      },
    )
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }))
    req.setTimeout(5000, () => req.destroy(Object.assign(new Error('no answer'), { code: 'TIMEOUT' })))
    if (chunked) for (let at = 0; at < body.length; at += 16 * 1024) req.write(body.subarray(at, at + 16 * 1024))
    req.end(chunked ? undefined : body)
  })
}

/**
 * A raw request whose body is still on its way when the answer comes: the head and a first chunk, then, once the answer
 * is in, the rest in small chunks. Answers what the client read and whether its connection ended cleanly or was reset.
 */
function uploadAfterAnswer(url: string, head: string, size: number): Promise<{ answer: string; error: string | null }> {
  const { hostname, port } = new URL(url)
  const chunk = Buffer.alloc(16 * 1024, 0x20)
  return new Promise((resolve) => {
    // Like Node's HTTP client, it goes on sending its body after the server's FIN (half-open), until it has sent it all.
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true })
    let answer = ''
    let error: string | null = null
    let sending = false
    socket.setEncoding('utf8')
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message))
    socket.on('close', () => resolve({ answer, error }))
    socket.on('data', async (text: string) => {
      answer += text
      if (sending || !answer.includes('\r\n\r\n')) return
      sending = true
      for (let sent = chunk.length; sent < size && !socket.destroyed; sent += chunk.length) {
        await new Promise((r) => setTimeout(r, 5))
        socket.write(chunk.subarray(0, Math.min(chunk.length, size - sent)))
      }
      socket.end()
    })
    socket.write(`${head}content-length: ${size}\r\n\r\n`)
    socket.write(chunk)
  })
}

/** `npm start` answering a POST before reading its body (403 without a key, 413 when oversized): never a reset. */
describe('early answers on npm start', () => {
  let server: NpmStart
  let url: string
  const agentKey = generateAgentKey()

  beforeAll(async () => {
    server = await startNpmStart({ DEPLOY_ALLOWLIST: agentKey.digest, DEXSCREENER_BASE_URL: 'http://127.0.0.1:9' })
    url = `${server.url}/api/b20-skill`
  })
  afterAll(() => server.stop())

  for (const keepAlive of [true, false]) {
    for (const [label, size] of Object.entries(SIZES)) {
      it(`${label} bodies, ${keepAlive ? 'keep-alive' : 'fresh'} connections: every client gets its 403, 413 or 400 (declared length or chunked), never a reset`, async () => {
        const agent = new Agent({ keepAlive, maxSockets: 1 })
        const body = Buffer.alloc(size, 0x20)
        const answers: Answer[] = []
        for (let i = 0; i < TRIES; i++) {
          answers.push(await post(url, agent, {}, body))
          answers.push(await post(url, agent, { 'x-service-key': agentKey.key }, body))
          answers.push(await post(url, agent, { 'x-service-key': agentKey.key }, body, true))
        }
        agent.destroy()
        const expected = size > 16 * 1024 ? { status: 413, code: 'BODY_TOO_LARGE' } : { status: 400, code: 'INVALID_JSON' }
        expect(answers).toEqual(Array.from({ length: TRIES }, () => [{ status: 403, code: 'FORBIDDEN' }, expected, expected]).flat())
      })
    }
  }

  it('lets a client finish sending the body it was answered before, on a connection to be closed: no reset', async () => {
    const size = 512 * 1024
    // Refused before its body is read (no key), with Connection: close: Node would close right after the answer.
    const refused = await uploadAfterAnswer(
      url,
      'POST /api/b20-skill HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\n',
      size,
    )
    expect(refused.answer).toMatch(/^HTTP\/1\.1 403 /)
    expect(refused.error).toBeNull()
    // Not HTTP at all (an unknown method): one 400, then the rest of what it sends is read, not reset.
    const malformed = await uploadAfterAnswer(url, 'BREW /api/control-room HTTP/1.1\r\nhost: x\r\n', size)
    expect(malformed.answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*"code":"MALFORMED_REQUEST"/)
    expect(malformed.answer.match(/HTTP\/1\.1/g)).toHaveLength(1)
    expect(malformed.error).toBeNull()
  })

  it('answers the same through fetch on one keep-alive pool', async () => {
    for (const size of Object.values(SIZES)) {
      for (let i = 0; i < 3; i++) {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: Buffer.alloc(size, 0x20),
        })
        expect(response.status).toBe(403)
        await response.arrayBuffer()
      }
    }
  })
})
