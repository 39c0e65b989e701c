import { z } from 'zod'
import {
  checkStorePairs,
  type Environment,
  httpUrl,
  optional,
  parseWith,
  storeConfig,
  storeFields,
  wholeNumber,
} from '../platform/config.js'

// The read side's settings: the upstreams, the per-client limits, the shared store.

/** Configuration of the read endpoints. */
export type ReadConfig = {
  dexscreenerBaseUrl: string
  /** GeckoTerminal API root (discovery and failover), or null when set to empty (off). */
  geckoTerminalBaseUrl: string | null
  /** Up to what age the last good body is served when a refresh is due or failing. */
  staleIfErrorSeconds: number
  /** `token-search` requests a client may make per minute before 429. */
  searchRateLimitPerMinute: number
  /** DexScreener requests a minute that anonymous searches may take, service-wide, of the 250 (the rest is the refresh's). */
  searchUpstreamRequestsPerMinute: number
  /** `token-history` requests a client may make per minute before 429. */
  tokenHistoryRateLimitPerMinute: number
  /** `token-ohlcv` requests a client may make per minute before 429. */
  tokenOhlcvRateLimitPerMinute: number
  /** GeckoTerminal calls a minute that candle requests may take, service-wide, of its 30 (discovery and failover keep the rest). */
  ohlcvUpstreamRequestsPerMinute: number
  /** Upstash REST endpoint and token, or null for the in-process store. */
  redis: { url: string; token: string } | null
  /** Prefix of every key this service writes to the shared store. */
  storePrefix: string
  /** The chain launches are recorded under (`CHAIN_ID`, read as the deploy side reads it): where their pools' candles are kept. */
  chainId: 8453 | 84532
}

const readSchema = z.object({
  DEXSCREENER_BASE_URL: optional(httpUrl).default('https://api.dexscreener.com'),
  // Unset: the public API; set to empty: no GeckoTerminal (discovery and failover off).
  GECKOTERMINAL_BASE_URL: z.union([z.literal(''), httpUrl]).optional(),
  STALE_IF_ERROR_SECONDS: optional(wholeNumber(0)).default(600),
  SEARCH_RATE_LIMIT_PER_MINUTE: optional(wholeNumber(1)).default(30),
  SEARCH_UPSTREAM_REQUESTS_PER_MINUTE: optional(wholeNumber(1).max(200, 'must be at most 200 (the refresh needs the rest of 250)')).default(
    100,
  ),
  TOKEN_HISTORY_RATE_LIMIT_PER_MINUTE: optional(wholeNumber(1)).default(60),
  TOKEN_OHLCV_RATE_LIMIT_PER_MINUTE: optional(wholeNumber(1)).default(60),
  OHLCV_UPSTREAM_REQUESTS_PER_MINUTE: optional(
    wholeNumber(1).max(20, 'must be at most 20 (discovery and the failover need the rest of GeckoTerminal’s 30)'),
  ).default(10),
  CHAIN_ID: optional(z.enum(['8453', '84532'], { error: 'must be 8453 (Base) or 84532 (Base Sepolia, staging)' })).default('8453'),
  ...storeFields,
})

/** Parses the read endpoints' configuration from the environment; throws {@link ConfigError} with every problem. */
export function loadReadConfig(env: Environment = process.env): ReadConfig {
  const parsed = parseWith(readSchema, env, 'read API', [checkStorePairs])
  // A proxy in front of an upstream may carry its key in the URL.
  return {
    dexscreenerBaseUrl: parsed.DEXSCREENER_BASE_URL,
    geckoTerminalBaseUrl:
      parsed.GECKOTERMINAL_BASE_URL === undefined
        ? 'https://api.geckoterminal.com/api/v2'
        : parsed.GECKOTERMINAL_BASE_URL.trim() === ''
          ? null
          : parsed.GECKOTERMINAL_BASE_URL.trim(),
    staleIfErrorSeconds: parsed.STALE_IF_ERROR_SECONDS,
    searchRateLimitPerMinute: parsed.SEARCH_RATE_LIMIT_PER_MINUTE,
    searchUpstreamRequestsPerMinute: parsed.SEARCH_UPSTREAM_REQUESTS_PER_MINUTE,
    tokenHistoryRateLimitPerMinute: parsed.TOKEN_HISTORY_RATE_LIMIT_PER_MINUTE,
    tokenOhlcvRateLimitPerMinute: parsed.TOKEN_OHLCV_RATE_LIMIT_PER_MINUTE,
    ohlcvUpstreamRequestsPerMinute: parsed.OHLCV_UPSTREAM_REQUESTS_PER_MINUTE,
    redis: storeConfig(parsed),
    storePrefix: parsed.STORE_KEY_PREFIX,
    chainId: Number(parsed.CHAIN_ID) as 8453 | 84532,
  }
}
