/**
 * Every shared-store key of the read side, in one place: the cached bodies, the history, the token universe, the
 * upstream budgets, GeckoTerminal's shared state and the client throttles. `prefix` is `STORE_KEY_PREFIX`.
 */

/** Cache key schema version; bump when a body's shape changes so old entries are never served. */
const BODY_VERSION = 'v2'

/** Store keys of the read side under `prefix`. */
const keysUnder = (prefix: string) => ({
  /** The cached control-room body. */
  controlRoom: `${prefix}${BODY_VERSION}:control-room`,
  /** The cached market-history body. */
  marketHistory: `${prefix}${BODY_VERSION}:market-history`,
  /** The cached launches feed: every launch it holds (`lib/launches/`), pages cut from it in memory. */
  launches: `${prefix}${BODY_VERSION}:launches`,
  /** The cached body of one launch with its powers and pool (`GET /api/launches/{address}`), by lower-case address. */
  launch: (address: string) => `${prefix}${BODY_VERSION}:launch:${address}`,
  /** The cached market-history body over 7 days. */
  marketHistoryWeek: `${prefix}${BODY_VERSION}:market-history:7d`,
  /** The cached token-history body of a lower-case address (over 24 hours). */
  tokenHistory: (address: string) => `${prefix}${BODY_VERSION}:token-history:${address}`,
  /** The cached token-history body of a lower-case address over 7 days. */
  tokenHistoryWeek: (address: string) => `${prefix}${BODY_VERSION}:token-history:7d:${address}`,
  /** The cached token-search body of a trimmed term. */
  tokenSearch: (query: string) => `${prefix}${BODY_VERSION}:token-search:${encodeURIComponent(query)}`,
  /** The cached token-ohlcv body of a checked request (`lib/market/ohlcvQuery.ts`). */
  tokenOhlcv: (address: string, request: string) => `${prefix}${BODY_VERSION}:token-ohlcv:${address}:${request}`,
  /** The candles kept of a token's pool, of one size and currency (`lib/market/candleSeries.ts`). */
  candleSeries: (address: string, series: string) => `${prefix}candles:v1:${address}:${series}`,
  /** The pool a token outside the top 100 is charted from, or that it has none (`lib/read/chartedPool.ts`). */
  chartedPool: (address: string) => `${prefix}candles:pool:v1:${address}`,
  /** The share of GeckoTerminal's minute that candle requests may spend. */
  geckoCandleBudget: `${prefix}gecko:calls:candles`,
  /** A token's 24 h price line (from candles). */
  priceLine: (address: string) => `${prefix}history:line:v1:${address.toLowerCase()}`,
  /** The top-100 snapshot taken at `t` (epoch ms, a multiple of 5 minutes; kept a week on a 30-minute mark, else a day). */
  snapshot: (t: number) => `${prefix}history:v1:${t}`,
  /** Every Base token seen lately, with its volume. */
  universe: `${prefix}v1:universe`,
  /** DexScreener's rolling minute, shared by every instance. */
  dexScreenerBudget: `${prefix}budget:dexscreener`,
  /** The share of that minute that searches may spend. */
  searchBudget: `${prefix}budget:dexscreener:search`,
  /** GeckoTerminal's rolling minute. */
  geckoCalls: `${prefix}gecko:calls`,
  /** Present while every instance leaves GeckoTerminal alone after a 429. */
  geckoBackoff: `${prefix}gecko:backoff`,
  /** Present while the last discovery failed. */
  geckoFailing: `${prefix}gecko:failing`,
  /** The last discovery's claim, present for 5 minutes. */
  geckoDiscovery: `${prefix}gecko:discovery`,
  /** A client's throttle on one endpoint (`client` is an address, or an IPv6 /64). */
  throttle: (endpoint: string, client: string) => `${prefix}throttle:${endpoint}:${client}`,
})

/** Store keys of the read side under `prefix` (the read services build them once, as `ReadServices.keys`). */
export const readKeys = (prefix: string): ReadKeys => keysUnder(prefix)

/** The store keys of the read side. */
export type ReadKeys = ReturnType<typeof keysUnder>

/**
 * Store key of a launch's market as its own pool tells it (lib/market/chainMarketState.ts): written by the launches'
 * tick job (lib/launches/swapFollow.ts), read by token-ohlcv and the launches feed. It keeps the `deploy:` words it was
 * first written under, so what a running service stored is read on.
 */
export const chainMarketKey = (storePrefix: string, chainId: number, token: string) =>
  `${storePrefix}deploy:${chainId}:chain-market:${token.toLowerCase()}`
