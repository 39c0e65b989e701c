import { z } from 'zod'
import { HEX_ADDRESS, looseString } from './fields.js'
import { type CallOptions, type CreateJsonGetterParameters, createJsonGetter } from './jsonGetter.js'
import { DEXSCREENER_BASE_SLUG, type Pair, parsePairsBody } from './pair.js'

export type { DropCause, DroppedRows } from './fields.js'
export { type CallOptions, parseRetryAfter, type RequestBudget, UpstreamError, type UpstreamErrorKind } from './jsonGetter.js'

/** Client for the DexScreener endpoints the read API uses. */
export type DexScreenerClient = {
  /** `/latest/dex/search?q=`: about 30 pairs on all chains. */
  search(query: string, options?: CallOptions): Promise<Pair[]>
  /** `/tokens/v1/base/{addresses}`: every Base pair of up to 30 tokens. */
  tokens(addresses: readonly string[], options?: CallOptions): Promise<Pair[]>
  /** One of DexScreener's promoted-token lists (latest or top boosts, latest profiles): the Base addresses on it. */
  promotedTokens(list: PromotedList, options?: CallOptions): Promise<string[]>
}

/** DexScreener's lists of promoted tokens (paid boosts and profiles; mostly other chains). */
export type PromotedList = 'boosts-latest' | 'boosts-top' | 'profiles-latest'

/** The path of each promoted list. */
export const PROMOTED_LIST_PATHS: Record<PromotedList, string> = {
  'boosts-latest': '/token-boosts/latest/v1',
  'boosts-top': '/token-boosts/top/v1',
  'profiles-latest': '/token-profiles/latest/v1',
}

/** Parameters of {@link createDexScreenerClient}: the base URL and the retry policy of {@link createJsonGetter}. */
export type CreateDexScreenerClientParameters = Omit<CreateJsonGetterParameters, 'headers' | 'describePath'>

/** Most addresses `/tokens/v1` takes in one call; it truncates silently past that. */
export const TOKENS_BATCH_SIZE = 30

/** Creates a DexScreener client with per-call timeouts, bounded jittered retries and tolerant parsing. */
export function createDexScreenerClient(parameters: CreateDexScreenerClientParameters): DexScreenerClient {
  const get = createJsonGetter({ ...parameters, describePath: route })
  const getPairs = (path: string, options?: CallOptions) => get(path, (body) => parsePairsBody(body, options?.dropped), options)

  return {
    search: (query, options) => getPairs(`/latest/dex/search?q=${encodeURIComponent(query)}`, options),
    tokens: (addresses, options) => {
      if (addresses.length === 0) return Promise.resolve([])
      if (addresses.length > TOKENS_BATCH_SIZE) throw new RangeError(`at most ${TOKENS_BATCH_SIZE} addresses per call`)
      return getPairs(`/tokens/v1/base/${addresses.join(',')}`, options)
    },
    promotedTokens: (list, options) => get(PROMOTED_LIST_PATHS[list], parsePromotedBaseTokens, options),
  }
}

/**
 * An entry of a promoted list as DexScreener sends it: profiles carry `url, chainId, tokenAddress, icon, header,
 * openGraph, description, links, cto`; boosts add `amount` and `totalAmount` (and `icon` is a bare hash). Only the
 * chain and the token address are read; an entry without them is skipped.
 */
export const promotedEntrySchema = z.object({ chainId: looseString, tokenAddress: looseString })

/** A promoted list: an array of entries, or one entry alone. */
export const promotedBodySchema = z.union([z.array(z.unknown()), z.record(z.string(), z.unknown()).transform((entry) => [entry])])

/**
 * Reads a promoted list into the lower-cased Base token addresses on it, each once; entries of other chains or
 * without a 0x address are skipped. Null: not such a list.
 */
export function parsePromotedBaseTokens(body: unknown): string[] | null {
  const list = promotedBodySchema.safeParse(body)
  if (!list.success) return null
  const addresses = new Set<string>()
  for (const raw of list.data) {
    const entry = promotedEntrySchema.safeParse(raw)
    if (
      entry.success &&
      entry.data.chainId === DEXSCREENER_BASE_SLUG &&
      entry.data.tokenAddress &&
      HEX_ADDRESS.test(entry.data.tokenAddress)
    )
      addresses.add(entry.data.tokenAddress.toLowerCase())
  }
  return [...addresses]
}

/** The path of a request without its query or address list, for messages. */
const route = (path: string): string => path.replace(/\?.*$/, '').replace(/^(\/tokens\/v1\/base)\/.*$/, '$1/…')
