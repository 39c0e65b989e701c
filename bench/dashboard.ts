import { execFile, execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { machineCacheDir, partialInstallDir } from '../dev/machineCache.mjs'
import { CHROMIUM_PATH } from '../tests/support/browser.js'
import { TYPESCRIPT_ARGS } from '../tests/support/npmStart.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const RUNS = 3
/** Lighthouse 13 needs Node >= 22.19: it runs on the runner's Node 24 (dev/onSupportedNode.mjs --node24), the version Vercel builds with. */
const LIGHTHOUSE_VERSION = '13.5.0'
const PREFIX = join(machineCacheDir(ROOT), `lighthouse-${LIGHTHOUSE_VERSION}`)
const CLI = join(PREFIX, 'node_modules', 'lighthouse', 'cli', 'index.js')
/** The flags this closed network needs (see tests/support/browser.ts). */
const CHROME_FLAGS =
  '--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync --no-first-run --disable-quic'

/** Installs the pinned Lighthouse once per machine from the npm registry (not a devDependency: it refuses Node 20). */
function ensureLighthouse(): void {
  if (existsSync(CLI)) return
  console.log(`installing lighthouse@${LIGHTHOUSE_VERSION} into ${PREFIX} (npm registry)`)
  // Into a folder of its own, then renamed into place, as the runner installs Node 24: an interrupted install is never
  // taken for a whole one, and the runner removes what it left.
  const partial = partialInstallDir(PREFIX)
  try {
    execFileSync(
      'npm',
      ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', partial, `lighthouse@${LIGHTHOUSE_VERSION}`],
      { stdio: 'inherit' },
    )
    if (!existsSync(CLI)) renameSync(partial, PREFIX)
  } catch (error) {
    // Another bench renamed its own install into place first: that one is whole.
    if (!existsSync(CLI)) throw error
  } finally {
    rmSync(partial, { recursive: true, force: true })
  }
}

/** `npm run sandbox` in its own process on a free port; resolves with its URL once it is ready (history backfilled). */
async function startSandbox(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [...TYPESCRIPT_ARGS, 'dev/sandbox.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stderr.resume()
  const lines = createInterface({ input: child.stdout })
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the sandbox exited (${code}) before it was ready`)))
    lines.on('line', (line) => {
      const ready = /^sandbox ready at (\S+)/.exec(line)
      if (ready) resolve(ready[1]!)
    })
  })
  return { url, stop: () => void child.kill('SIGTERM') }
}

type LighthouseScores = {
  performance: number
  accessibility: number
  bestPractices: number
  cls: number
  lcpMs: number
  tbtMs: number
  fcpMs: number
}

/** One Lighthouse run, mobile preset (its default: Moto G Power viewport, 4× CPU slowdown, simulated slow 4G). */
async function lighthouse(url: string): Promise<LighthouseScores> {
  const profile = mkdtempSync(join(tmpdir(), 'lighthouse-'))
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(ROOT, 'dev', 'onSupportedNode.mjs'),
        '--node24',
        'node',
        CLI,
        url,
        '--quiet',
        '--output=json',
        '--output-path=stdout',
        '--only-categories=performance,accessibility,best-practices',
        `--chrome-flags=${CHROME_FLAGS} --user-data-dir=${profile}`,
      ],
      { env: { ...process.env, CHROME_PATH: CHROMIUM_PATH }, maxBuffer: 64 * 1024 * 1024 },
    )
    const report = JSON.parse(stdout) as { categories: Record<string, { score: number }>; audits: Record<string, { numericValue: number }> }
    const score = (id: string) => Math.round(report.categories[id]!.score * 100)
    return {
      performance: score('performance'),
      accessibility: score('accessibility'),
      bestPractices: score('best-practices'),
      cls: Math.round(report.audits['cumulative-layout-shift']!.numericValue * 1000) / 1000,
      lcpMs: Math.round(report.audits['largest-contentful-paint']!.numericValue),
      tbtMs: Math.round(report.audits['total-blocking-time']!.numericValue),
      fcpMs: Math.round(report.audits['first-contentful-paint']!.numericValue),
    }
  } finally {
    rmSync(profile, { recursive: true, force: true })
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** The dashboard benchmark: Lighthouse (mobile) on the sandbox page, three runs, medians against the goals. */
export async function benchDashboard(): Promise<Record<string, number | string>> {
  ensureLighthouse()
  const sandbox = await startSandbox()
  try {
    await lighthouse(sandbox.url) // warm-up: the caches fill
    const runs: LighthouseScores[] = []
    for (let i = 0; i < RUNS; i++) runs.push(await lighthouse(sandbox.url))
    const all = (key: keyof LighthouseScores) => runs.map((r) => r[key]).join(' / ')
    const mid = (key: keyof LighthouseScores) => median(runs.map((r) => r[key]))
    return {
      [`Lighthouse ${LIGHTHOUSE_VERSION} mobile on the sandbox page, runs: performance`]: all('performance'),
      'runs: first / largest contentful paint ms': runs.map((r) => `${r.fcpMs} / ${r.lcpMs}`).join(' ; '),
      'runs: total blocking time ms': all('tbtMs'),
      'runs: cumulative layout shift': all('cls'),
      [`performance, median of ${RUNS} (goal >= 95)`]: mid('performance'),
      'accessibility, median (goal 100)': mid('accessibility'),
      'best practices, median (goal 100)': mid('bestPractices'),
      'cumulative layout shift, median (goal < 0.1)': mid('cls'),
    }
  } finally {
    sandbox.stop()
  }
}
