// Worker entry that registers tsx in this thread, then loads the TypeScript module named in workerData.

import { workerData } from 'node:worker_threads'
import { register } from 'tsx/esm/api'

register()
await import(workerData.module)
