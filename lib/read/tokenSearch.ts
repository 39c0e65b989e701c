import { matchSearchPairs } from '../market/search.js'
import type { TokenSearchResult } from '../market/types.js'
import type { DexScreenerClient } from '../upstream/dexscreener.js'

/** Parameters of {@link searchTokens}. */
export type SearchTokensParameters = { upstream: DexScreenerClient; query: string; timeoutMs?: number }

/** Asks DexScreener for the term and keeps the Base pairs that match it ({@link matchSearchPairs}), by 24h volume. */
export async function searchTokens({ upstream, query, timeoutMs = 10_000 }: SearchTokensParameters): Promise<TokenSearchResult> {
  return matchSearchPairs(await upstream.search(query, { signal: AbortSignal.timeout(timeoutMs) }), query)
}
