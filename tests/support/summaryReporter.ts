import type { Reporter, TestModule } from 'vitest/node'

/** What {@link summaryLine} reads of a test file: its state and its cases' states. */
export type SummarizedModule = Pick<TestModule, 'state'> & {
  children: { allTests(): Iterable<{ result(): { state: string } }> }
}

/**
 * The line CI reads: `N passed, N failed` (and skipped when any). A file that failed with no failed case (it could not
 * be imported, or its set-up failed and its cases were marked skipped) counts as one failure, so a red run never
 * reads "0 failed".
 */
export function summaryLine(testModules: ReadonlyArray<SummarizedModule>): string {
  let passed = 0
  let failed = 0
  let skipped = 0
  for (const module of testModules) {
    let failedHere = 0
    for (const test of module.children.allTests()) {
      const state = test.result().state
      if (state === 'passed') passed++
      else if (state === 'failed') failedHere++
      else skipped++
    }
    failed += module.state() === 'failed' && failedHere === 0 ? 1 : failedHere
  }
  return `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`
}

/** Ends the run with {@link summaryLine}. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    process.stdout.write(`\n${summaryLine(testModules)}\n`)
  }
}
