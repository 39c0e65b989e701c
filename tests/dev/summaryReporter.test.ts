import { describe, expect, it } from 'vitest'
import { type SummarizedModule, summaryLine } from '../support/summaryReporter.js'

/** A test file as the reporter sees it: its own state, and its cases' states. */
function file(state: 'passed' | 'failed', cases: string[]): SummarizedModule {
  return {
    state: () => state,
    children: { allTests: () => cases.map((caseState) => ({ result: () => ({ state: caseState }) })) },
  } as SummarizedModule
}

describe("the suite's summary line", () => {
  it('counts passed, failed and skipped cases', () => {
    expect(summaryLine([file('passed', ['passed', 'passed', 'skipped']), file('failed', ['passed', 'failed', 'failed'])])).toBe(
      '3 passed, 2 failed, 1 skipped',
    )
  })

  it('counts a file whose set-up failed, and whose cases were all skipped, as one failure', () => {
    expect(summaryLine([file('passed', ['passed']), file('failed', ['skipped', 'skipped'])])).toBe('1 passed, 1 failed, 2 skipped')
  })

  it('counts a file that could not be imported, with no case, as one failure', () => {
    expect(summaryLine([file('failed', [])])).toBe('0 passed, 1 failed')
  })
})
