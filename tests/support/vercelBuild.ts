import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { machineCacheDir, partialInstallDir } from '../../dev/machineCache.mjs'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)

/** The Vercel CLI release the build test pins (newer releases do not resolve from this machine's registry). */
export const VERCEL_CLI_VERSION = '59.25.4'

/**
 * The pinned Vercel CLI, installed once per machine from the npm registry (dev/machineCache.mjs) rather than as a
 * devDependency: its optional per-platform packages are partly absent from the registry (no Windows build of this
 * release), and `npm ci` refuses a lock file without them. Answers the path of its entry point.
 */
export async function ensureVercelCli(): Promise<string> {
  const prefix = join(machineCacheDir(ROOT), `vercel-${VERCEL_CLI_VERSION}`)
  const entry = join(prefix, 'node_modules', 'vercel', 'dist', 'index.js')
  if (!existsSync(entry)) {
    // Into a folder of its own, then renamed into place: CI fetches it ahead, beside the suite, and the build test may
    // need it before that fetch is done; each install is then whole, and the second rename keeps the first copy.
    const partial = partialInstallDir(prefix)
    try {
      await run(
        'npm',
        ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', partial, `vercel@${VERCEL_CLI_VERSION}`],
        { maxBuffer: 64 * 1024 * 1024, timeout: 280_000 },
      )
      if (!existsSync(entry)) renameSync(partial, prefix)
    } catch (error) {
      if (!existsSync(entry)) throw error
    } finally {
      rmSync(partial, { recursive: true, force: true })
    }
  }
  return entry
}

/** What `vercel build` produced, in a throw-away copy of the project. */
export type VercelOutput = {
  /** `.vercel/output` of the copy. */
  dir: string
  /** Function name (`control-room`) -> its `.func` directory. */
  functions: Record<string, string>
  /** The parsed `config.json` (Build Output API v3). */
  config: { version: number; routes: Record<string, unknown>[] }
  /** Removes the copy. */
  remove(): void
}

/** Project settings as `vercel pull` would write them for an "Other" project: what makes `vercel build` run offline. */
const PROJECT_JSON = {
  projectId: 'prj_localbuild',
  orgId: 'team_localbuild',
  settings: { framework: null, installCommand: null, buildCommand: null, outputDirectory: null, rootDirectory: null, devCommand: null },
}

/**
 * Runs the official CLI's `vercel build` (the pinned release, see {@link ensureVercelCli}) on a copy of the working tree, with no account,
 * login or network beyond the npm registry: a hand-written `.vercel/project.json` stands in for `vercel pull`, and the
 * copy shares this checkout's `node_modules`. `signal` stops the build (a test that is done no longer needs it).
 */
export async function buildVercelOutput(parameters: { signal?: AbortSignal } = {}): Promise<VercelOutput> {
  const copy = mkdtempSync(join(tmpdir(), 'vercel-build-'))
  const skip = new Set(['node_modules', '.git', '.vercel', '.scratch', '.cache', 'coverage'])
  for (const entry of readdirSync(ROOT)) {
    if (!skip.has(entry)) cpSync(join(ROOT, entry), join(copy, entry), { recursive: true })
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir')
  mkdirSync(join(copy, '.vercel'))
  writeFileSync(join(copy, '.vercel', 'project.json'), JSON.stringify(PROJECT_JSON))
  try {
    await run(process.execPath, [await ensureVercelCli(), 'build', '--yes'], {
      cwd: copy,
      env: {
        ...process.env,
        VERCEL_TELEMETRY_DISABLED: '1',
        // The copy's node_modules is this checkout's, installed by npm ci: without this the Node builder runs npm
        // install into the copy (over the link), fetching every package from the registry again on each build.
        VERCEL_INSTALL_COMPLETED: '1',
        npm_config_prefer_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        FORCE_COLOR: '0',
      },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 280_000,
      ...(parameters.signal ? { signal: parameters.signal } : {}),
    })
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    rmSync(copy, { recursive: true, force: true })
    throw new Error(`vercel build failed:\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`)
  }
  const dir = join(copy, '.vercel', 'output')
  const functionsDir = join(dir, 'functions', 'api')
  // A function in a folder of api/ (api/x402/deploy.ts) is a .func in the same folder: named by its path.
  const functions = Object.fromEntries(
    readdirSync(functionsDir, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.func'))
      .map((name) => [name.replace(/\.func$/, ''), join(functionsDir, name)]),
  )
  return {
    dir,
    functions,
    config: JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as VercelOutput['config'],
    remove: () => rmSync(copy, { recursive: true, force: true }),
  }
}

/** Built functions served over HTTP by one process: one instance of the deployment, and what it wrote to stdout. */
export type BuiltInstance = { url: string; lines: string[]; stop(): Promise<void> }

/**
 * Serves built functions over HTTP from one fresh Node process (one instance), with only a deployment's environment:
 * `routes` maps a path (`/api/x402/deploy`) to its `.func` directory, whose handler it imports from that directory.
 */
export async function serveBuiltFunctions(routes: Record<string, string>, env: Record<string, string>): Promise<BuiltInstance> {
  const child = spawn(process.execPath, [join(ROOT, 'tests', 'support', 'serveBuiltFunctions.mjs'), JSON.stringify(routes)], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', VERCEL: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const lines: string[] = []
  createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line))
  const stdout = createInterface({ input: child.stdout! })
  const [line] = (await Promise.race([once(stdout, 'line'), exited.then(() => [''])])) as [string]
  if (!line) throw new Error(`the built functions did not start: ${lines.join('\n')}`)
  stdout.on('line', (next) => lines.push(next))
  return {
    url: (JSON.parse(line) as { url: string }).url,
    lines,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await exited
      }
    },
  }
}

/** A request to hand a built function, and what it answered. */
export type FunctionCall = { method?: string; path: string; headers?: Record<string, string>; body?: string }
/** The answer of one {@link FunctionCall}. */
export type FunctionAnswer = { status: number; headers: Record<string, string>; body: string }

/**
 * Calls a built function as Vercel's Node runtime does: a fresh Node process whose working directory is the `.func`
 * directory imports the handler named in `.vc-config.json` and hands each call to its `fetch` as a Web `Request`.
 */
export async function invokeBuiltFunction(funcDir: string, calls: FunctionCall[], env: Record<string, string>): Promise<FunctionAnswer[]> {
  const { stdout } = await run(process.execPath, [join(ROOT, 'tests', 'support', 'invokeBuiltFunction.mjs'), JSON.stringify(calls)], {
    cwd: funcDir,
    // Only what a deployment would have: no PATH-found tools, no test runner state, no TypeScript loader.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', VERCEL: '1', ...env },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 60_000,
  })
  return JSON.parse(stdout.slice(stdout.lastIndexOf('\n{"answers"') + 1)).answers as FunctionAnswer[]
}

/** Path of a file relative to the output, for messages. */
export const inOutput = (output: VercelOutput, file: string) => relative(output.dir, file)
