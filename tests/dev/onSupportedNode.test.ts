import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { describe, expect, it } from 'vitest'
import { TYPESCRIPT_ARGS } from '../support/npmStart.js'

const ROOT = new URL('../..', import.meta.url).pathname
/** Environment variables that would point a command at a developer's own store; cleared for these runs. */
const NO_STORE = { UPSTASH_REDIS_REST_URL: '', UPSTASH_REDIS_REST_TOKEN: '', KV_REST_API_URL: '', KV_REST_API_TOKEN: '' }

/** A finished command: its exit code and everything it printed. */
type Finished = { code: number | null; stdout: string; stderr: string }

/** Runs `command args` in the project as a user would, to its end. */
async function run(command: string, args: string[]): Promise<Finished> {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...NO_STORE }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk) => (stdout += chunk))
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const [code] = (await once(child, 'exit')) as [number | null]
  return { code, stdout, stderr }
}

/** `npm start` on a free port, once it says where it listens. */
async function startNpmStart(): Promise<{ npm: ChildProcess; url: string; lines: string[] }> {
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, ...NO_STORE, PORT: '0', TICK_INTERVAL_SECONDS: '0', GECKOTERMINAL_BASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  createInterface({ input: npm.stderr! }).on('line', (line) => lines.push(line))
  for await (const line of createInterface({ input: npm.stdout! })) {
    lines.push(line)
    const url = /listening on (http:\/\/\S+)/.exec(line)?.[1]
    if (url) return { npm, url, lines }
  }
  throw new Error(`npm start did not start: ${lines.join('\n')}`)
}

/** Every npm script that runs on Node starts through dev/onSupportedNode.mjs, which picks the Node it runs on. */
describe('the runner (dev/onSupportedNode.mjs)', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    it(`stops npm start, server and all, when whoever started it sends ${signal} to npm alone`, async () => {
      const { npm, url } = await startNpmStart()
      try {
        expect((await fetch(`${url}/api/health`)).status).toBe(200)
        npm.kill(signal)
        const [code] = (await once(npm, 'exit')) as [number | null]
        expect(code).toBe(0)
        await expect(fetch(`${url}/api/health`)).rejects.toThrow()
      } finally {
        if (npm.exitCode === null) npm.kill('SIGKILL')
      }
    })

  it('says nothing on a supported Node and runs the command on it', async () => {
    const keygen = await run('npm', ['run', '-s', 'keygen'])
    expect(keygen.code).toBe(0)
    expect(keygen.stdout).toMatch(/agent key[^:]*: bcr_/)
    expect(keygen.stderr).toBe('')
  })

  it('passes the arguments after -- on, and exits with the command’s code', async () => {
    const list = await run('npm', ['run', '-s', 'agents', '--', 'list'])
    expect(list.code).toBe(1)
    expect(list.stderr).toContain('needs the shared store')
    const bare = await run('npm', ['run', '-s', 'agents'])
    expect(bare.code).toBe(1)
    expect(bare.stderr).toContain('usage:')
  })

  it('runs the command on Node 24 from the npm registry with --node24, whatever the Node it was started on', async () => {
    const version = await run(process.execPath, ['dev/onSupportedNode.mjs', '--node24', 'node', '-p', 'process.version'])
    expect({ code: version.code, stdout: version.stdout.trim() }).toEqual({ code: 0, stdout: 'v24.9.0' })
  }, 120_000)

  it('is how every npm script that runs on Node starts, so none can run on a Node the suite does not', () => {
    const { scripts } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }
    // test:steps runs only under the runner (npm test); typecheck, lint and format read the code and never run it.
    const exempt = new Set(['test:steps', 'typecheck', 'lint', 'format'])
    const bypassing = Object.entries(scripts).filter(
      ([name, command]) => !exempt.has(name) && !command.startsWith('exec node dev/onSupportedNode.mjs '),
    )
    expect(bypassing).toEqual([])
  })

  it('runs every script’s TypeScript on Node’s own type stripping, as the tests start it, with code Node can strip', () => {
    const { scripts } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }
    const runningTypeScript = Object.entries(scripts).filter(([, command]) => / \S+\.ts\b/.test(command))
    expect(runningTypeScript.length).toBeGreaterThanOrEqual(8)
    for (const [name, command] of runningTypeScript)
      expect(command, name).toMatch(/^exec node dev\/onSupportedNode\.mjs node --import \.\/dev\/typeScriptImports\.mjs \S+\.ts$/)
    // The tests start npm start, the agents CLI and the sandbox with the same arguments.
    expect(TYPESCRIPT_ARGS).toEqual(['--import', `${ROOT}dev/typeScriptImports.mjs`])
    // Node strips types only from code without TypeScript-only runtime syntax (enums, parameter properties).
    const tsconfig = readFileSync(`${ROOT}tsconfig.json`, 'utf8')
    expect(tsconfig).toMatch(/"erasableSyntaxOnly": true/)
  })
})
