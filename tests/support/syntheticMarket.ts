import { roughenPair } from './realShapes.js'

/** A raw DexScreener pair as the upstream serves it (loosely typed on purpose: tests also send malformed ones). */
export type RawPair = Record<string, unknown> & {
  chainId: string
  baseToken: { address: string; name: string; symbol: string }
  quoteToken: { address: string; name: string; symbol: string }
}

/** A deterministic pseudo-random generator (mulberry32), so every run sees the same market. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const hex = (random: () => number, bytes: number) =>
  Array.from({ length: bytes }, () =>
    Math.floor(random() * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('')

/** Upper-cases some letters the way checksummed addresses look (not a real EIP-55 checksum; only the case varies). */
export const mixCase = (address: string): string => `0x${[...address.slice(2)].map((c, i) => (i % 3 === 0 ? c.toUpperCase() : c)).join('')}`

/** Parameters of {@link makePair}. */
export type MakePairParameters = {
  chainId?: string
  base: { address: string; name: string; symbol: string }
  quote: { address: string; name: string; symbol: string }
  pairAddress: string
  priceUsd?: string | null
  volume24h: number
  liquidityUsd?: number
  priceChange24h?: number
  dexId?: string
  createdAt?: number
}

/** One well-formed DexScreener pair. */
export function makePair(p: MakePairParameters): RawPair {
  const v = p.volume24h
  return {
    chainId: p.chainId ?? 'base',
    dexId: p.dexId ?? 'uniswap',
    url: `https://dexscreener.com/${p.chainId ?? 'base'}/${p.pairAddress}`,
    pairAddress: p.pairAddress,
    labels: ['v3'],
    baseToken: p.base,
    quoteToken: p.quote,
    priceNative: '0.0001',
    priceUsd: p.priceUsd === undefined ? '1.2345' : p.priceUsd,
    txns: {
      m5: { buys: 1, sells: 1 },
      h1: { buys: Math.round(v / 5000) + 1, sells: Math.round(v / 6000) + 1 },
      h6: { buys: Math.round(v / 1000) + 2, sells: Math.round(v / 1100) + 2 },
      h24: { buys: Math.round(v / 250) + 3, sells: Math.round(v / 260) + 3 },
    },
    volume: { m5: v / 300, h1: v / 24, h6: v / 4, h24: v },
    priceChange: { m5: 0.1, h1: 0.5, h6: -1.2, h24: p.priceChange24h ?? 3.4 },
    liquidity: { usd: p.liquidityUsd ?? v / 3, base: 1000, quote: 1000 },
    fdv: v * 10,
    marketCap: v * 8,
    pairCreatedAt: p.createdAt ?? 1_700_000_000_000,
    info: { imageUrl: 'https://example.invalid/x.png', websites: [], socials: [] },
  }
}

/** Well-known Base assets (real addresses, as the upstream sends them: checksummed). */
export const HUBS = {
  WETH: { address: '0x4200000000000000000000000000000000000006', name: 'Wrapped Ether', symbol: 'WETH' },
  USDC: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', symbol: 'USDC' },
  cbBTC: { address: '0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf', name: 'Coinbase Wrapped BTC', symbol: 'cbBTC' },
  AERO: { address: '0x940181a94A35A4569E4529A3CDfB74e38FD98631', name: 'Aerodrome Finance', symbol: 'AERO' },
} as const

const WORDS = ['Base', 'Based', 'Clanker', 'Toshi', 'Brett', 'Degen', 'Virtual', 'Zora', 'Blue', 'Onchain', 'Moon', 'Frog']

/** Parameters of {@link createSyntheticMarket}. */
export type CreateSyntheticMarketParameters = {
  tokens?: number
  seed?: number
  /** Every field present and every pool a 20-byte address, as no real body is (default false: the real shapes). */
  tidy?: boolean
}

const HUB_ADDRESSES = new Set(Object.values(HUBS).map((h) => h.address.toLowerCase()))

