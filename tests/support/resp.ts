import { connect, type Socket } from 'node:net'

/** A decoded RESP2 reply. */
export type RespReply = string | number | null | RespReply[] | RespErrorReply

/** An error reply (`-ERR ...`). */
export class RespErrorReply {
  readonly message: string
  constructor(message: string) {
    this.message = message
  }
}

/** A status reply (`+OK`), kept apart from bulk strings so encodings can treat it differently. */
export class RespStatus extends String {}

function encodeCommand(args: readonly string[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)]
  for (const arg of args) {
    const bytes = Buffer.from(arg, 'utf8')
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'))
  }
  return Buffer.concat(parts)
}

/** Parses one reply from `buffer` at `offset`; returns it with the next offset, or null when incomplete. */
function parseReply(buffer: Buffer, offset: number): { reply: RespReply; next: number } | null {
  const lineEnd = buffer.indexOf('\r\n', offset)
  if (lineEnd === -1) return null
  const type = String.fromCharCode(buffer[offset]!)
  const line = buffer.toString('utf8', offset + 1, lineEnd)
  const after = lineEnd + 2
  switch (type) {
    case '+':
      return { reply: new RespStatus(line) as unknown as string, next: after }
    case '-':
      return { reply: new RespErrorReply(line), next: after }
    case ':':
      return { reply: Number(line), next: after }
    case '$': {
      const length = Number(line)
      if (length === -1) return { reply: null, next: after }
      if (buffer.length < after + length + 2) return null
      return { reply: buffer.toString('utf8', after, after + length), next: after + length + 2 }
    }
    case '*': {
      const count = Number(line)
      if (count === -1) return { reply: null, next: after }
      const items: RespReply[] = []
      let cursor = after
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, cursor)
        if (!item) return null
        items.push(item.reply)
        cursor = item.next
      }
      return { reply: items, next: cursor }
    }
    default:
      throw new Error(`unexpected RESP type ${type}`)
  }
}

/** One connection to redis-server that sends commands in order and resolves their replies in order. */
export type RespConnection = { send(args: readonly string[]): Promise<RespReply>; close(): void; readonly closed: boolean }

/**
 * What a connection in subscribed mode hears besides its replies: `onPush` gets each reply no command waits for (a
 * `message` push), `onClose` the connection's end.
 */
export type RespConnectionOptions = { onPush?: (reply: RespReply) => void; onClose?: () => void }

/** Opens a RESP connection to a unix socket path or a `host:port`. */
export function openRespConnection(target: string, options: RespConnectionOptions = {}): Promise<RespConnection> {
  return new Promise((resolveOpen, rejectOpen) => {
    const [host, port] = target.includes('/') ? [undefined, undefined] : target.split(':')
    const socket: Socket = host ? connect(Number(port), host) : connect(target)
    let buffer = Buffer.alloc(0)
    const waiting: { resolve: (r: RespReply) => void; reject: (e: Error) => void }[] = []
    let closed = false
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk])
      for (;;) {
        const parsed = parseReply(buffer, 0)
        if (!parsed) break
        buffer = buffer.subarray(parsed.next)
        const waiter = waiting.shift()
        if (waiter) waiter.resolve(parsed.reply)
        else options.onPush?.(parsed.reply)
      }
    })
    const fail = (error: Error) => {
      closed = true
      for (const w of waiting.splice(0)) w.reject(error)
    }
    socket.on('error', (error) => {
      fail(error)
      rejectOpen(error)
    })
    socket.on('close', () => {
      fail(new Error('redis connection closed'))
      options.onClose?.()
    })
    socket.once('connect', () =>
      resolveOpen({
        send: (args) =>
          new Promise((resolve, reject) => {
            if (closed) return reject(new Error('redis connection closed'))
            waiting.push({ resolve, reject })
            socket.write(encodeCommand(args))
          }),
        close: () => {
          closed = true
          socket.destroy()
        },
        get closed() {
          return closed
        },
      }),
    )
  })
}
