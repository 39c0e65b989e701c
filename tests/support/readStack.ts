import type { ControlRoom } from '../../lib/market/types.js'
import { systemClock } from '../../lib/platform/clock.js'
import { createLogger, type Logger } from '../../lib/platform/log.js'
import {
  createControlRoomEndpoint,
  createMarketHistoryEndpoint,
  createTokenHistoryEndpoint,
  createTokenOhlcvEndpoint,
  createTokenSearchEndpoint,
} from '../../lib/read/endpoint.js'
import { readKeys } from '../../lib/read/keys.js'
import { createReadServices, type ReadServices } from '../../lib/read/services.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import type { Store } from '../../lib/store/types.js'
import { createUpstashStore } from '../../lib/store/upstash.js'
import { createDexScreenerClient } from '../../lib/upstream/dexscreener.js'
import { createGeckoTerminalClient } from '../../lib/upstream/geckoterminal.js'
import { createSharedRequestBudget, DEXSCREENER_REQUESTS_PER_MINUTE } from '../../lib/upstream/sharedBudget.js'
import { type FakeDexScreener, startFakeDexScreener } from './fakeDexScreener.js'
import { type FakeGeckoTerminal, startFakeGeckoTerminal } from './fakeGeckoTerminal.js'
import { withOpenApiCheck } from './openapiCheck.js'
import { createSyntheticMarket, type RawPair } from './syntheticMarket.js'
import { startUpstashRestServer, type UpstashRestServer } from './upstashRestServer.js'

/** Which shared store a stack runs on. */
export type StoreKind = 'memory' | 'upstash'

/** One service instance: its own in-process cache, sharing the store and the upstream with its siblings. */
export type ReadInstance = {
  services: ReadServices
  controlRoom: (request: Request) => Promise<Response>
  tokenSearch: (request: Request) => Promise<Response>
  tokenHistory: (request: Request) => Promise<Response>
  marketHistory: (request: Request) => Promise<Response>
  tokenOhlcv: (request: Request) => Promise<Response>
  logs: string[]
  /** Waits for the work this instance runs after its answers (background refreshes), as `waitUntil` would. */
  drain(): Promise<void>
}

/** A read API over real local parts: the fake upstream, and the in-process store or Upstash over redis-server. */
export type ReadStack = {
  upstream: FakeDexScreener
  /** The GeckoTerminal-shaped server, when the stack was started `withGecko`. */
  gecko: FakeGeckoTerminal | null
  upstash: UpstashRestServer | null
  store: Store
  clock: { now: number }
  /** Another instance of the service (as on a second Vercel function instance) on the same store. */
  newInstance(options?: NewInstanceOptions): ReadInstance
  close(): Promise<void>
} & ReadInstance

/** Options of {@link ReadStack.newInstance}. */
export type NewInstanceOptions = {
  /** The instance's way to the stack's store (default: the store itself), e.g. one that holds reads (`heldReads.ts`). */
  store?: Store
  /** The instance's waits (default: real timers), e.g. one that tells the test an instance is waiting. */
  sleep?: (ms: number) => Promise<void>
}

/** Parameters of {@link startReadStack}. */
export type StartReadStackParameters = {
  storeKind: StoreKind
  redisSocket?: string
  requestTimeoutMs?: number
  /** The market both upstreams serve (default: the synthetic market with hub-named tokens). */
  market?: RawPair[]
  /** Also start a GeckoTerminal-shaped server over the same market and give it to the service. */
  withGecko?: boolean
  /** More environment for the service (e.g. SEARCH_RATE_LIMIT_PER_MINUTE). */
  env?: Record<string, string>
  /** The service-wide DexScreener budget per minute (default the service's 250). */
  dexscreenerPerMinute?: number
  /** The in-process store's entries expire on the stack's clock instead of the machine's (a week in a few seconds). */
  storeOnClock?: boolean
  /**
   * Anonymous lookups (searches, a token's pool) within their own share of that budget, as in production (default: the
   * refresh's client, with the whole budget).
   */
  searchShare?: boolean
  /** Most entries each instance's cache keeps of its own besides the hot bodies (default the service's). */
  cacheLocalEntriesMax?: number
}

let stackCounter = 0

