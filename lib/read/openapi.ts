import { z } from 'zod'
import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { OHLCV_DEFAULT_LIMIT } from '../market/ohlcvQuery.js'
import { QUERY_MAX_LENGTH } from '../market/search.js'
import { controlRoomSchema, marketHistorySchema, tokenHistorySchema, tokenOhlcvSchema, tokenSearchResultSchema } from '../market/types.js'
import {
  cachedReadHeaders,
  corsHeaders,
  errorAnswer,
  ifNoneMatchParameter,
  jsonAnswer,
  notAllowedAnswer,
  notModifiedAnswer,
  preflightOperation,
  quotaHeaders,
  redirectAnswer,
  retryAfterHeaders,
} from '../platform/routeDocs.js'
import { GECKO_OHLCV_LIMIT_MAX } from '../upstream/geckoOhlcv.js'
import { ADDRESS_PATTERN } from './endpoint.js'

// The read endpoints as the OpenAPI document declares them (lib/docs/openapiDocument.ts assembles the document).

/** The `range` of the history endpoints, as the OpenAPI document declares it. */
const rangeParameter = z
  .enum(['24h', '7d'])
  .default('24h')
  .optional()
  .describe('24h: every 5 minutes over the last day (the default); 7d: every 30 minutes over the last week')

/** The history endpoints' answer when the store, where the history lives, cannot be read. */
const storeOutageAnswer = {
  ...errorAnswer('The shared store (Redis), where the history lives, cannot be read (STORE_UNAVAILABLE): retry after Retry-After'),
  headers: retryAfterHeaders,
}

/** `GET /api/control-room`, as the OpenAPI document declares it. */
export const controlRoomOpenApi: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getControlRoom',
    summary: 'Top 100 Base tokens by 24h volume, the top 15 as trending, stats and commentary (cached 30 s)',
    description:
      'The top 100 Base tokens by 24h volume (liveActivity), the first 15 (trending), market stats and a generated commentary. Cached server-side for 30 s: calls within the window get the same body; after it the last body is answered at once (X-Data-State: stale) while one refresh runs. X-Data-Age is the data age in seconds; X-Data-Source says when the GeckoTerminal failover built it.',
    parameters: [ifNoneMatchParameter],
    responses: {
      '308': redirectAnswer,
      '200': { ...jsonAnswer(controlRoomSchema, 'The control room'), headers: cachedReadHeaders },
      '304': notModifiedAnswer,
      '405': notAllowedAnswer,
      '500': {
        ...errorAnswer(
          'Both upstreams are unavailable and no body younger than STALE_IF_ERROR_SECONDS is cached (UPSTREAM_UNAVAILABLE), or the service is misconfigured (CONFIG_INVALID)',
        ),
        headers: corsHeaders,
      },
    },
  },
  options: preflightOperation,
}

/** `GET /api/token-search`, as the OpenAPI document declares it. */
export const tokenSearchOpenApi: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'searchTokens',
    summary: 'Base pairs whose base token symbol or name contains q, by 24h volume (cached 30 s)',
    description:
      'Base pairs whose base token symbol or name contains q (case-insensitive; a full 0x address matches the token address), sorted by 24h volume. Each client may search SEARCH_RATE_LIMIT_PER_MINUTE times a minute.',
    requestParams: { query: z.object({ q: z.string().min(1).max(QUERY_MAX_LENGTH).describe('Symbol, name or 0x address; trimmed') }) },
    parameters: [ifNoneMatchParameter],
    responses: {
      '308': redirectAnswer,
      '200': {
        ...jsonAnswer(tokenSearchResultSchema, 'Matching pairs'),
        headers: { ...cachedReadHeaders, ...quotaHeaders('search', 'SEARCH_RATE_LIMIT_PER_MINUTE') },
      },
      '304': notModifiedAnswer,
      '400': errorAnswer(`q is missing, blank (QUERY_REQUIRED) or longer than ${QUERY_MAX_LENGTH} characters (QUERY_TOO_LONG)`),
      '405': notAllowedAnswer,
      '500': errorAnswer('Unexpected failure'),
      '429': {
        ...errorAnswer(
          'Too many searches from this client (SEARCH_RATE_LIMIT_PER_MINUTE a minute; an IPv6 client is its /64), or the searches’ share of the service-wide upstream budget (SEARCH_UPSTREAM_REQUESTS_PER_MINUTE) is spent and the term is not cached (RATE_LIMITED)',
        ),
        headers: { ...retryAfterHeaders, ...quotaHeaders('search', 'SEARCH_RATE_LIMIT_PER_MINUTE') },
      },
      '502': { ...errorAnswer('The upstream answered with an error (UPSTREAM_ERROR)'), headers: retryAfterHeaders },
    },
  },
  options: preflightOperation,
}

