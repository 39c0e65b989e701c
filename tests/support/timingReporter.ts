import { writeFileSync } from 'node:fs'
import { relative } from 'node:path'
import type { Reporter, TestModule } from 'vitest/node'

/** One test file's time: set-up (start, harness, imports, set-up file) apart from its tests and hooks, in ms. */
export type FileTiming = { file: string; tests: number; setupMs: number; testsAndHooksMs: number; totalMs: number }

/**
 * With TEST_TIMINGS=path set, writes each file's {@link FileTiming} there (JSON) and prints the 15 slowest; otherwise
 * does nothing. docs/testing.md holds the numbers it gave.
 */
export default class TimingReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const path = process.env.TEST_TIMINGS
    if (!path) return
    const timings: FileTiming[] = testModules.map((module) => {
      const d = module.diagnostic()
      const setupMs = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration
      return {
        file: relative(process.cwd(), module.moduleId),
        tests: [...module.children.allTests()].length,
        setupMs: Math.round(setupMs),
        testsAndHooksMs: Math.round(d.duration),
        totalMs: Math.round(setupMs + d.duration),
      }
    })
    timings.sort((a, b) => b.totalMs - a.totalMs)
    writeFileSync(path, JSON.stringify(timings, null, 1))
    const seconds = (ms: number) => (ms / 1000).toFixed(1)
    const sum = (pick: (t: FileTiming) => number) => seconds(timings.reduce((total, t) => total + pick(t), 0))
    const lines = timings
      .slice(0, 15)
      .map((t) => `${seconds(t.totalMs).padStart(7)} s  ${seconds(t.setupMs).padStart(6)} s set-up  ${t.file}`)
    process.stdout.write(
      `\nslowest files (total, of which set-up):\n${lines.join('\n')}\nall ${timings.length} files: ${sum((t) => t.totalMs)} s, set-up ${sum((t) => t.setupMs)} s\n`,
    )
  }
}
