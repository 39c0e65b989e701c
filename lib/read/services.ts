import { waitUntil } from '@vercel/functions'
import { type Environment, loadReadConfig } from '../platform/config.js'
import { createLogger, type Logger } from '../platform/log.js'
import { createMemoryStore } from '../store/memory.js'
import type { Store } from '../store/types.js'
import { createUpstashStore } from '../store/upstash.js'
import { createDexScreenerClient, type DexScreenerClient } from '../upstream/dexscreener.js'
import { createGeckoTerminalClient, type GeckoTerminalClient } from '../upstream/geckoterminal.js'
import { createSharedRequestBudget, DEXSCREENER_REQUESTS_PER_MINUTE } from '../upstream/sharedBudget.js'
import { createReadCache, type ReadCache } from './cache.js'

/** Everything the read endpoints talk to, built once per instance. */
export type ReadServices = {
  store: Store
  cache: ReadCache
  upstream: DexScreenerClient
  /** GeckoTerminal (discovery and failover), or null when `GECKOTERMINAL_BASE_URL` is empty. */
  gecko: GeckoTerminalClient | null
  logger: Logger
  now: () => number
  /** Up to what age the last good body is served while a refresh is due or failing (`STALE_IF_ERROR_SECONDS`). */
  staleIfErrorSeconds: number
  /** `token-search` requests a client may make per minute (`SEARCH_RATE_LIMIT_PER_MINUTE`). */
  searchRateLimitPerMinute: number
  /** Prefix of the shared-store keys. */
  keyPrefix: string
  /** One line for start-up output: which store and upstream are in use (no secrets). */
  describe: string
}

/** Parameters of {@link createReadServices}; anything given replaces what the environment would build. */
export type CreateReadServicesParameters = {
  env?: Environment
  store?: Store
  upstream?: DexScreenerClient
  /** GeckoTerminal client; `null` turns it off; absent: built from the environment. */
  gecko?: GeckoTerminalClient | null
  logger?: Logger
  now?: () => number
}

/** Builds the read services from the environment (or from what a test hands in). */
export function createReadServices(parameters: CreateReadServicesParameters = {}): ReadServices {
  const config = loadReadConfig(parameters.env ?? process.env)
  const logger = parameters.logger ?? createLogger()
  const now = parameters.now ?? Date.now
  const store = parameters.store ?? (config.redis ? createUpstashStore(config.redis) : createMemoryStore())
  // Every DexScreener attempt, retries included, takes a slot of one rolling minute shared by all instances.
  const admit = createSharedRequestBudget({
    store,
    key: dexScreenerBudgetKey(config.storePrefix),
    perMinute: DEXSCREENER_REQUESTS_PER_MINUTE,
    logger,
    now,
  })
  const upstream = parameters.upstream ?? createDexScreenerClient({ baseUrl: config.dexscreenerBaseUrl, admit })
  const gecko =
    parameters.gecko !== undefined
      ? parameters.gecko
      : config.geckoTerminalBaseUrl
        ? createGeckoTerminalClient({ baseUrl: config.geckoTerminalBaseUrl })
        : null
  const storeLabel =
    store.kind === 'upstash' && config.redis
      ? `upstash ${new URL(config.redis.url).host}`
      : store.kind === 'upstash'
        ? 'upstash'
        : 'in-process memory'
  return {
    store,
    // On Vercel, waitUntil keeps the function alive for a background refresh; elsewhere it is a no-op and the refresh runs on.
    cache: createReadCache({ store, logger, now, staleForMs: config.staleIfErrorSeconds * 1000, waitUntil }),
    upstream,
    gecko,
    logger,
    now,
    staleIfErrorSeconds: config.staleIfErrorSeconds,
    searchRateLimitPerMinute: config.searchRateLimitPerMinute,
    keyPrefix: config.storePrefix,
    describe: `store: ${storeLabel}, upstream: ${config.dexscreenerBaseUrl}, discovery: ${config.geckoTerminalBaseUrl ?? 'off'}`,
  }
}

/** Store key of the service-wide DexScreener budget (under the service prefix). */
export const dexScreenerBudgetKey = (keyPrefix: string) => `${keyPrefix}budget:dexscreener`

let instance: ReadServices | undefined

/** The instance's read services, built from `process.env` on first use. */
export function getReadServices(): ReadServices {
  instance ??= createReadServices()
  return instance
}