/** Starts a read stack; every stack writes under its own key prefix, so files can share one redis-server. */
export async function startReadStack(parameters: StartReadStackParameters): Promise<ReadStack> {
  const market = parameters.market ?? createSyntheticMarket()
  const upstream = await startFakeDexScreener(market)
  const clock = { now: Date.now() }
  const gecko = parameters.withGecko ? await startFakeGeckoTerminal(market, { now: () => clock.now }) : null
  const upstash = parameters.storeKind === 'upstash' ? await startUpstashRestServer({ redisSocket: parameters.redisSocket! }) : null
  const store = upstash
    ? createUpstashStore({ url: upstash.url, token: upstash.token })
    : createMemoryStore(parameters.storeOnClock ? { now: () => clock.now } : {})
  const prefix = `test${process.pid}-${++stackCounter}-${Math.random().toString(36).slice(2, 8)}:`

  const newInstance = (options: NewInstanceOptions = {}): ReadInstance => {
    const instanceStore = options.store ?? store
    const logs: string[] = []
    const logger: Logger = createLogger({ write: (line) => logs.push(line) })
    const background: Promise<unknown>[] = []
    const whole = { key: readKeys(prefix).dexScreenerBudget, perMinute: parameters.dexscreenerPerMinute ?? DEXSCREENER_REQUESTS_PER_MINUTE }
    const searchUpstream = parameters.searchShare
      ? createDexScreenerClient({
          baseUrl: upstream.url,
          backoffBaseMs: 5,
          // Retries wait in real time: the fake upstreams answer in real time too.
          ...systemClock,
          admit: createSharedRequestBudget({
            store: instanceStore,
            key: readKeys(prefix).searchBudget,
            perMinute: Number(parameters.env?.SEARCH_UPSTREAM_REQUESTS_PER_MINUTE ?? 100),
            within: whole,
            logger,
            now: () => clock.now,
          }),
        })
      : undefined
    const services = createReadServices({
      searchUpstream,
      cacheLocalEntriesMax: parameters.cacheLocalEntriesMax,
      waitUntil: (promise) => {
        background.push(promise)
      },
      // Candle requests go to the GeckoTerminal-shaped server when there is one, and nowhere otherwise.
      env: { GECKOTERMINAL_BASE_URL: gecko?.url ?? '', ...parameters.env, STORE_KEY_PREFIX: prefix },
      store: instanceStore,
      logger,
      now: () => clock.now,
      sleep: options.sleep,
      upstream: createDexScreenerClient({
        baseUrl: upstream.url,
        backoffBaseMs: 5,
        requestTimeoutMs: parameters.requestTimeoutMs ?? 8000,
        ...systemClock,
        admit: createSharedRequestBudget({ store: instanceStore, ...whole, logger, now: () => clock.now }),
      }),
      gecko: gecko ? createGeckoTerminalClient({ baseUrl: gecko.url, backoffBaseMs: 5, maxRetryAfterMs: 0, ...systemClock }) : null,
    })
    return {
      services,
      logs,
      drain: async () => {
        while (background.length > 0) await Promise.allSettled(background.splice(0))
      },
      controlRoom: withOpenApiCheck(
        '/api/control-room',
        createControlRoomEndpoint(() => services),
      ),
      tokenSearch: withOpenApiCheck(
        '/api/token-search',
        createTokenSearchEndpoint(() => services),
      ),
      tokenHistory: withOpenApiCheck(
        '/api/token-history',
        createTokenHistoryEndpoint(() => services),
      ),
      marketHistory: withOpenApiCheck(
        '/api/market-history',
        createMarketHistoryEndpoint(() => services),
      ),
      tokenOhlcv: withOpenApiCheck(
        '/api/token-ohlcv',
        createTokenOhlcvEndpoint(() => services),
      ),
    }
  }

  return {
    ...newInstance(),
    upstream,
    gecko,
    upstash,
    store,
    clock,
    newInstance,
    close: async () => {
      await upstream.close()
      await gecko?.close()
      await upstash?.close()
    },
  }
}

/**
 * Reads the control room until a background refresh has landed (bounded: 2 s), and answers that fresh body. After
 * the 30 s window the first read answers the last body at once while the refresh runs behind it.
 */
export async function readUntilFresh(instance: Pick<ReadInstance, 'controlRoom' | 'drain'>): Promise<ControlRoom> {
  for (let i = 0; i < 3; i++) {
    const response = await instance.controlRoom(new Request('https://svc.test/api/control-room'))
    if (response.headers.get('x-data-state') === 'fresh') return (await response.json()) as ControlRoom
    await instance.drain()
  }
  throw new Error('the background refresh never landed')
}
