/** One token as served by the read API (spec 2.1): exactly these 24 fields, in this order. */
export type Token = {
  rank: number
  address: string
  name: string
  symbol: string
  priceUsd: string | null
  priceChange5m: number | null
  priceChange1h: number | null
  priceChange6h: number | null
  priceChange24h: number | null
  volume1h: number
  volume6h: number
  volume24h: number
  liquidity: number
  marketCap: number
  fdv: number
  buys1h: number
  sells1h: number
  buys24h: number
  sells24h: number
  pairAddress: string | null
  pairCreatedAt: number | null
  pairUrl: string
  dexId: string
  pairName: string
}

/** The field names of {@link Token} in their contract order. */
export const TOKEN_FIELDS = [
  'rank', 'address', 'name', 'symbol', 'priceUsd',
  'priceChange5m', 'priceChange1h', 'priceChange6h', 'priceChange24h',
  'volume1h', 'volume6h', 'volume24h', 'liquidity', 'marketCap', 'fdv',
  'buys1h', 'sells1h', 'buys24h', 'sells24h',
  'pairAddress', 'pairCreatedAt', 'pairUrl', 'dexId', 'pairName',
] as const satisfies readonly (keyof Token)[]

/** Market statistics of a control-room snapshot (spec 2.2). */
export type Stats = {
  total: number
  safeCount: number
  totalVol1h: number
  ts: number
}

/** Body of `GET /api/control-room` (spec 2.3). */
export type ControlRoom = {
  liveActivity: Token[]
  trending: Token[]
  stats: Stats
  commentary: string
}

/** Body of `GET /api/token-search` (spec 2.4). */
export type TokenSearchResult = {
  tokens: Token[]
  total: number
  query: string
}

/** Liquidity in USD from which a token counts as "safe" (spec 8). */
export const SAFE_LIQUIDITY_USD = 50_000

/** Most tokens in a control-room snapshot (spec 8). */
export const CONTROL_ROOM_LIMIT = 100

/** Length of the trending list (spec 8). */
export const TRENDING_LENGTH = 15
