import { createInstanceDeploySource } from '../deploy/instance.js'
import { perInstance, perInstanceAsync } from '../platform/perInstance.js'
import { instanceReadSource } from '../read/instance.js'
import { loadLaunchesConfig } from './config.js'
import type { LaunchesSource, LaunchSource } from './endpoint.js'

/**
 * This instance's deploy side (lib/deploy/instance.ts), whose confirmed deploys are announced as launches to open
 * streams. It is built here because lib/launches sits above lib/deploy: the deploy side calls the hook it is handed and
 * imports nothing of this room. The deploy endpoint, MCP, the tick, health, the stream and the paid door take it here.
 */
export const instanceDeploySource = createInstanceDeploySource({
  // Loaded with the first confirmation, not with the route.
  onConfirmed: async (services, record) => (await import('./feed.js')).announceConfirmedLaunch(services, record),
  // The control room as the read side holds it: its own fresh copy, else the shared body (one store read).
  wethUsd: async () => {
    const read = instanceReadSource()
    return (await import('../read/roomWethPrice.js')).readWethUsd({ store: read.store, keyPrefix: read.keyPrefix, cache: read.cache })
  },
})

/** This instance's launches feed: the read side, `PUBLIC_LAUNCHES`/`CHAIN_ID` read once (the stream reads the same), the chain. */
export const instanceLaunchesSource: LaunchesSource = {
  read: instanceReadSource,
  config: perInstance(() => loadLaunchesConfig(process.env)),
  // The deploy side's RPC and SIGNER_ADDRESS, without its services (no KMS, no AWS SDK): viem loaded by the first refresh.
  chain: perInstanceAsync(async () => {
    const { chainId, rpcUrl, signerAddress } = instanceDeploySource.config()
    const { createChainClient } = await import('../chain/client.js')
    return { client: createChainClient({ rpcUrl, chainId }), signer: signerAddress }
  }),
}

/** This instance's one-launch endpoint's side: the feed's, and this instance's deploy side (the chain, the records). */
export const instanceLaunchSource: LaunchSource = { ...instanceLaunchesSource, deploy: instanceDeploySource }
