import { instanceLaunchesSource } from '../launches/instance.js'
import { perInstance, perInstanceAsync } from '../platform/perInstance.js'
import { instanceReadSource } from '../read/instance.js'
import { loadStreamConfig } from './config.js'
import type { StreamSource } from './endpoint.js'

/** This instance's stream: the read side, the stream settings read once, and the launches feed's own settings. */
export const instanceStreamSource: StreamSource = {
  read: instanceReadSource,
  config: perInstance(() => loadStreamConfig(process.env)),
  launches: instanceLaunchesSource.config,
  // The deploy side (its store, chain client and settings) is loaded only when the first stream opens.
  trades: perInstanceAsync(async () => {
    const [{ instanceDeploySource }, { launchTradeReader }] = await Promise.all([
      import('../launches/instance.js'),
      import('../launches/tradeReader.js'),
    ])
    // A deploy side that cannot be built here (its settings refused) follows no trades; the deploy endpoint says why.
    return instanceDeploySource
      .services()
      .then(launchTradeReader)
      .catch(() => null)
  }),
}
