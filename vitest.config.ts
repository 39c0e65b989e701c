import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/support/globalSetup.ts'],
    // Files share a worker and so load the modules once per worker; tests/support/newInstance.ts makes each file an
    // instance of its own all the same.
    isolate: false,
    setupFiles: ['tests/support/newInstance.ts', 'tests/support/recordLeftProcesses.ts', 'tests/support/recordFileCpu.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration files start real servers (anvil, redis front, KMS); two cores run two files at a time.
    maxWorkers: 2,
    reporters: ['default', './tests/support/summaryReporter.ts', './tests/support/timingReporter.ts'],
  },
})
