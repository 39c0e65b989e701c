import type { Pair } from '../upstream/pair.js'
import { isHexAddress, pairToToken } from './normalize.js'
import { assignRanks, basePairs, compareByVolume } from './rank.js'
import type { TokenSearchResult } from './types.js'

/** Longest search term accepted, after trimming. */
export const QUERY_MAX_LENGTH = 64

/** A UTF-16 surrogate without its partner: text no URL, key or upstream can carry. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** True when `text` is well-formed Unicode (no lone surrogate). */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text)
}

/** Trims a raw `q` and checks it: the term to use, or the problem with it. */
export function parseQuery(raw: string | null): { ok: true; query: string } | { ok: false; code: 'QUERY_REQUIRED' | 'QUERY_TOO_LONG' } {
  const query = (raw ?? '').trim()
  if (query === '') return { ok: false, code: 'QUERY_REQUIRED' }
  if (Array.from(query).length > QUERY_MAX_LENGTH) return { ok: false, code: 'QUERY_TOO_LONG' }
  return { ok: true, query }
}

/**
 * Base pairs whose base token's symbol or name contains the term (case-insensitive; a full 0x address matches
 * the base token address), one per pair, sorted by 24h volume, ranked by position.
 */
export function matchSearchPairs(pairs: readonly Pair[], query: string): TokenSearchResult {
  const needle = query.toLowerCase()
  const byAddress = isHexAddress(query)
  const seen = new Set<string>()
  const tokens = basePairs(pairs)
    .map((pair) => pairToToken(pair, 0))
    .filter((token) => {
      const matches = byAddress
        ? token.address === needle
        : token.symbol.toLowerCase().includes(needle) || token.name.toLowerCase().includes(needle)
      const identity = token.pairAddress ?? `${token.address}:${token.dexId}:${token.pairName}`
      if (!matches || seen.has(identity)) return false
      seen.add(identity)
      return true
    })
    .sort(compareByVolume)
  return { tokens: assignRanks(tokens), total: tokens.length, query }
}
