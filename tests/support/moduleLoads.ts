import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { TYPESCRIPT_ARGS } from './npmStart.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** What a run of {@link runRecordingLoads} printed, and every module URL it loaded, one a line. */
export type RecordedRun = { out: string; loads: string }

/**
 * Runs `script` as an ES module in a fresh Node process from the project's root, under `recordLoads.mjs`, so a test can
 * tell what a cold code path really loads (static and dynamic imports alike).
 */
export function runRecordingLoads(script: string): RecordedRun {
  const record = join(mkdtempSync(join(tmpdir(), 'loads-')), 'loads.txt')
  const out = execFileSync(
    process.execPath,
    [...TYPESCRIPT_ARGS, '--import', './tests/support/recordLoads.mjs', '--input-type=module', '-e', script],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, RECORD_LOADS_FILE: record } },
  )
  return { out, loads: readFileSync(record, 'utf8') }
}
