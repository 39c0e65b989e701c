// Set-up file of every test file (vitest.config.ts): after the file's own hooks, records what it left running.
import { afterAll, inject } from 'vitest'
import { recordProcessesLeftBy } from './processGuard.js'

// Registered first, so run last: the after-all hooks run in the reverse order of their registration.
// biome-ignore lint/correctness/noEmptyPattern: vitest reads a hook's first parameter as fixtures, only from a pattern
afterAll(({}, suite) => {
  recordProcessesLeftBy(suite.file.filepath, inject('processRecord'))
})
