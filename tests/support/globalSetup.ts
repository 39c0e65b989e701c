import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import type {} from 'vitest'
import type { TestProject } from 'vitest/node'
import { startProcessGuard } from './processGuard.js'
import { startRedisServer } from './redisServer.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Unix socket of the redis-server shared by the test run. */
    redisSocket: string
    /** File where each test file records the processes it left running (tests/support/recordLeftProcesses.ts). */
    processRecord: string
  }
}

/**
 * Starts one real redis-server for the whole run (each test file prefixes its keys), and watches the processes the
 * run starts: when the run ends with any still running (an anvil, a server, a browser a test did not stop), it names
 * them and the run fails.
 */
export default async function setup(project: TestProject) {
  const recordDir = mkdtempSync(join(tmpdir(), 'test-processes-'))
  const recordPath = join(recordDir, 'left.jsonl')
  const guard = startProcessGuard({ recordPath })
  const redis = await startRedisServer()
  project.provide('redisSocket', redis.socket)
  project.provide('processRecord', recordPath)
  return async () => {
    await redis.stop()
    const left = await guard.stop()
    rmSync(recordDir, { recursive: true, force: true })
    if (left.length === 0) return
    // An error in a global teardown is only logged by the runner: the exit code is what CI reads.
    process.exitCode = 1
    const list = left.map((p) => `  pid ${p.pid}: ${p.command}${p.file ? ` (left by ${relative(process.cwd(), p.file)})` : ''}`).join('\n')
    throw new Error(`the test run left ${left.length} process${left.length > 1 ? 'es' : ''} running:\n${list}`)
  }
}
