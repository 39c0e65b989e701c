import { waitUntil } from '@vercel/functions'
import { type Deadline, type Sleep, systemClock } from '../platform/clock.js'
import type { Environment } from '../platform/config.js'
import { createLogger, type Logger } from '../platform/log.js'
import { createMemoryStore } from '../store/memory.js'
import { createSlidingLogStore } from '../store/slidingLog.js'
import { createLocalThrottle, createThrottle, type Throttle } from '../store/throttle.js'
import type { Store } from '../store/types.js'
import { createUpstashStore } from '../store/upstash.js'
import { createDexScreenerClient, type DexScreenerClient } from '../upstream/dexscreener.js'
import { createGeckoTerminalClient, type GeckoTerminalClient } from '../upstream/geckoterminal.js'
import { createSharedRequestBudget, DEXSCREENER_REQUESTS_PER_MINUTE, reserveSlots } from '../upstream/sharedBudget.js'
import { createReadCache, type ReadCache } from './cache/readCache.js'
import { loadReadConfig, type ReadConfig } from './config.js'
import { GECKO_CANDLE_CALLS_CEILING } from './geckoShares.js'
import { type ReadKeys, readKeys } from './keys.js'
import { createReadMemory, type ReadMemory } from './readMemory.js'

/** Everything the read endpoints talk to, built once per instance. */
export type ReadServices = {
  store: Store
  /** Per-client throttling over the same store (`@upstash/ratelimit` on Upstash). */
  throttle: Throttle
  /** The same limits in this process alone, for when the shared store is unreachable: per instance, never none. */
  localThrottle: Throttle
  cache: ReadCache
  /** DexScreener for the control-room refresh and the tick, within the service-wide 250 requests a minute. */
  upstream: DexScreenerClient
  /**
   * Reserves up to `count` slots of the service-wide DexScreener minute in one store call (a refresh takes its whole
   * share at once instead of one call per request); answers how many it got, 0 when the store is down.
   */
  reserveUpstream(count: number): Promise<number>
  /** DexScreener for anonymous searches: within their own share of that minute, so a search never takes the refresh's. */
  searchUpstream: DexScreenerClient
  /** GeckoTerminal (discovery and failover), or null when `GECKOTERMINAL_BASE_URL` is empty. */
  gecko: GeckoTerminalClient | null
  /**
   * GeckoTerminal for anonymous candle requests: each call takes a slot of their own share of its minute and of the
   * whole, and only while the whole has room below what discovery and the failover keep (`discovery.ts`). Null: off.
   */
  candles: GeckoTerminalClient | null
  logger: Logger
  /** The clock that stamps the data... */
  now: () => number
  /** ...the one the waits run on (a waiter for another instance's refresh, say)... */
  sleep: Sleep
  /** ...and the one upstream requests' deadlines run on (a refresh, a search, a page of candles). */
  deadline: Deadline
  /** Up to what age the last good body is served while a refresh is due or failing (`STALE_IF_ERROR_SECONDS`). */
  staleIfErrorSeconds: number
  /** `token-search` requests a client may make per minute (`SEARCH_RATE_LIMIT_PER_MINUTE`). */
  searchRateLimitPerMinute: number
  /** `token-history` requests a client may make per minute (`TOKEN_HISTORY_RATE_LIMIT_PER_MINUTE`). */
  tokenHistoryRateLimitPerMinute: number
  /** `token-ohlcv` requests a client may make per minute (`TOKEN_OHLCV_RATE_LIMIT_PER_MINUTE`). */
  tokenOhlcvRateLimitPerMinute: number
  /** Prefix of the shared-store keys. */
  keyPrefix: string
  /** The chain launches are recorded under (`CHAIN_ID`): where their pools' candles are kept. */
  chainId: number
  /** The read side's store keys under that prefix, built once. */
  keys: ReadKeys
  /** What these services remember between requests (unknown tokens, history already read, parsed pools). */
  memory: ReadMemory
  /** One line for start-up output: which store and upstream are in use (no secrets). */
  describe: string
}

/** Parameters of {@link createReadServices}; anything given replaces what the environment would build. */
export type CreateReadServicesParameters = {
  env?: Environment
  /** The read settings, already loaded (default: loaded from `env`). */
  config?: ReadConfig
  store?: Store
  /** DexScreener for the refresh; also for searches when `searchUpstream` is not given. */
  upstream?: DexScreenerClient
  searchUpstream?: DexScreenerClient
  /** GeckoTerminal client; `null` turns it off; absent: built from the environment. */
  gecko?: GeckoTerminalClient | null
  /** GeckoTerminal client of candle requests; `null` turns them off; absent: built from the environment, in its share. */
  candles?: GeckoTerminalClient | null
  logger?: Logger
  now?: () => number
  /** Waits on the clock of `now` (default: the real clock's, as `now` defaults to its `now`). */
  sleep?: Sleep
  /** The deadlines of upstream and store requests (default: the real clock's, as `sleep`'s). */
  deadline?: Deadline
  /** Keeps the instance alive for work after the answer (default: Vercel's `waitUntil`; tests collect it). */
  waitUntil?: (promise: Promise<unknown>) => void
  /** Most entries the cache keeps of its own besides the hot bodies (default `LOCAL_ENTRIES_MAX` of readCache.ts). */
  cacheLocalEntriesMax?: number
}

