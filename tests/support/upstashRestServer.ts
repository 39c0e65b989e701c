import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { openRespConnection, type RespConnection, RespErrorReply, type RespReply, RespStatus } from './resp.js'

/**
 * An Upstash-REST-compatible front for a real redis-server, so `@upstash/redis` (and `@upstash/ratelimit`) run
 * unmodified against it: `POST /` one command, `/pipeline` several, `/multi-exec` several atomically; Bearer auth;
 * `Upstash-Encoding: base64` honoured; the Upstash-only `allow-key-locking` script flag stripped; and
 * `POST /subscribe/<channel>` answered as Server-Sent Events over a redis connection of its own, as `@upstash/redis`'s
 * `subscribe` reads them (`data: subscribe,<channel>,<count>`, then `data: message,<channel>,<message>`, the message as
 * published: the library decodes no base64 there). PUBLISH is an ordinary command.
 */
export type UpstashRestServer = {
  url: string
  token: string
  /** Commands received so far (name only, upper-case), for assertions. */
  commands: string[]
  /** The same commands with their arguments as received (a script's keys tell which one ran). */
  calls: string[][]
  /** Makes every request fail at the network level (the socket is destroyed) until set back to false. */
  setUnreachable(unreachable: boolean): void
  /** Subscriptions being served now (their event streams open). */
  readonly subscriptions: number
  /** Ends every open subscription's event stream, as a server that lets them go does; the client is not told why. */
  dropSubscriptions(): void
  close(): Promise<void>
}

/** Parameters of {@link startUpstashRestServer}. */
export type StartUpstashRestServerParameters = { redisSocket: string; token?: string }

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex')

/** Drops the Upstash-only shebang flags that stock Redis rejects (`ERR Unexpected flag in script shebang`). */
export function stripUpstashScriptFlags(script: string): string {
  return script.replace(/^#!lua[^\n]*\n/, '#!lua\n')
}

/** Starts the server on a free loopback port. */
export async function startUpstashRestServer(parameters: StartUpstashRestServerParameters): Promise<UpstashRestServer> {
  const { redisSocket, token = 'test-upstash-token-0123456789' } = parameters
  const idle: RespConnection[] = []
  const scriptShas = new Map<string, string>()
  const commands: string[] = []
  const calls: string[][] = []
  let unreachable = false
  const subscriptions = new Set<ServerResponse>()

  const take = async () => {
    for (let c = idle.pop(); c; c = idle.pop()) if (!c.closed) return c
    return openRespConnection(redisSocket)
  }

  const run = async (connection: RespConnection, raw: unknown[]): Promise<RespReply> => {
    const args = raw.map((a) => (typeof a === 'string' ? a : JSON.stringify(a)))
    const name = (args[0] ?? '').toUpperCase()
    commands.push(name)
    calls.push([name, ...args.slice(1)])
    if (name === 'EVAL' && args[1]) {
      // Upstash keeps a script under its own text's SHA-1: a later EVALSHA of that hash finds the stripped one.
      const stripped = stripUpstashScriptFlags(args[1])
      if (stripped !== args[1]) scriptShas.set(sha1(args[1]), sha1(stripped))
      args[1] = stripped
    }
    if (name === 'EVALSHA' && args[1]) args[1] = scriptShas.get(args[1]) ?? args[1]
    if (name === 'SCRIPT' && args[1]?.toUpperCase() === 'LOAD' && args[2]) {
      const original = args[2]
      const loaded = await connection.send(['SCRIPT', 'LOAD', stripUpstashScriptFlags(original)])
      if (typeof loaded !== 'string') return loaded
      scriptShas.set(sha1(original), loaded)
      return sha1(original)
    }
    return connection.send(args)
  }

  const encode = (reply: RespReply, base64: boolean): unknown => {
    if (reply instanceof RespStatus) {
      const status = String(reply)
      return !base64 || status === 'OK' ? status : Buffer.from(status, 'utf8').toString('base64')
    }
    if (typeof reply === 'string') return base64 ? Buffer.from(reply, 'utf8').toString('base64') : reply
    if (Array.isArray(reply)) return reply.map((r) => encode(r, base64))
    return reply
  }
  const entry = (reply: RespReply, base64: boolean) =>
    reply instanceof RespErrorReply ? { error: reply.message } : { result: encode(reply, base64) }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (unreachable) return void res.destroy()
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: 'Unauthorized' })
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    let body: unknown
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      return send(400, { error: 'ERR failed to parse command' })
    }
    const base64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64'
    const path = (req.url ?? '/').split('?')[0]!
    if (path.startsWith('/subscribe/')) return subscribe(decodeURIComponent(path.slice('/subscribe/'.length)), res)
    const connection = await take()
    try {
      if (path === '/pipeline' || path === '/multi-exec') {
        if (!Array.isArray(body) || !body.every(Array.isArray)) return send(400, { error: 'ERR expected an array of commands' })
        const list = body as unknown[][]
        if (path === '/pipeline') {
          const replies: unknown[] = []
          for (const command of list) replies.push(entry(await run(connection, command), base64))
          return send(200, replies)
        }
        await connection.send(['MULTI'])
        const queued: RespReply[] = []
        for (const command of list) queued.push(await run(connection, command))
        const failed = queued.find((q) => q instanceof RespErrorReply)
        if (failed) {
          await connection.send(['DISCARD'])
          return send(400, { error: (failed as RespErrorReply).message })
        }
        const results = await connection.send(['EXEC'])
        if (!Array.isArray(results)) return send(400, { error: 'ERR transaction aborted' })
        return send(
          200,
          results.map((r) => entry(r, base64)),
        )
      }
      if (!Array.isArray(body)) return send(400, { error: 'ERR expected a command array' })
      const reply = await run(connection, body)
      if (reply instanceof RespErrorReply) return send(400, { error: reply.message })
      return send(200, { result: encode(reply, base64) })
    } finally {
      if (!connection.closed) idle.push(connection)
    }
  }

  /** One subscription: a redis connection in subscribed mode, its pushes written as events until either side ends. */
  const subscribe = async (channel: string, res: ServerResponse) => {
    commands.push('SUBSCRIBE')
    calls.push(['SUBSCRIBE', channel])
    const event = (line: string) => {
      if (!res.writableEnded) res.write(`data: ${line}\n\n`)
    }
    const connection = await openRespConnection(redisSocket, {
      onPush: (reply) => {
        if (Array.isArray(reply) && reply[0] === 'message') event(`message,${String(reply[1])},${String(reply[2])}`)
      },
      onClose: () => res.end(),
    })
    const reply = await connection.send(['SUBSCRIBE', channel])
    if (!Array.isArray(reply)) {
      connection.close()
      res.writeHead(400, { 'content-type': 'application/json' })
      return void res.end(JSON.stringify({ error: reply instanceof RespErrorReply ? reply.message : 'ERR subscribe failed' }))
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
    event(`subscribe,${channel},${String(reply[2])}`)
    subscriptions.add(res)
    res.on('close', () => {
      subscriptions.delete(res)
      connection.close()
    })
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: 'ERR redis unavailable' }))
    })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    commands,
    calls,
    setUnreachable: (value) => {
      unreachable = value
    },
    get subscriptions() {
      return subscriptions.size
    },
    dropSubscriptions: () => {
      for (const res of subscriptions) res.end()
    },
    close: () =>
      new Promise<void>((ok) => {
        for (const c of idle.splice(0)) c.close()
        server.close(() => ok())
        server.closeAllConnections()
      }),
  }
}
