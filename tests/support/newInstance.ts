// Set-up file of every test file (vitest.config.ts), run first. Test files share a worker (`isolate: false`) and what
// it has loaded: the dependencies (viem, the AWS SDK, x402, zod) and the repository's own modules, imported once per
// worker rather than once per file. Each file is still an instance of its own, as if it ran in a process of its own:
// what the previous file's instance built (lib/platform/perInstance.ts: its configuration, read from process.env, its
// services, its in-process store) is built anew on this file's first call. tests/moduleState.test.ts holds that
// nothing else in lib/, or in what an api/ module builds when it loads, keeps state past its instance, and that this
// file runs first.
import { startNewInstance } from '../../lib/platform/perInstance.js'

startNewInstance()
