import { z } from 'zod'

const usd = (what: string) => z.number().min(0).describe(`${what} in USD (0 when unknown)`)
const change = (window: string) => z.number().nullable().describe(`Price change in percent over ${window}; null when unknown`)
const count = (what: string) => z.number().int().min(0).describe(what)

/** One token as served by the read API (`docs/api.md`, `GET /api/control-room`): exactly these 24 fields, in this order. */
export const tokenSchema = z
  .object({
    rank: z.number().int().min(1).describe('Position, 1 first, by 24h volume'),
    address: z
      .string()
      .regex(/^0x[0-9a-f]{40}$/)
      .describe('Token contract address, lower-case'),
    name: z.string().describe('Token name from the upstream; untrusted text (sanitised, at most 64 characters)'),
    symbol: z.string().describe('Ticker from the upstream; untrusted text (sanitised, at most 24 characters)'),
    priceUsd: z.string().nullable().describe('Price in USD as a decimal string, exactly as the upstream sent it; null when unknown'),
    priceChange5m: change('5 minutes'),
    priceChange1h: change('1 hour'),
    priceChange6h: change('6 hours'),
    priceChange24h: change('24 hours'),
    volume1h: usd('Trading volume over the last hour'),
    volume6h: usd('Trading volume over the last 6 hours'),
    volume24h: usd('Trading volume over the last 24 hours'),
    liquidity: usd('Pool liquidity'),
    marketCap: usd('Market cap, falling back to fdv'),
    fdv: usd('Fully diluted valuation'),
    buys1h: count('Buy transactions, last hour'),
    sells1h: count('Sell transactions, last hour'),
    buys24h: count('Buy transactions, last 24 hours'),
    sells24h: count('Sell transactions, last 24 hours'),
    pairAddress: z
      .string()
      .regex(/^0x(?:[0-9a-f]{40}|[0-9a-f]{64})$/)
      .nullable()
      .describe("The pool, lower-case: a 20-byte pair address, or a Uniswap v4 pool's 32-byte id; null when unknown"),
    pairCreatedAt: z.number().int().nullable().describe('Pair creation time, Unix epoch milliseconds; null when unknown'),
    pairUrl: z.string().describe('Page of the pair on the aggregator that served it (dexscreener.com or geckoterminal.com)'),
    dexId: z
      .string()
      .describe("Identifier of the exchange, in DexScreener's vocabulary whichever source served the row (uniswap, aerodrome, …)"),
    pairName: z.string().describe('BASE_SYMBOL/QUOTE_SYMBOL'),
  })
  .describe('A Base token, described by its Base pair in which it is the base token')

/** One token as served by the read API (`docs/api.md`, `GET /api/control-room`). */
export type Token = z.infer<typeof tokenSchema>

/** The field names of {@link Token} in their contract order. */
export const TOKEN_FIELDS = Object.keys(tokenSchema.shape) as (keyof Token)[]

/** Market statistics of a control-room snapshot (`docs/api.md`, `GET /api/control-room`). */
export const statsSchema = z.object({
  total: z.number().int().min(0).max(100).describe('Number of tokens returned'),
  safeCount: z.number().int().min(0).describe('Tokens with liquidity of at least 50,000 USD'),
  totalVol1h: z.number().min(0).describe('Sum of 1h volume over the returned tokens, USD, rounded to the cent'),
  ts: z.number().int().describe('When the data was fetched, Unix epoch milliseconds'),
})

/** Market statistics of a control-room snapshot (`docs/api.md`, `GET /api/control-room`). */
export type Stats = z.infer<typeof statsSchema>

/** Body of `GET /api/control-room` (`docs/api.md`). */
export const controlRoomSchema = z.object({
  liveActivity: z.array(tokenSchema).max(100).describe('Up to 100 Base tokens by 24h volume, rank 1 first'),
  trending: z.array(tokenSchema).max(15).describe('The first 15 of liveActivity'),
  stats: statsSchema,
  commentary: z.string().describe('2-4 sentences generated from these figures alone'),
})

/** Body of `GET /api/control-room` (`docs/api.md`). */
export type ControlRoom = z.infer<typeof controlRoomSchema>

/** Body of `GET /api/token-search` (`docs/api.md`). */
export const tokenSearchResultSchema = z.object({
  tokens: z.array(tokenSchema).describe('Matching Base pairs by 24h volume; rank is the position'),
  total: z.number().int().min(0).describe('Number of results'),
  query: z.string().describe('The search term used (trimmed)'),
})

/** Body of `GET /api/token-search` (`docs/api.md`). */
export type TokenSearchResult = z.infer<typeof tokenSearchResultSchema>

/** Liquidity in USD from which a token counts as "safe" (`docs/api.md`). */
export const SAFE_LIQUIDITY_USD = 50_000

/** Most tokens in a control-room snapshot (`docs/api.md`). */
export const CONTROL_ROOM_LIMIT = 100

/** Length of the trending list (`docs/api.md`). */
export const TRENDING_LENGTH = 15

/** Body of `GET /api/token-history`: a token's last 24 hours in the top 100 at 5-minute resolution (7 days at 30, hourly where only candles know it), oldest first. */
export const tokenHistorySchema = z.object({
  address: z
    .string()
    .regex(/^0x[0-9a-f]{40}$/)
    .describe('The token, lower-case'),
  intervalSeconds: z.number().int().describe('Point resolution: 300 (range 24h) or 1800 (range 7d)'),
  points: z
    .array(
      z.object({
        t: z.string().describe('The 5-minute mark (30-minute for range 7d), ISO 8601'),
        priceUsd: z.number().nullable(),
        volume24h: z.number().nullable().describe('Null at a mark known only from a price candle'),
        liquidityUsd: z.number().nullable().describe('Null at a mark known only from a price candle'),
        rank: z.number().int().min(1).nullable().describe('Null at a mark known only from a price candle'),
      }),
    )
    .describe(
      'The marks at which the token was in the top 100 (every field), and at other marks its pool’s candles (price only; other fields null): the 5-minute candles of its price line, and with range 7d, for a token the control room lists, the hourly candles at the hours no snapshot or price line holds',
    ),
})

