import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openRespConnection } from './resp.js'

/** A private redis-server listening on a unix socket only. */
export type RedisServer = { socket: string; stop(): Promise<void> }

/** Starts a throw-away `redis-server` (Debian package) that keeps nothing on disk. */
export async function startRedisServer(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-test-'))
  const socket = join(dir, 'redis.sock')
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  )
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()))
  child.once('error', () => undefined)
  const deadline = Date.now() + 10_000
  for (;;) {
    try {
      const connection = await openRespConnection(socket)
      await connection.send(['PING'])
      connection.close()
      break
    } catch {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL')
        throw new Error('redis-server did not start (is the Debian package redis-server installed?)')
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  return {
    socket,
    stop: async () => {
      child.kill('SIGTERM')
      await exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
