import { instanceDeploySource } from '../launches/instance.js'
import { perInstance } from '../platform/perInstance.js'
import { instanceReadSource } from '../read/instance.js'
import { loadHealthConfig } from './config.js'
import type { HealthSource } from './endpoint.js'

/** This instance's health check: both sides of the instance, and the health settings read once from `process.env`. */
export const instanceHealthSource: HealthSource = {
  read: instanceReadSource,
  deploy: instanceDeploySource,
  config: perInstance(() => loadHealthConfig(process.env)),
}
