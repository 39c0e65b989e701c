import type { RawPair } from './syntheticMarket.js'

/**
 * What real upstream bodies look like, in the shares counted over recorded bodies (61 DexScreener pairs, 20 Base
 * GeckoTerminal pools, as recorded in tests/fixtures/upstream/), applied to the fakes' markets so the suite parses what the
 * real APIs send rather than a tidier world.
 */

/** Out of 61 real DexScreener pairs: which `priceChange` windows each carried. */
export const PRICE_CHANGE_WINDOW_SHARES: readonly [windows: readonly string[], pairs: number][] = [
  [['m5', 'h1', 'h6', 'h24'], 27],
  [['h1', 'h6', 'h24'], 17],
  [['h24'], 7],
  [['h6', 'h24'], 4],
  [['h1', 'h24'], 4],
  [[], 2],
]
/** Real pairs without `liquidity`: 13 of 61. */
export const LIQUIDITY_ABSENT_SHARE = 13 / 61
/** Pairs of young Base tokens that are Uniswap v4 pools with 32-byte ids (7 of 20 in a real Base trending body). */
export const V4_SHARE = 7 / 20

/** A deterministic number in [0, 1) from a pair's address and a salt, so a pair looks the same in every fake. */
export function shapeDraw(pairAddress: string, salt: number): number {
  let h = 2166136261 ^ salt
  for (let i = 0; i < pairAddress.length; i++) h = Math.imul(h ^ pairAddress.charCodeAt(i), 16777619)
  return ((h >>> 0) % 1_000_003) / 1_000_003
}

const HEX = '0123456789abcdef'

/** A 32-byte v4 pool id derived from a 20-byte pair address (deterministic). */
export function v4PoolIdOf(pairAddress: string): string {
  let id = '0x'
  for (let i = 0; id.length < 66; i++) id += HEX[Math.floor(shapeDraw(pairAddress, 1000 + i) * 16)]
  return id
}

/** Parameters of {@link roughenPair}. */
export type RoughenPairParameters = {
  /** Whether the pair may become a Uniswap v4 pool (young tokens' pairs; not the hubs' deep pools). */
  mayBeV4: boolean
}

/**
 * One tidy pair as DexScreener really sends it: some `priceChange` windows missing, `liquidity`, `pairCreatedAt`,
 * `fdv`, `marketCap`, `labels` sometimes absent, `info` on about half with its real sub-shape, `boosts` on some, and a
 * share of pools that are Uniswap v4 with a 32-byte `pairAddress` that the `url` carries too.
 */
export function roughenPair(pair: RawPair, { mayBeV4 }: RoughenPairParameters): RawPair {
  const out: RawPair = structuredClone(pair)
  const draw = (salt: number) => shapeDraw(String(pair.pairAddress), salt)
  if (mayBeV4 && out.dexId === 'uniswap' && draw(1) < V4_SHARE / 0.7) {
    // About 70% of young tokens' pairs are on uniswap in the markets here, so this lands near 7 in 20 of them.
    out.pairAddress = v4PoolIdOf(String(pair.pairAddress))
    out.url = `https://dexscreener.com/base/${out.pairAddress}`
    out.labels = ['v4']
  } else if (out.dexId === 'aerodrome') out.labels = draw(2) < 0.5 ? ['CL'] : ['v2']
  else out.labels = draw(2) < 0.3 ? ['v2'] : ['v3']
  const windows = pickByShares(draw(3), PRICE_CHANGE_WINDOW_SHARES)
  const change = (pair.priceChange ?? {}) as Record<string, unknown>
  out.priceChange = Object.fromEntries(windows.map((w) => [w, change[w] ?? 0]))
  if (draw(4) < LIQUIDITY_ABSENT_SHARE) delete out.liquidity
  if (draw(5) < 0.08) delete out.pairCreatedAt
  if (draw(6) < 0.1) delete out.fdv
  if (draw(7) < 0.15) delete out.marketCap
  if (draw(8) < 0.5) delete out.labels
  if (draw(9) < 0.5) delete out.info
  else
    out.info = {
      imageUrl: `https://dd.dexscreener.com/ds-data/tokens/base/${pair.baseToken.address.toLowerCase()}.png`,
      header: `https://dd.dexscreener.com/ds-data/tokens/base/${pair.baseToken.address.toLowerCase()}/header.png`,
      openGraph: `https://cdn.dexscreener.com/token-images/og/base/${pair.baseToken.address.toLowerCase()}`,
      websites: [{ label: 'Website', url: 'https://example.invalid' }],
      socials: [{ type: 'twitter', url: 'https://x.com/example' }],
    }
  if (draw(10) < 0.1) out.boosts = { active: 1 + Math.floor(draw(11) * 50) }
  return out
}

function pickByShares<T>(at: number, shares: readonly [T, number][]): T {
  const total = shares.reduce((sum, [, n]) => sum + n, 0)
  let left = at * total
  for (const [value, n] of shares) {
    left -= n
    if (left < 0) return value
  }
  return shares.at(-1)![0]
}

/**
 * The id GeckoTerminal gives the pool's exchange, where DexScreener says only `uniswap` or `aerodrome`: v4 pools are
 * `uniswap-v4-base` or a launchpad trading on v4 hooks (`bankr`, `o1-launchpad`), others `uniswap-v3-base`,
 * `uniswap-v2-base`, `aerodrome-slipstream-3`, `aerodrome-base`, `pancakeswap-v3-base`; anything else `<id>-base`.
 */
export function geckoDexIdOf(pair: RawPair): string {
  const pool = String(pair.pairAddress)
  const draw = shapeDraw(pool, 20)
  const labels = Array.isArray(pair.labels) ? (pair.labels as string[]) : []
  switch (pair.dexId) {
    case 'uniswap':
      if (/^0x[0-9a-fA-F]{64}$/.test(pool)) return draw < 0.6 ? 'uniswap-v4-base' : draw < 0.85 ? 'bankr' : 'o1-launchpad'
      return labels.includes('v2') ? 'uniswap-v2-base' : 'uniswap-v3-base'
    case 'aerodrome':
      return labels.includes('v2') || (labels.length === 0 && draw < 0.5) ? 'aerodrome-base' : 'aerodrome-slipstream-3'
    case 'pancakeswap':
      return 'pancakeswap-v3-base'
    default:
      return `${String(pair.dexId ?? 'unknown')}-base`
  }
}

/** How GeckoTerminal writes a small price in an OHLCV row: exponent notation below 1e-4 (`1.61e-05`), else plain. */
export function geckoNumber(n: number): string {
  if (n !== 0 && Math.abs(n) < 1e-4) return n.toExponential(2).replace(/e-(\d)$/, 'e-0$1')
  return String(n)
}
