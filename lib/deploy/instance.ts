import { createLogger, type Logger } from '../platform/log.js'
import { perInstance, perInstanceAsync } from '../platform/perInstance.js'
import { type AgentRegistry, createAgentRegistry } from './agents/agentRegistry.js'
import { type DeployConfig, loadDeployConfig } from './config.js'
import type { DeployServices } from './services.js'

// The deploy side of this instance: its configuration, logger, agent registry and services, each built once from
// `process.env` (the documented per-instance memo). The deploy endpoint, MCP, the tick and health all take it from here.

/**
 * Where the deploy side gets its configuration and services. `config` is cheap (the environment through zod) and is
 * all a refusal needs; `services` loads viem, the AWS SDK and the signer, and is only called for a valid request.
 */
export type DeployServicesSource = {
  config: () => DeployConfig
  services: () => Promise<DeployServices>
  /** Where refusals are logged (before any service is loaded). */
  logger: () => Logger
  /** The keys issued at runtime (`npm run agents`), asked only for a key not in `DEPLOY_ALLOWLIST`. */
  agents: () => Promise<AgentRegistry>
}

/** A source over services already built (tests, benchmarks). */
export function deployServicesFrom(build: () => DeployServices): DeployServicesSource {
  const agents = perInstance(() => {
    const { config, store } = build()
    return createAgentRegistry({ store, storePrefix: config.storePrefix })
  })
  return {
    config: () => build().config,
    services: async () => build(),
    logger: () => build().logger,
    agents: async () => agents(),
  }
}

const config = perInstance(() => loadDeployConfig(process.env))

/** This instance's deploy side: configuration from `process.env`, services loaded on the first valid request. */
export const instanceDeploySource: DeployServicesSource = {
  config,
  services: perInstanceAsync(async () => (await import('./services.js')).createDeployServices()),
  logger: perInstance(() => createLogger()),
  // Only a shared store can hold keys issued at runtime (an in-process one is this instance's alone). The store
  // adapter is loaded only when a key outside the allowlist arrives.
  agents: perInstanceAsync(async () => {
    const { redis, storePrefix } = config()
    const store = redis ? (await import('../store/upstash.js')).createUpstashStore(redis) : null
    return createAgentRegistry({ store, storePrefix })
  }),
}