/** Which store is in use, for the start-up line: its host, never its token. */
function storeLabelOf(store: Store, config: ReadConfig): string {
  if (store.kind !== 'upstash') return 'in-process memory'
  return config.redis ? `upstash ${new URL(config.redis.url).host}` : 'upstash'
}

/** {@link ReadServices.reserveUpstream} over the store: a store that fails reserves nothing. */
function upstreamReserver(store: Store, keys: ReadKeys, now: () => number): (count: number) => Promise<number> {
  return async (count) => {
    try {
      return await reserveSlots(store, {
        key: keys.dexScreenerBudget,
        count,
        limit: DEXSCREENER_REQUESTS_PER_MINUTE,
        windowMs: 60_000,
        now: now(),
      })
    } catch {
      return 0 // each request then asks the budget itself, which holds per instance without the store
    }
  }
}

/** Builds the read services from the environment (or from what a test hands in). */
export function createReadServices(parameters: CreateReadServicesParameters = {}): ReadServices {
  const env = parameters.env ?? process.env
  const config = parameters.config ?? loadReadConfig(env)
  const logger = parameters.logger ?? createLogger({ env })
  const now = parameters.now ?? systemClock.now
  const sleep = parameters.sleep ?? systemClock.sleep
  const deadline = parameters.deadline ?? systemClock.deadline
  const store = parameters.store ?? (config.redis ? createUpstashStore({ ...config.redis, deadline }) : createMemoryStore())
  const keys = readKeys(config.storePrefix)
  // Every DexScreener attempt, retries included, takes a slot of one rolling minute shared by all instances.
  const whole = { key: keys.dexScreenerBudget, perMinute: DEXSCREENER_REQUESTS_PER_MINUTE }
  // While the store is down, the budgets hold in this process, over windows the whole and its share both count in.
  const local = createSlidingLogStore(now)
  const admit = createSharedRequestBudget({ store, ...whole, logger, now, local })
  const upstream = parameters.upstream ?? createDexScreenerClient({ baseUrl: config.dexscreenerBaseUrl, admit, now, sleep, deadline })
  // Searches are anonymous and unbounded in variety: they get their own share of the minute, taken with the whole.
  const searchAdmit = createSharedRequestBudget({
    store,
    key: keys.searchBudget,
    perMinute: config.searchUpstreamRequestsPerMinute,
    logger,
    now,
    within: whole,
    local,
  })
  const searchUpstream =
    parameters.searchUpstream ??
    parameters.upstream ??
    createDexScreenerClient({ baseUrl: config.dexscreenerBaseUrl, admit: searchAdmit, now, sleep, deadline })
  const gecko =
    parameters.gecko !== undefined
      ? parameters.gecko
      : config.geckoTerminalBaseUrl
        ? createGeckoTerminalClient({ baseUrl: config.geckoTerminalBaseUrl, now, sleep, deadline })
        : null
  // Candle requests are anonymous and unbounded in variety too: their own share of GeckoTerminal's minute, taken with a
  // slot of the whole only while the whole is below their ceiling, so discovery and the failover keep theirs.
  const candleAdmit = createSharedRequestBudget({
    store,
    key: keys.geckoCandleBudget,
    perMinute: config.ohlcvUpstreamRequestsPerMinute,
    logger,
    now,
    within: { key: keys.geckoCalls, perMinute: GECKO_CANDLE_CALLS_CEILING },
    local,
  })
  const candles =
    parameters.candles !== undefined
      ? parameters.candles
      : config.geckoTerminalBaseUrl
        ? createGeckoTerminalClient({ baseUrl: config.geckoTerminalBaseUrl, admit: candleAdmit, maxRetries: 1, now, sleep, deadline })
        : null
  return {
    store,
    throttle: createThrottle(store, now),
    localThrottle: createLocalThrottle(now),
    reserveUpstream: upstreamReserver(store, keys, now),
    // On Vercel, waitUntil keeps the function alive for a background refresh; elsewhere it is a no-op and the refresh runs on.
    cache: createReadCache({
      store,
      logger,
      now,
      sleep,
      // The stream's body is the control room's; the dashboard reads the market history and the launches on every load.
      hotKeys: [keys.controlRoom, keys.marketHistory, keys.launches],
      staleForMs: config.staleIfErrorSeconds * 1000,
      waitUntil: parameters.waitUntil ?? waitUntil,
      localEntriesMax: parameters.cacheLocalEntriesMax,
    }),
    upstream,
    searchUpstream,
    gecko,
    candles,
    logger,
    now,
    sleep,
    deadline,
    staleIfErrorSeconds: config.staleIfErrorSeconds,
    searchRateLimitPerMinute: config.searchRateLimitPerMinute,
    tokenHistoryRateLimitPerMinute: config.tokenHistoryRateLimitPerMinute,
    tokenOhlcvRateLimitPerMinute: config.tokenOhlcvRateLimitPerMinute,
    keyPrefix: config.storePrefix,
    chainId: config.chainId,
    keys,
    memory: createReadMemory(now),
    describe: `store: ${storeLabelOf(store, config)}, upstream: ${config.dexscreenerBaseUrl}, discovery: ${config.geckoTerminalBaseUrl ?? 'off'}`,
  }
}
