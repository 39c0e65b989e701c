import { z } from 'zod'
import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { OHLCV_DEFAULT_LIMIT, parseOhlcvQuery } from '../market/ohlcvQuery.js'
import { tokenOhlcvSchema } from '../market/types.js'
import {
  cachedReadHeaders,
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
import { createCachedReadEndpoint, invalidParameter, type ReadEndpointOptions } from './cachedReadEndpoint.js'
import type { ReadServices } from './services.js'
import { readTokenOhlcv } from './tokenOhlcv.js'

/** The `GET /api/token-ohlcv` endpoint over the given services: a token's candles in GeckoTerminal's terms. */
export function createTokenOhlcvEndpoint(services: () => ReadServices, options: ReadEndpointOptions = {}) {
  return createCachedReadEndpoint({
    ...options,
    name: 'token_ohlcv',
    services,
    rateLimitPerMinute: (ctx) => ctx.tokenOhlcvRateLimitPerMinute,
    rateLimitPolicy: 'ohlcv',
    budgetSpentIs429: true,
    parseInput: (request) => {
      const parsed = parseOhlcvQuery(new URL(request.url).searchParams)
      return parsed.ok ? { ok: true, input: parsed.query } : invalidParameter(parsed.problem)
    },
    read: (ctx, query) => readTokenOhlcv(ctx, query),
    upstreamFailure: {
      status: 502,
      code: 'UPSTREAM_ERROR',
      message: 'GeckoTerminal, where the candles come from, answered with an error; try again shortly.',
    },
  })
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
export const tokenOhlcvRoute: ZodOpenApiPathItemObject = {
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
