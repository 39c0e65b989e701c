import { matchSearchPairs } from '../market/search.js'
import type { TokenSearchResult } from '../market/types.js'
import type { Deadline } from '../platform/clock.js'
import type { DexScreenerClient } from '../upstream/dexscreener.js'

/** Parameters of {@link searchTokens}. */
export type SearchTokensParameters = {
  upstream: DexScreenerClient
  query: string
  /** The read side's clock of deadlines: the search gives up `timeoutMs` after it starts, on that clock. */
  deadline: Deadline
  timeoutMs?: number
}

/** Asks DexScreener for the term and keeps the Base pairs that match it ({@link matchSearchPairs}), by 24h volume. */
export async function searchTokens({ upstream, query, deadline, timeoutMs = 10_000 }: SearchTokensParameters): Promise<TokenSearchResult> {
  return matchSearchPairs(await upstream.search(query, { signal: deadline(timeoutMs) }), query)
}
