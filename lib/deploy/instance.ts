import { systemClock } from '../platform/clock.js'
import { createLogger, type Logger } from '../platform/log.js'
import { perInstance, perInstanceAsync } from '../platform/perInstance.js'
import { instanceMemoryStore } from '../store/memory.js'
import type { Throttle } from '../store/throttle.js'
import type { Store } from '../store/types.js'
import { type AgentRegistry, createAgentRegistry } from './agents/agentRegistry.js'
import { type DeployConfig, loadDeployConfig } from './config.js'
import type { ConfirmedHook, DeployServices } from './services.js'

// The deploy side of an instance: its configuration, logger, agent registry and services, each built once from
// `process.env` (the documented per-instance memo). This instance's own is lib/launches/instance.ts's
// `instanceDeploySource`, built here with the launches' hook: the deploy endpoint, MCP, the tick and health take it there.

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
  /**
   * The store the services use, without loading them (the paid door's throttle and cap count on an unpaid request):
   * Upstash when configured; else this process's own store, or null on Vercel (instances share no memory).
   */
  store: () => Promise<Store | null>
  /** The per-client throttle of callers without a key (public actions), over {@link store}; in this process without one. */
  throttle: () => Promise<Throttle>
  /** The same throttle in this process, for when the shared store is unreachable: per instance, never none. */
  localThrottle: () => Promise<Throttle>
}

/** A source over services already built (tests, benchmarks). */
export function deployServicesFrom(build: () => DeployServices): DeployServicesSource {
  const agents = perInstance(() => {
    const { config, store } = build()
    // The snapshot ages in real time, as the keys it holds are issued and revoked by people.
    return createAgentRegistry({ store, storePrefix: config.storePrefix, now: systemClock.now })
  })
  // The throttles' module (and @upstash/ratelimit) is loaded by the first keyless call, not with the door.
  const localThrottle = perInstanceAsync(async () => (await import('../store/throttle.js')).createLocalThrottle(build().clock.now))
  const throttle = perInstanceAsync(async () => {
    const { store, clock } = build()
    return store ? (await import('../store/throttle.js')).createThrottle(store, clock.now) : localThrottle()
  })
  return {
    config: () => build().config,
    services: async () => build(),
    logger: () => build().logger,
    agents: async () => agents(),
    store: async () => build().store,
    throttle,
    localThrottle,
  }
}

/** Parameters of {@link createInstanceDeploySource}. */
export type CreateInstanceDeploySourceParameters = {
  /** What runs once a deploy is seen confirmed (lib/launches' announcement), loaded with the services. */
  onConfirmed: ConfirmedHook
  /** WETH's USD price in the control room now (the read side's, handed in by lib/launches), for a dry run's USD price. */
  wethUsd?: () => Promise<string | null>
}

/**
 * An instance's deploy side: configuration from `process.env`, services loaded on the first valid request, each built
 * once. Called once, by lib/launches/instance.ts.
 */
export function createInstanceDeploySource({ onConfirmed, wethUsd }: CreateInstanceDeploySourceParameters): DeployServicesSource {
  const config = perInstance(() => loadDeployConfig(process.env))
  // The instance's store, shared by the services and the paths that must not load them (its adapter loaded on demand).
  const store = perInstanceAsync(async (): Promise<Store | null> => {
    const { redis, onVercel } = config()
    if (redis) return (await import('../store/upstash.js')).createUpstashStore(redis)
    return onVercel ? null : instanceMemoryStore()
  })
  const localThrottle = perInstanceAsync(async () => (await import('../store/throttle.js')).createLocalThrottle(systemClock.now))

  return {
    config,
    services: perInstanceAsync(async () =>
      (await import('./services.js')).createDeployServices({ store: await store(), onConfirmed, wethUsd }),
    ),
    logger: perInstance(() => createLogger()),
    // Only a shared store can hold keys issued at runtime (an in-process one is this instance's alone). The store
    // adapter is loaded only when a key outside the allowlist arrives.
    agents: perInstanceAsync(async () => {
      const { redis, storePrefix } = config()
      const store = redis ? (await import('../store/upstash.js')).createUpstashStore(redis) : null
      return createAgentRegistry({ store, storePrefix, now: systemClock.now })
    }),
    store,
    throttle: perInstanceAsync(async () => {
      const shared = await store()
      return shared ? (await import('../store/throttle.js')).createThrottle(shared, systemClock.now) : localThrottle()
    }),
    localThrottle,
  }
}
