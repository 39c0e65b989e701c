import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { TYPESCRIPT_ARGS } from '../tests/support/npmStart.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const RUNS = 5

/** Import time of one handler module in a fresh Node process (after a warm-up run). */
function importMs(file: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(`./api/${file}`)}); process.stdout.write(String(performance.now() - t))`
  const out = execFileSync(process.execPath, [...TYPESCRIPT_ARGS, '--input-type=module', '-e', script], {
    cwd: ROOT,
    // Cold as a new function instance is: without the compile cache the npm scripts keep (dev/typeScriptImports.mjs).
    env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  return Number(out)
}

/** The cold-start benchmark: how long each handler module takes to import, median of 5 fresh processes. */
export async function benchColdStart(): Promise<Record<string, number | string>> {
  const results: Record<string, number | string> = {}
  const medians: Record<string, number> = {}
  for (const file of readdirSync(`${ROOT}/api`)
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    importMs(file) // warm the disk cache: the timed runs measure loading, not the first read
    const runs = Array.from({ length: RUNS }, () => importMs(file)).sort((a, b) => a - b)
    medians[file] = runs[Math.floor(RUNS / 2)]!
    results[`import api/${file} ms (median of ${RUNS})${file === 'b20-skill.ts' ? ' (goal <= 300)' : ''}`] = Math.round(medians[file]!)
  }
  const deploy = medians['b20-skill.ts']
  for (const read of ['control-room.ts', 'token-search.ts']) {
    if (deploy && medians[read]) results[`${read} ÷ b20-skill.ts import time`] = Math.round((medians[read]! / deploy) * 100) / 100
  }
  return results
}
