import { DEXSCREENER_BASE_SLUG, type Pair } from '../upstream/pair.js'
import { isHexAddress, pairToToken } from './normalize.js'
import type { Token } from './types.js'

export { DEXSCREENER_BASE_SLUG } from '../upstream/pair.js'

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** Orders tokens by 24h volume, then liquidity, then address and pair, so equal data always gives the same order. */
export function compareByVolume(a: Token, b: Token): number {
  return (
    b.volume24h - a.volume24h ||
    b.liquidity - a.liquidity ||
    compareText(a.address, b.address) ||
    compareText(a.pairAddress ?? '', b.pairAddress ?? '')
  )
}

/** Re-numbers `rank` 1..n in list order. */
export function assignRanks(tokens: Token[]): Token[] {
  return tokens.map((token, index) => ({ ...token, rank: index + 1 }))
}

/** Pairs on Base whose base token has a well-formed address. */
export function basePairs(pairs: Iterable<Pair>): Pair[] {
  const kept: Pair[] = []
  for (const pair of pairs) if (pair.chainId === DEXSCREENER_BASE_SLUG && isHexAddress(pair.baseToken.address)) kept.push(pair)
  return kept
}

/** Parameters of {@link rankTokens}. */
export type RankTokensParameters = { pairs: Iterable<Pair>; limit: number }

/**
 * One Token per Base token (the lower-cased base address is its identity), each described by the Base pair in which
 * it is the base token with the highest 24h volume; sorted by 24h volume, cut to `limit`, ranked 1..n.
 */
export function rankTokens({ pairs, limit }: RankTokensParameters): Token[] {
  const best = new Map<string, Token>()
  for (const pair of basePairs(pairs)) {
    const token = pairToToken(pair, 0)
    const current = best.get(token.address)
    if (!current || compareByVolume(token, current) < 0) best.set(token.address, token)
  }
  return assignRanks([...best.values()].sort(compareByVolume).slice(0, limit))
}