/** Body of `GET /api/token-history`. */
export type TokenHistory = z.infer<typeof tokenHistorySchema>

/** Body of `GET /api/market-history`: the top 100's last 24 hours (or 7 days) in one answer (the dashboard's charts). */
export const marketHistorySchema = z.object({
  volume: z
    .object({
      intervalSeconds: z.number().int().describe('Resolution: 300 (range 24h) or 1800 (range 7d)'),
      points: z
        .array(
          z.object({
            t: z.string().describe('The 5-minute mark (30-minute for range 7d), ISO 8601'),
            totalVolume24h: z.number().min(0).describe('Sum of the 24h volume of the top 100 at that mark, USD'),
            tokens: z.number().int().min(0).describe('Tokens in that snapshot'),
          }),
        )
        .describe('Every mark held in the range, oldest first'),
    })
    .describe('Total 24h volume of the top 100 over time'),
  sparklines: z
    .object({
      intervalSeconds: z.number().int().describe('Slot length: 1800 (range 24h) or 10800 (range 7d)'),
      times: z
        .array(z.string())
        .describe('Start of each of the 48 slots (56 for range 7d), ISO 8601, oldest first; empty before the first snapshot'),
      prices: z
        .record(z.string(), z.array(z.number().nullable()))
        .describe(
          "For each token of the latest snapshot (lower-case address): its last price in each slot, 4 significant digits, from the snapshots and, where they have none, its pool's candles (the last close carried through slots without trades); null where neither knows a price",
        ),
    })
    .describe('A 24 h price line per current top-100 token'),
})

/** Body of `GET /api/market-history`. */
export type MarketHistoryBody = z.infer<typeof marketHistorySchema>

/** A token of a pool as GeckoTerminal's OHLCV `meta` names it: untrusted text, made safe to show. */
const ohlcvTokenSchema = z
  .object({
    address: z
      .string()
      .regex(/^0x[0-9a-f]{40}$/)
      .nullable()
      .describe('The token, lower-case; null when GeckoTerminal did not say'),
    name: z.string().nullable().describe('Untrusted text (sanitised, at most 64 characters)'),
    symbol: z.string().nullable().describe('Untrusted text (sanitised, at most 24 characters)'),
  })
  .nullable()

/** Body of `GET /api/token-ohlcv`: a token's candles, in GeckoTerminal's terms (`docs/api.md`). */
export const tokenOhlcvSchema = z.object({
  address: z
    .string()
    .regex(/^0x[0-9a-f]{40}$/)
    .describe('The token, lower-case'),
  pairAddress: z
    .string()
    .regex(/^0x(?:[0-9a-f]{40}|[0-9a-f]{64})$/)
    .describe(
      'The pool the candles are of: the token’s pair in the control room while it is in the top 100, else its most liquid Base pool in which it is the base token (a Uniswap v4 pool’s 32-byte id included)',
    ),
  dexId: z.string().describe('The pool’s exchange, in DexScreener’s vocabulary'),
  timeframe: z.enum(['minute', 'hour', 'day']),
  aggregate: z.number().int().describe('Candle length in timeframes: minute 1/5/15, hour 1/4/12, day 1'),
  currency: z.enum(['usd', 'token']).describe('usd: prices and volume in US dollars; token: in the pool’s quote token'),
  ohlcv: z
    .array(
      z
        .tuple([
          z.number().int().describe('Start of the candle, epoch seconds'),
          z.number().describe('Open'),
          z.number().describe('High'),
          z.number().describe('Low'),
          z.number().describe('Close'),
          z.number().describe('Volume of this candle'),
        ])
        .describe('[t, open, high, low, close, volume]')
        // Six numbers (maxItems 6): linters ask every array schema to say what its items are.
        .meta({
          override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
            jsonSchema.items = { type: 'number' }
          },
        }),
    )
    .describe(
      'Newest first, one row per t; an interval in which nobody traded has no row (a gap, as GeckoTerminal sends it: nothing is invented)',
    ),
  meta: z
    .object({
      base: ohlcvTokenSchema,
      quote: ohlcvTokenSchema,
      pool: z
        .object({
          priceEth: z.string().describe('ETH per whole token: the pool’s slot0 (StateView) or its last swap, 18 significant digits'),
          priceUsd: z.string().nullable().describe('priceEth times WETH’s price in the control room now; null when unknown'),
          liquidity: z
            .number()
            .nullable()
            .describe(
              'The pool’s in-range liquidity L as StateView’s getLiquidity said it (Uniswap’s unit, not USD; 0 at birth); null: not read',
            ),
          marketCapEth: z.string().nullable().describe('ETH the whole supply is worth at priceEth; null when the supply is unknown'),
        })
        .optional()
        .describe(
          'A token launched here with a pool, charted from its own pool (dexId uniswap, before the aggregators have it): the pool as the service read it from the chain, from the block it was born in (then ohlcv may be empty: no trade yet)',
        ),
    })
    .describe('The pool’s two tokens as GeckoTerminal names them'),
})

/** Body of `GET /api/token-ohlcv`. */
export type TokenOhlcv = z.infer<typeof tokenOhlcvSchema>
