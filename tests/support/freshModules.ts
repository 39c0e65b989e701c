// Set-up file of every test file (vitest.config.ts), run first. Test files share a worker (`isolate: false`), so Node
// loads the dependencies (viem, the AWS SDK, x402, zod) once per worker rather than once per file. Each file still
// imports the repository's own modules (lib/, api/, dev/, tests/support) afresh, as in a worker of its own, so what
// one file's instance built (lib/platform/perInstance.ts: its configuration, read from process.env, its services, its
// in-process store) never reaches the next file. tests/moduleState.test.ts checks that this file runs first.
import { vi } from 'vitest'

vi.resetModules()
