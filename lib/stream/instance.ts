import { instanceLaunchesSource } from '../launches/instance.js'
import { perInstance } from '../platform/perInstance.js'
import { instanceReadSource } from '../read/instance.js'
import { loadStreamConfig } from './config.js'
import type { StreamSource } from './endpoint.js'

/** This instance's stream: the read side, the stream settings read once, and the launches feed's own settings. */
export const instanceStreamSource: StreamSource = {
  read: instanceReadSource,
  config: perInstance(() => loadStreamConfig(process.env)),
  launches: instanceLaunchesSource.config,
}