/**
 * Gives generated pairs the shapes real DexScreener bodies have, in their real shares (tests/support/realShapes.ts):
 * missing windows and fields, and Uniswap v4 pools with 32-byte ids among the young tokens' pairs. The hubs' own
 * deep pools keep every field.
 */
function withRealShapes(pairs: RawPair[], tidy: boolean): RawPair[] {
  if (tidy) return pairs
  return pairs.map((pair) => {
    const hubBase = HUB_ADDRESSES.has(pair.baseToken.address.toLowerCase())
    if (hubBase && HUB_ADDRESSES.has(pair.quoteToken.address.toLowerCase())) return pair
    return roughenPair(pair, { mayBeV4: !hubBase && pair.chainId === 'base' })
  })
}

/**
 * A realistic synthetic Base market: hub assets plus `tokens` generated tokens, each with one to three pairs against
 * WETH or USDC (one of them on the quote side of a hub pair), some pairs on other chains, checksummed addresses, and
 * the real bodies' missing fields and v4 pool ids unless `tidy`.
 */
export function createSyntheticMarket(parameters: CreateSyntheticMarketParameters = {}): RawPair[] {
  const { tokens = 160, seed = 8453, tidy = false } = parameters
  const random = seededRandom(seed)
  const pairs: RawPair[] = [
    makePair({
      base: HUBS.WETH,
      quote: HUBS.USDC,
      pairAddress: `0x${hex(random, 20)}`,
      volume24h: 180_000_000,
      liquidityUsd: 40_000_000,
      priceUsd: '3120.55',
      priceChange24h: 1.8,
      dexId: 'aerodrome',
    }),
    makePair({
      base: HUBS.cbBTC,
      quote: HUBS.USDC,
      pairAddress: `0x${hex(random, 20)}`,
      volume24h: 95_000_000,
      liquidityUsd: 30_000_000,
      priceUsd: '97250.1',
      priceChange24h: -0.7,
    }),
    makePair({
      base: HUBS.AERO,
      quote: HUBS.WETH,
      pairAddress: `0x${hex(random, 20)}`,
      volume24h: 21_000_000,
      liquidityUsd: 9_000_000,
      priceUsd: '1.42',
      priceChange24h: 6.2,
      dexId: 'aerodrome',
    }),
    makePair({
      base: HUBS.USDC,
      quote: HUBS.WETH,
      pairAddress: `0x${hex(random, 20)}`,
      volume24h: 60_000_000,
      liquidityUsd: 12_000_000,
      priceUsd: '1.0001',
      priceChange24h: 0.01,
    }),
  ]
  for (let i = 0; i < tokens; i++) {
    const word = WORDS[i % WORDS.length]!
    const token = { address: mixCase(`0x${hex(random, 20)}`), name: `${word} Token ${i}`, symbol: `${word.slice(0, 4).toUpperCase()}${i}` }
    const volume = Math.round(20_000_000 * random() ** 3 + 1000)
    const count = 1 + Math.floor(random() * 3)
    for (let j = 0; j < count; j++) {
      const quote = j % 2 === 0 ? HUBS.WETH : HUBS.USDC
      pairs.push(
        makePair({
          base: token,
          quote,
          pairAddress: `0x${hex(random, 20)}`,
          volume24h: Math.round(volume / (j + 1)),
          liquidityUsd: Math.round(volume * (0.05 + random())),
          priceUsd: (random() * 2).toFixed(8),
          priceChange24h: Math.round((random() * 80 - 35) * 100) / 100,
          dexId: j === 1 ? 'aerodrome' : 'uniswap',
          createdAt: 1_700_000_000_000 + i * 3_600_000,
        }),
      )
    }
    if (i % 10 === 0) {
      // The same token as the quote side of a hub pair: its price there is the hub's, never to be used for it.
      pairs.push(makePair({ base: HUBS.WETH, quote: token, pairAddress: `0x${hex(random, 20)}`, volume24h: 5_000, priceUsd: '3120.55' }))
    }
    if (i % 7 === 0) {
      // A namesake on another chain, which a Base service must never show.
      pairs.push(
        makePair({
          chainId: 'solana',
          base: { ...token, address: hex(random, 32) },
          quote: HUBS.USDC,
          pairAddress: hex(random, 32),
          volume24h: 900_000_000,
        }),
      )
    }
  }
  return withRealShapes(pairs, tidy)
}

