// Set-up file of every test file (vitest.config.ts): with TEST_TIMINGS set, appends the CPU the file's worker and the
// processes it started and reaped used while the file ran (JSON lines, beside the timings); timingReporter.ts reads it.
// A whole run is CPU-bound on two cores, so a file's CPU says more than its wall time, which the other worker moves.
import { appendFileSync, readFileSync } from 'node:fs'
import { afterAll } from 'vitest'

/** This process's CPU so far plus that of its reaped children (utime, stime, cutime, cstime of /proc/self/stat), in ms. */
function cpuMsSoFar(): number {
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are plain.
  const stat = readFileSync('/proc/self/stat', 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // Fields 14 to 17 of proc(5), counted from field 3 here; the kernel counts them in ticks of 10 ms.
  return fields.slice(11, 15).reduce((total, ticks) => total + Number(ticks) * 10, 0)
}

const path = process.env.TEST_TIMINGS
if (path) {
  const start = cpuMsSoFar()
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a hook's first parameter as fixtures, only from a pattern
  afterAll(({}, suite) => {
    appendFileSync(`${path}.cpu`, `${JSON.stringify({ file: suite.file.filepath, cpuMs: cpuMsSoFar() - start })}\n`)
  })
}
