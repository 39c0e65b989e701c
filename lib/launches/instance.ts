import { perInstance } from '../platform/perInstance.js'
import { instanceReadSource } from '../read/instance.js'
import { loadLaunchesConfig } from './config.js'
import type { LaunchesSource } from './endpoint.js'

/** This instance's launches feed: the instance's read side, and `PUBLIC_LAUNCHES`/`CHAIN_ID` read once (the stream reads the same). */
export const instanceLaunchesSource: LaunchesSource = {
  read: instanceReadSource,
  config: perInstance(() => loadLaunchesConfig(process.env)),
}
