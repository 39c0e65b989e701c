import { instanceDeploySource } from '../launches/instance.js'
import { perInstance } from '../platform/perInstance.js'
import { instanceReadSource } from '../read/instance.js'
import { loadTickConfig } from './config.js'
import type { TickSource } from './endpoint.js'

/** This instance's tick: both sides of the instance, and the tick settings read once from `process.env`. */
export const instanceTickSource: TickSource = {
  read: instanceReadSource,
  deploy: instanceDeploySource,
  config: perInstance(() => loadTickConfig(process.env)),
}
