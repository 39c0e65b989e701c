import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { relative } from 'node:path'
import type { Reporter, TestModule } from 'vitest/node'

/**
 * One test file's time: set-up (start, harness, imports, set-up file) apart from its tests and hooks, and the CPU its
 * worker and the processes it started took meanwhile (recordFileCpu.ts), in ms.
 */
export type FileTiming = { file: string; tests: number; setupMs: number; testsAndHooksMs: number; totalMs: number; cpuMs: number }

/** The CPU per file that recordFileCpu.ts appended beside the timings, by the file's absolute path. */
function readFileCpu(path: string): Map<string, number> {
  if (!existsSync(`${path}.cpu`)) return new Map()
  const lines = readFileSync(`${path}.cpu`, 'utf8').split('\n').filter(Boolean)
  return new Map(lines.map((line) => JSON.parse(line) as { file: string; cpuMs: number }).map((l) => [l.file, l.cpuMs]))
}

/**
 * With TEST_TIMINGS=path set, writes each file's {@link FileTiming} there (JSON) and prints the 15 slowest; otherwise
 * does nothing. docs/testing.md holds the numbers it gave.
 */
export default class TimingReporter implements Reporter {
  onInit() {
    // The set-up file appends, so a run starts from an empty list.
    if (process.env.TEST_TIMINGS) rmSync(`${process.env.TEST_TIMINGS}.cpu`, { force: true })
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const path = process.env.TEST_TIMINGS
    if (!path) return
    const cpu = readFileCpu(path)
    const timings: FileTiming[] = testModules.map((module) => {
      const d = module.diagnostic()
      const setupMs = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration
      return {
        file: relative(process.cwd(), module.moduleId),
        tests: [...module.children.allTests()].length,
        setupMs: Math.round(setupMs),
        testsAndHooksMs: Math.round(d.duration),
        totalMs: Math.round(setupMs + d.duration),
        cpuMs: cpu.get(module.moduleId) ?? 0,
      }
    })
    timings.sort((a, b) => b.totalMs - a.totalMs)
    writeFileSync(path, JSON.stringify(timings, null, 1))
    const seconds = (ms: number) => (ms / 1000).toFixed(1)
    const sum = (pick: (t: FileTiming) => number) => seconds(timings.reduce((total, t) => total + pick(t), 0))
    const lines = timings
      .slice(0, 15)
      .map(
        (t) =>
          `${seconds(t.totalMs).padStart(7)} s  ${seconds(t.setupMs).padStart(6)} s set-up  ${seconds(t.cpuMs).padStart(6)} s CPU  ${t.file}`,
      )
    process.stdout.write(
      `\nslowest files (total, of which set-up):\n${lines.join('\n')}\nall ${timings.length} files: ${sum((t) => t.totalMs)} s, set-up ${sum((t) => t.setupMs)} s, CPU ${sum((t) => t.cpuMs)} s\n`,
    )
  }
}
