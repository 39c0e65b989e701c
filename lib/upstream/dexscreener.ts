import { type CallOptions, type CreateJsonGetterParameters, createJsonGetter } from './jsonGetter.js'
import { type Pair, parsePairsBody } from './pair.js'

export { type CallOptions, parseRetryAfter, type RequestBudget, UpstreamError, type UpstreamErrorKind } from './jsonGetter.js'

/** Client for the DexScreener endpoints the read API uses. */
export type DexScreenerClient = {
  /** `/latest/dex/search?q=`: about 30 pairs on all chains. */
  search(query: string, options?: CallOptions): Promise<Pair[]>
  /** `/tokens/v1/base/{addresses}`: every Base pair of up to 30 tokens. */
  tokens(addresses: readonly string[], options?: CallOptions): Promise<Pair[]>
}

/** Parameters of {@link createDexScreenerClient}: the base URL and the retry policy of {@link createJsonGetter}. */
export type CreateDexScreenerClientParameters = Omit<CreateJsonGetterParameters, 'headers' | 'describePath'>

/** Most addresses `/tokens/v1` takes in one call; it truncates silently past that. */
export const TOKENS_BATCH_SIZE = 30

/** Creates a DexScreener client with per-call timeouts, bounded jittered retries and tolerant parsing. */
export function createDexScreenerClient(parameters: CreateDexScreenerClientParameters): DexScreenerClient {
  const get = createJsonGetter({ ...parameters, describePath: route })
  const getPairs = (path: string, options?: CallOptions) => get(path, parsePairsBody, options)

  return {
    search: (query, options) => getPairs(`/latest/dex/search?q=${encodeURIComponent(query)}`, options),
    tokens: (addresses, options) => {
      if (addresses.length === 0) return Promise.resolve([])
      if (addresses.length > TOKENS_BATCH_SIZE) throw new RangeError(`at most ${TOKENS_BATCH_SIZE} addresses per call`)
      return getPairs(`/tokens/v1/base/${addresses.join(',')}`, options)
    },
  }
}

/** The path of a request without its query or address list, for messages. */
const route = (path: string): string => path.replace(/\?.*$/, '').replace(/^(\/tokens\/v1\/base)\/.*$/, '$1/…')
