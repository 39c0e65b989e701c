import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

// lib/platform/clock.ts says every wait and every reading of the time in lib/ goes through the injected clock, and
// the house rule says tests wait for events, never on the wall clock. These greps keep both claims true.

const ROOT = join(import.meta.dirname, '..')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : /\.(ts|mjs|js)$/.test(entry.name) ? [join(dir, entry.name)] : [],
  )
}

/** Every line of the files under `dir` (relative to the root) that matches `pattern`, as `file:line: text`. */
function matches(dir: string, pattern: RegExp, skip: (file: string) => boolean): string[] {
  return sourceFiles(join(ROOT, dir)).flatMap((path) => {
    const file = relative(ROOT, path)
    if (skip(file)) return []
    return readFileSync(path, 'utf8')
      .split('\n')
      .flatMap((text, i) => (pattern.test(text) ? [`${file}:${i + 1}: ${text.trim()}`] : []))
  })
}

/**
 * A line {@link matches} found, without its number (`file: text`): an allowed line is named by what it says, so it stays
 * allowed when lines above it move.
 */
const unnumbered = (line: string) => line.replace(/^([^:]+):\d+: /, '$1: ')

/** Whether a test file fakes its timers (vi.useFakeTimers): its timers and `Date.now` are then the fake clock's. */
const fakesTimers = (file: string) => readFileSync(join(ROOT, file), 'utf8').includes('vi.useFakeTimers()')

/**
 * A timer, a deadline (`AbortSignal.timeout` is a timer that aborts), or the time read without the clock: `new Date()`
 * with no argument is `Date.now()` in disguise.
 */
const WALL_CLOCK = /\bset(Timeout|Interval|Immediate)\s*\(|\bDate\.now\b|\bnew Date\(\s*\)|\bperformance\.now\b|\bAbortSignal\.timeout\b/

describe('one clock', () => {
  it('lets nothing in lib/ wait or read the time except lib/platform/clock.ts', () => {
    expect(sourceFiles(join(ROOT, 'lib')).length).toBeGreaterThan(50) // the scanner sees lib/
    expect(matches('lib/platform', WALL_CLOCK, () => false).length).toBeGreaterThan(0) // and sees the clock's own timers
    expect(matches('lib', WALL_CLOCK, (file) => file === 'lib/platform/clock.ts')).toEqual([])
  })

  it('names the real clock only where services are built, and as the default of the factories listed here', () => {
    const NAMED: Record<string, string> = {
      'lib/platform/clock.ts': 'it is defined there',
      'lib/read/services.ts': 'the read services are built there (a test hands in its own `now` and `sleep`)',
      'lib/deploy/services.ts':
        'the deploy services are built there; the nonce lock, the fee cache and the waiting send run on the chain’s real time, whatever clock stamps the records',
      'lib/deploy/instance.ts': 'the instance’s agent registry is built there; its snapshot ages in real time',
      'lib/payments/instance.ts': 'the paid door’s parts are built there (a test hands in its own clock)',
      'lib/store/throttle.ts': '@upstash/ratelimit keeps its windows on the real clock, so its reset time is read against it',
      'lib/store/memory.ts': 'the default of the in-process store, which tests build alone by the dozen; the services hand theirs in',
      'lib/store/upstash.ts': 'the default deadline of an Upstash store built alone (a script, a test); the services hand theirs in',
      'lib/platform/log.ts': 'the default of a logger’s timestamps (the process logger is built once, through perInstance)',
      'lib/deploy/agents/agentRegistry.ts': 'the default time of `npm run agents` issuing or revoking a key: an admin command’s now',
      'lib/deploy/agents/webhookTargets.ts': 'the default time of `npm run agents` setting a webhook: an admin command’s now',
      'lib/deploy/agents/agentKeys.ts': 'the default of the refusal log’s per-second budget of lines',
    }
    const naming = [...new Set(matches('lib', /\bsystemClock\b/, () => false).map((line) => line.split(':')[0]!))].sort()
    expect(naming).toEqual(Object.keys(NAMED).sort())
  })

  it('lets no test outside tests/support assert on how long something took by the wall clock', () => {
    // An elapsed time read from the wall clock: a loaded machine fails any bound put on it. A test asserts what the
    // time stands for instead (an event, a count of calls, a deadline passed on an injected clock). Under fake timers
    // (vi.useFakeTimers) `Date.now` is the fake clock's, so such a file may read it.
    const ELAPSED = /\b(Date|performance)\.now\(\)\s*-\s*[\w.]+|\bperformance\.now\b/
    const found = matches(
      'tests',
      ELAPSED,
      (file) => file.startsWith('tests/support/') || file === 'tests/clock.test.ts' || fakesTimers(file),
    )
    const ALLOWED: Record<string, string> = {
      'tests/platform/vercelBuild.test.ts: const between = Math.ceil((Date.now() - startedAt) / 1000) + 1':
        'not a bound on a duration: the slack of a max-age two processes compute, which widens with the time between them',
    }
    for (const allowed of Object.keys(ALLOWED)) expect(found.map(unnumbered), allowed).toContain(allowed)
    expect(found.filter((line) => !(unnumbered(line) in ALLOWED))).toEqual([])
  })

  it('lets no test outside tests/support sleep on the wall clock', () => {
    // A sleep: a promise that a timer resolves, or the real clock's wait. Fake timers (vi.useFakeTimers) make the
    // first kind safe, so a file that fakes its timers may use it.
    const SLEEP =
      /new Promise\S*\(\s*\(?\s*(r|resolve|wake)\s*\)?\s*=>\s*setTimeout\(\s*(r|resolve|wake)\b|\brealSleep\b|\bsystemClock\.sleep\b/
    const found = matches(
      'tests',
      SLEEP,
      (file) => file.startsWith('tests/support/') || file === 'tests/clock.test.ts' || fakesTimers(file),
    )
    // Paces that are the behaviour under test, never a wait for a result: each named with its reason.
    const ALLOWED: Record<string, string> = {
      'tests/dev/earlyAnswer.test.ts: await new Promise((r) => setTimeout(r, 5))':
        'a slow uploader: it goes on sending its body in paced chunks after the answer, as a client on a slow link does',
    }
    for (const allowed of Object.keys(ALLOWED)) expect(found.map(unnumbered), allowed).toContain(allowed)
    expect(found.filter((line) => !(unnumbered(line) in ALLOWED))).toEqual([])
  })
})