const CONSONANTS = 'BCDFGHJKLMNPQRSTVWXZ'

/** Parameters of {@link createLongTailMarket}. */
export type CreateLongTailMarketParameters = { tokens?: number; seed?: number; tidy?: boolean }

/**
 * A Base market shaped like the live chain, where names help nothing: the hubs, then `tokens` young tokens with
 * unguessable consonant names (no seed search matches them except through their WETH or USDC side), shallow pools
 * (liquidity a few percent of volume), one to three pairs each whose best is not always the first, and cross pairs
 * in which one young token is the quote side of another's pair; the real bodies' shapes unless `tidy`.
 */
export function createLongTailMarket(parameters: CreateLongTailMarketParameters = {}): RawPair[] {
  const { tokens = 800, seed = 20261122, tidy = false } = parameters
  const random = seededRandom(seed)
  const pairs = createSyntheticMarket({ tokens: 0, seed, tidy: true })
  const name = () =>
    Array.from({ length: 3 + Math.floor(random() * 4) }, () => CONSONANTS[Math.floor(random() * CONSONANTS.length)]).join('')
  const made: { address: string; name: string; symbol: string }[] = []
  for (let i = 0; i < tokens; i++) {
    const token = { address: mixCase(`0x${hex(random, 20)}`), name: `${name()} ${name()}`, symbol: name() }
    made.push(token)
    const volume = Math.round(30_000_000 * random() ** 4 + 2_000)
    const count = 1 + Math.floor(random() * 3)
    const best = Math.floor(random() * count)
    for (let j = 0; j < count; j++) {
      pairs.push(
        makePair({
          base: token,
          quote: j % 2 === 0 ? HUBS.WETH : HUBS.USDC,
          pairAddress: `0x${hex(random, 20)}`,
          volume24h: j === best ? volume : Math.round(volume * (0.1 + random() * 0.6)),
          liquidityUsd: Math.round(volume * (0.01 + random() * 0.08)),
          priceUsd: (random() / 100).toFixed(10),
          priceChange24h: Math.round((random() * 300 - 60) * 100) / 100,
          dexId: j === 1 ? 'aerodrome' : 'uniswap',
          createdAt: 1_763_700_000_000 + i * 60_000,
        }),
      )
    }
    if (i % 9 === 4 && made.length > 1) {
      // Another young token on the quote side: enriching it returns this pair, which says nothing true about `token`.
      const other = made[Math.floor(random() * (made.length - 1))]!
      pairs.push(
        makePair({
          base: token,
          quote: other,
          pairAddress: `0x${hex(random, 20)}`,
          volume24h: Math.round(volume * 0.05),
          priceUsd: '9.99',
        }),
      )
    }
  }
  return withRealShapes(pairs, tidy)
}

/**
 * The true top `limit` of a market, computed independently of the service: per Base token (lower-cased), its Base
 * pair as the base token with the highest 24h volume; sorted by that volume. Answers address -> that pair.
 */
export function trueTopTokens(pairs: RawPair[], limit = 100): Map<string, RawPair> {
  const best = new Map<string, RawPair>()
  for (const pair of pairs) {
    if (pair.chainId !== 'base') continue
    const key = pair.baseToken.address.toLowerCase()
    const volume = Number((pair.volume as { h24: number }).h24)
    const current = best.get(key)
    if (!current || volume > Number((current.volume as { h24: number }).h24)) best.set(key, pair)
  }
  return new Map(
    [...best].sort((a, b) => Number((b[1].volume as { h24: number }).h24) - Number((a[1].volume as { h24: number }).h24)).slice(0, limit),
  )
}
