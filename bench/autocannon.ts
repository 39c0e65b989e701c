import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const run = promisify(execFile)

/** Parameters of {@link measureWithAutocannon}. */
export type MeasureWithAutocannonParameters = {
  url: string
  headers?: Record<string, string>
  connections?: number
  seconds?: number
  /** A process whose resident memory is sampled during the run. */
  watchPid?: number
}

/** What one autocannon run saw. */
export type AutocannonResult = {
  rps: number
  p50Ms: number
  p99Ms: number
  errors: number
  non2xx: number
  /** Answers with a 3xx status (a 304 run's share of 304s shows whether it stayed on one ETag). */
  answers3xx: number
  /** All answers. */
  answers: number
  maxRssMb: number | null
}

/** Resident memory of a process in MB, from /proc. */
export function rssMb(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb ? Number(kb) / 1024 : null
  } catch {
    return null
  }
}

/** Load from a separate process: the autocannon CLI (keep-alive connections), its JSON summary parsed. */
export async function measureWithAutocannon(parameters: MeasureWithAutocannonParameters): Promise<AutocannonResult> {
  const { url, headers = {}, connections = 50, seconds = 5, watchPid } = parameters
  const args = [`${ROOT}node_modules/autocannon/autocannon.js`, '--json', '-c', String(connections), '-d', String(seconds)]
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`)
  let maxRss: number | null = null
  const sampler = watchPid
    ? setInterval(() => {
        const mb = rssMb(watchPid)
        if (mb !== null) maxRss = Math.max(maxRss ?? 0, mb)
      }, 200)
    : undefined
  try {
    const { stdout } = await run(process.execPath, [...args, url], { maxBuffer: 16 * 1024 * 1024 })
    const summary = JSON.parse(stdout) as {
      requests: { average: number }
      latency: { p50: number; p99: number }
      errors: number
      non2xx: number
      '1xx': number
      '2xx': number
      '3xx': number
      '4xx': number
      '5xx': number
    }
    return {
      rps: summary.requests.average,
      p50Ms: summary.latency.p50,
      p99Ms: summary.latency.p99,
      errors: summary.errors,
      non2xx: summary.non2xx,
      answers3xx: summary['3xx'],
      answers: summary['1xx'] + summary['2xx'] + summary['3xx'] + summary['4xx'] + summary['5xx'],
      maxRssMb: maxRss,
    }
  } finally {
    clearInterval(sampler)
  }
}

/** Records the service's 200 and 304 answers at `url` (status, headers, body bytes) for {@link startBareServer}. */
export async function captureAnswers(url: string): Promise<{ etag: string; file: string }> {
  const first = await fetch(url)
  const etag = first.headers.get('etag')!
  const second = await fetch(url, { headers: { 'if-none-match': etag } })
  const wire = (response: Response) =>
    Object.fromEntries(
      [...response.headers].filter(([name]) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)),
    )
  const file = join(mkdtempSync(join(tmpdir(), 'bench-answers-')), 'answers.json')
  writeFileSync(
    file,
    JSON.stringify({
      etag,
      ok: { headers: wire(first), body: Buffer.from(await first.arrayBuffer()).toString('base64') },
      notModified: { headers: wire(second) },
    }),
  )
  return { etag, file }
}

/** A bare node:http server in its own process replaying the answers in `answersFile` (see bareServer.mjs). */
export async function startBareServer(answersFile: string): Promise<{ url: string; pid: number; stop(): void }> {
  const child = spawn(process.execPath, [`${ROOT}bench/bareServer.mjs`, answersFile], { stdio: ['ignore', 'pipe', 'inherit'] })
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string]
  return { url: /listening on (\S+)/.exec(line)![1]!, pid: child.pid!, stop: () => void child.kill('SIGTERM') }
}

/** Median of a list of numbers. */
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
