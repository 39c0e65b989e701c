import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openRespConnection } from './resp.js'

/** A private redis-server listening on a unix socket only. */
export type RedisServer = {
  socket: string
  /** Stops it as a crash would (the socket goes away; nothing is kept). */
  pause(): Promise<void>
  /** Starts it again on the same socket, empty, as after a restart without persistence. */
  resume(): Promise<void>
  stop(): Promise<void>
}

/** Starts a throw-away `redis-server` (Debian package) that keeps nothing on disk. */
export async function startRedisServer(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'redis-test-'))
  const socket = join(dir, 'redis.sock')
  let running = await spawnRedis(dir, socket)
  return {
    socket,
    pause: async () => {
      await running.stop()
    },
    resume: async () => {
      running = await spawnRedis(dir, socket)
    },
    stop: async () => {
      await running.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function spawnRedis(dir: string, socket: string): Promise<{ stop(): Promise<void> }> {
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
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGKILL')
      await exited
    },
  }
}
