// Worker entry that runs TypeScript in this thread as the npm scripts do (dev/typeScriptImports.mjs), then loads the
// TypeScript module named in workerData.

import { workerData } from 'node:worker_threads'
import '../dev/typeScriptImports.mjs'

await import(workerData.module)
