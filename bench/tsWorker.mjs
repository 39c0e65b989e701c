// Worker entry that registers tsx in this thread, then loads the TypeScript module named in workerData.
import { register } from 'tsx/esm/api'
import { workerData } from 'node:worker_threads'

register()
await import(workerData.module)