/** `GET /api/token-history`, as the OpenAPI document declares it. */
export const tokenHistoryOpenApi: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getTokenHistory',
    summary:
      'A token’s last 24 h (or 7 d) in the top 100 (price, 24h volume, liquidity, rank) at 5-minute (30-minute) resolution, oldest first, from the service’s own snapshots and before them its pool’s candles (cached 30 s)',
    description:
      'One token’s points, oldest first: every 5 minutes over the last 24 hours, or with range=7d every 30 minutes over the last 7 days (intervalSeconds says which). Every field at the marks where the service’s own snapshots of the top 100 hold it; elsewhere the price alone (volume24h, liquidityUsd and rank null) from its pool’s candles: the 5-minute closes of its price line, and with range=7d, for a token the control room lists, the hourly closes of its pool at the hours neither holds (a point on each hour with trades). A mark none of them knows is absent.',
    requestParams: {
      query: z.object({
        address: z.string().regex(ADDRESS_PATTERN).describe('The token, 0x + 40 hex (any case)'),
        range: rangeParameter,
      }),
    },
    parameters: [ifNoneMatchParameter],
    responses: {
      '308': redirectAnswer,
      '200': {
        ...jsonAnswer(tokenHistorySchema, 'The series'),
        headers: { ...cachedReadHeaders, ...quotaHeaders('history', 'TOKEN_HISTORY_RATE_LIMIT_PER_MINUTE') },
      },
      '304': notModifiedAnswer,
      '400': errorAnswer(
        'address is missing or not a 20-byte hex address (INVALID_ADDRESS), or range is not 24h or 7d (INVALID_PARAMETER)',
      ),
      '404': errorAnswer(
        'Neither a snapshot, the price line nor (range 7d, a token the control room lists) its pool’s hourly candles hold this token in the range (UNKNOWN_TOKEN); remembered for 30 s',
      ),
      '405': notAllowedAnswer,
      '429': {
        ...errorAnswer('Too many requests from this client (TOKEN_HISTORY_RATE_LIMIT_PER_MINUTE a minute) (RATE_LIMITED)'),
        headers: { ...retryAfterHeaders, ...quotaHeaders('history', 'TOKEN_HISTORY_RATE_LIMIT_PER_MINUTE') },
      },
      '500': errorAnswer('Unexpected failure (INTERNAL, CONFIG_INVALID)'),
      '503': storeOutageAnswer,
    },
  },
  options: preflightOperation,
}

