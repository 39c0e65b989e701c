import { perInstance } from '../platform/perInstance.js'
import { instanceMemoryStore } from '../store/memory.js'
import { loadReadConfig } from './config.js'
import { createReadServices, type ReadServices } from './services.js'

// The read side of this instance: its configuration and services, built once from `process.env` (the documented
// per-instance memo). Every read endpoint, the stream, launches, MCP, the tick and health take it from here.

/** This instance's read services, built from `process.env` on first use (without Redis: the instance's own store). */
export const instanceReadSource: () => ReadServices = perInstance(() => {
  const config = loadReadConfig(process.env)
  return createReadServices({ config, store: config.redis ? undefined : instanceMemoryStore() })
})
