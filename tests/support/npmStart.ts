import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The Node arguments every npm script runs TypeScript with (package.json): Node's type stripping and one import rule. */
export const TYPESCRIPT_ARGS = ['--import', fileURLToPath(new URL('../../dev/typeScriptImports.mjs', import.meta.url))]

/** `npm start` (dev/server.ts) in its own process, as a user runs it. */
export type NpmStart = {
  /** `http://127.0.0.1:<port>` */
  url: string
  /** The first line it printed. */
  firstLine: string
  /** Every line it wrote to stdout and stderr after the first. */
  lines: string[]
  /** Its process id (benchmarks read its memory). */
  pid: number
  stop(): Promise<void>
}

/** Environment variables that would point a child at a developer's own Redis or the live GeckoTerminal; cleared unless a test sets them. */
const STORE_VARIABLES = {
  UPSTASH_REDIS_REST_URL: '',
  UPSTASH_REDIS_REST_TOKEN: '',
  KV_REST_API_URL: '',
  KV_REST_API_TOKEN: '',
  GECKOTERMINAL_BASE_URL: '',
  // The in-process tick would add upstream and store calls that tests count; a test that wants it sets an interval.
  TICK_INTERVAL_SECONDS: '0',
}

/** Starts `npm start` on a free port with `env` over this process's environment; resolves once it listens. */
export async function startNpmStart(env: Record<string, string>): Promise<NpmStart> {
  const child: ChildProcess = spawn(process.execPath, [...TYPESCRIPT_ARGS, 'dev/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...STORE_VARIABLES, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line))
  const stdout = createInterface({ input: child.stdout! })
  const exited = once(child, 'exit')
  const [firstLine] = (await Promise.race([once(stdout, 'line'), exited.then(() => [''])])) as [string]
  const match = /listening on (http:\/\/\S+)/.exec(firstLine)
  if (!match) {
    child.kill('SIGKILL')
    throw new Error(`npm start did not start: ${firstLine} ${lines.join('\n')}`)
  }
  stdout.on('line', (line) => lines.push(line))
  return {
    url: match[1]!,
    firstLine,
    lines,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await exited
      }
    },
  }
}