/** `GET /api/market-history`, as the OpenAPI document declares it. */
export const marketHistoryOpenApi: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getMarketHistory',
    summary:
      'The top 100’s last 24 h (or 7 d) in one answer: total 24h volume every 5 (30) minutes, and a price line of 48 half-hour (56 three-hour) slots per current top-100 token (cached 30 s); empty before the first snapshot',
    description:
      'Everything a dashboard’s charts need in one request: the summed 24h volume of the top 100 at every 5-minute mark, and a 48-slot price line per token of the latest snapshot (null where it was not listed). With range=7d: every 30-minute mark of the last 7 days, and 56 slots of 3 hours.',
    requestParams: { query: z.object({ range: rangeParameter }) },
    parameters: [ifNoneMatchParameter],
    responses: {
      '308': redirectAnswer,
      '200': { ...jsonAnswer(marketHistorySchema, 'The series'), headers: cachedReadHeaders },
      '304': notModifiedAnswer,
      '400': errorAnswer('range is not 24h or 7d (INVALID_PARAMETER)'),
      '405': notAllowedAnswer,
      '500': errorAnswer('Unexpected failure (INTERNAL, CONFIG_INVALID)'),
      '503': storeOutageAnswer,
    },
  },
  options: preflightOperation,
}

/** The query of `GET /api/token-ohlcv`, as the OpenAPI document declares it (the handler's rules are `parseOhlcvQuery`). */
const ohlcvQuerySchema = z.object({
  address: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/)
    .describe('The token, 0x + 40 hex (any case)'),
  timeframe: z.enum(['minute', 'hour', 'day']).default('hour').optional(),
  aggregate: z.enum(['1', '4', '5', '12', '15']).default('1').optional().describe('minute: 1, 5 or 15; hour: 1, 4 or 12; day: 1'),
  before_timestamp: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/)
    .optional()
    .describe('Epoch seconds: only candles that start before it (the next page: the oldest t of the last one)'),
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,3}$/)
    .default(String(OHLCV_DEFAULT_LIMIT))
    .optional()
    .describe(`Candles, 1-${GECKO_OHLCV_LIMIT_MAX}`),
  currency: z.enum(['usd', 'token']).default('usd').optional(),
})

/** `GET /api/token-ohlcv`, as the OpenAPI document declares it. */
export const tokenOhlcvOpenApi: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getTokenOhlcv',
    summary: 'A Base token’s candles, in GeckoTerminal’s terms, from its pool (free: GeckoTerminal’s token-level candles are paid)',
    description:
      'Candles of the token’s pool: its pair in the control room while it is in the top 100, else its most liquid Base pool in which it is the base token (Uniswap v4 pools included). Rows are [t, open, high, low, close, volume], newest first, one per t; an interval without trades has no row. An answer that may hold the candle still open is cached 30 s, one of closed candles only an hour; each client may ask TOKEN_OHLCV_RATE_LIMIT_PER_MINUTE times a minute.',
    requestParams: { query: ohlcvQuerySchema },
    parameters: [ifNoneMatchParameter],
    responses: {
      '308': redirectAnswer,
      '200': {
        ...jsonAnswer(tokenOhlcvSchema, 'The candles'),
        headers: { ...cachedReadHeaders, ...quotaHeaders('ohlcv', 'TOKEN_OHLCV_RATE_LIMIT_PER_MINUTE') },
      },
      '304': notModifiedAnswer,
      '400': errorAnswer('A parameter is wrong (INVALID_PARAMETER); `field` names it'),
      '404': errorAnswer('No Base pool is known in which the token is the base token (UNKNOWN_TOKEN); remembered 10 minutes'),
      '405': notAllowedAnswer,
      '429': {
        ...errorAnswer(
          'Too many requests from this client (TOKEN_OHLCV_RATE_LIMIT_PER_MINUTE a minute), or the candle requests’ share of GeckoTerminal’s 30 calls a minute (OHLCV_UPSTREAM_REQUESTS_PER_MINUTE) is spent and the answer is not cached (RATE_LIMITED)',
        ),
        headers: { ...retryAfterHeaders, ...quotaHeaders('ohlcv', 'TOKEN_OHLCV_RATE_LIMIT_PER_MINUTE') },
      },
      '500': errorAnswer('Unexpected failure (INTERNAL, CONFIG_INVALID)'),
      '502': { ...errorAnswer('GeckoTerminal answered with an error (UPSTREAM_ERROR)'), headers: retryAfterHeaders },
    },
  },
  options: preflightOperation,
}
