import { createAgentRegistry } from '../../lib/deploy/agents/agentRegistry.js'
import { loadDeployConfig } from '../../lib/deploy/config.js'
import type { DeployServicesSource } from '../../lib/deploy/instance.js'
import { type PaymentsSource, paymentsSourceFrom } from '../../lib/payments/instance.js'
import type { Clock } from '../../lib/platform/clock.js'
import { silentLogger } from '../../lib/platform/log.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import { createLocalThrottle } from '../../lib/store/throttle.js'

/**
 * The paid door's source over an environment, for cases that end before any deploy (the 402, discovery, refusals): an
 * in-process store, and a deploy side whose services throw if asked for, so a case that reaches them fails.
 */
export function paymentsSourceOver(env: Record<string, string>, clock?: Clock): PaymentsSource {
  const store = createMemoryStore()
  const deploy: DeployServicesSource = {
    config: () => loadDeployConfig(env),
    services: async () => {
      throw new Error('the services were loaded')
    },
    logger: () => silentLogger,
    agents: async () => createAgentRegistry({ store: null, storePrefix: 'test:', now: () => 0 }),
    store: async () => store,
    throttle: async () => createLocalThrottle(() => 0),
    localThrottle: async () => createLocalThrottle(() => 0),
  }
  return paymentsSourceFrom({ deploy, env, ...(clock ? { clock } : {}) })
}
