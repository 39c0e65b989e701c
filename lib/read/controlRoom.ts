import { setMaxListeners } from 'node:events'
import { writeCommentary } from '../market/commentary.js'
import { isHexAddress } from '../market/normalize.js'
import { BASE_CHAIN_ID, rankTokens } from '../market/rank.js'
import { computeStats } from '../market/stats.js'
import { CONTROL_ROOM_LIMIT, type ControlRoom, TRENDING_LENGTH } from '../market/types.js'
import { type Sighting, type UniverseEntry, universeLeaders } from '../market/universe.js'
import {
  type DexScreenerClient,
  type DroppedRows,
  type PromotedList,
  type RequestBudget,
  TOKENS_BATCH_SIZE,
  UpstreamError,
} from '../upstream/dexscreener.js'
import type { GeckoTerminalClient } from '../upstream/geckoterminal.js'
import type { Pair } from '../upstream/pair.js'

/** Searches that seed the candidate set: Base hub assets and names that reach most of Base's active pairs. */
export const DEFAULT_SEED_QUERIES = [
  'WETH',
  'USDC',
  'cbBTC',
  'AERO',
  'VIRTUAL',
  'DEGEN',
  'BRETT',
  'TOSHI',
  'ZORA',
  'clanker',
  'base',
  'cbETH',
] as const

/**
 * Base's hub assets (WETH, USDC, cbBTC, AERO): most young tokens trade against one of them, so one `/tokens/v1` call
 * for the four (in the first wave, beside the searches) shows the deepest pairs of the whole chain.
 */
export const HUB_TOKEN_ADDRESSES = [
  '0x4200000000000000000000000000000000000006',
  '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
  '0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf',
  '0x940181a94a35a4569e4529a3cdfb74e38fd98631',
] as const

/** More searches for a refresh without GeckoTerminal's ranking: words that many Base token names carry. */
export const WIDE_SEED_QUERIES = ['onchain', 'blue', 'based', 'ai', 'agent', 'moon', 'pepe', 'cat'] as const

/** DexScreener's promoted lists read by a refresh without GeckoTerminal's ranking (filtered to Base). */
export const WIDE_PROMOTED_LISTS: readonly PromotedList[] = ['boosts-latest', 'boosts-top', 'profiles-latest']

/** Most upstream requests one refresh may make, retries included. */
export const MAX_REQUESTS_PER_REFRESH = 30

/** Requests of the budget left for retries when the enrichment wave is planned. */
const RETRY_RESERVE = 3

/** Universe leaders enriched in every refresh, in the same wave as the seed searches (5 calls of 30). */
export const LEADERS_PER_REFRESH = 150

/** Tokens past the top 100 that a refresh also makes sure to have enriched, in case enrichment lowers some. */
const TOP_MARGIN = 20

/** Parameters of {@link buildControlRoom}. */
export type BuildControlRoomParameters = {
  upstream: DexScreenerClient
  /** The known token universe (from earlier refreshes); its leaders are enriched in the first wave. */
  universe?: readonly UniverseEntry[]
  /** GeckoTerminal's volume-ranked pools to fetch in the first wave (pages 1..n), with the client; none when absent. */
  discovery?: { gecko: GeckoTerminalClient; pages: number }
  now?: () => number
  seedQueries?: readonly string[]
  /** Deadline of the whole refresh (default 10 s). */
  refreshTimeoutMs?: number
  /** DexScreener request budget of the refresh, retries included (default 30). */
  maxRequests?: number
  /** Slots of the service-wide DexScreener minute reserved for this refresh in one store call; past them each request asks. */
  preAdmitted?: RequestBudget
  /**
   * GeckoTerminal's ranking is off, failing or backing off: spend the whole DexScreener budget on discovery (more
   * searches, the promoted lists, and as many enrichment calls as the budget leaves). Also done in the second wave
   * when this refresh's GeckoTerminal pages all fail.
   */
  wideDiscovery?: boolean
}

/** What a refresh built, and what it learned for the universe. */
export type BuildControlRoomReturnType = {
  room: ControlRoom
  /** Every Base token seen, with its volume; authoritative when it came from an answer about the token itself. */
  sightings: Map<string, Sighting>
  /** Errors of a discovery that failed (a 429 among them tells the caller to back off). */
  discoveryErrors: unknown[]
  /** DexScreener requests made (retries included). */
  requests: number
  /** Rows the upstream answers held that could not be shown (no usable token address, pool id or symbol), by cause. */
  dropped: DroppedRows
  /** Sequential upstream round trips: 1 when the universe already held the top 100, 2 when some had to be enriched. */
  waves: 1 | 2
}

/**
 * Assembles the control room. Wave 1, in parallel: the seed searches, the enrichment (`/tokens/v1`) of the universe's
 * leaders and, when due, GeckoTerminal's ranked pools. Every token that would then rank in the top 100 but was not
 * enriched is enriched in wave 2 (with a warm universe there is none: one round trip). Each listed token is described
 * by its own highest-volume Base pair as the base token, from an answer about that token itself; a token seen only
 * in other answers is never shown from that partial view. At most `maxRequests` DexScreener calls, retries included.
 * Throws {@link UpstreamError} when every DexScreener call of wave 1 fails.
 */
export async function buildControlRoom(parameters: BuildControlRoomParameters): Promise<BuildControlRoomReturnType> {
  const {
    upstream,
    universe = [],
    discovery,
    now = Date.now,
    seedQueries = DEFAULT_SEED_QUERIES,
    refreshTimeoutMs = 10_000,
    maxRequests = MAX_REQUESTS_PER_REFRESH,
    wideDiscovery = false,
    preAdmitted,
  } = parameters
  const signal = AbortSignal.timeout(refreshTimeoutMs)
  // Every call of the refresh (up to the request budget, plus discovery) listens to this one signal.
  setMaxListeners(maxRequests + 24, signal)
  const budget: RequestBudget = { remaining: maxRequests }
  const dropped: DroppedRows = {}
  const lists = wideDiscovery ? WIDE_PROMOTED_LISTS : []
  // Wide, the searches may take all but the hub batch, the retries and the second wave's enrichment of the top 120.
  const searchSlots = wideDiscovery
    ? maxRequests - lists.length - 1 - RETRY_RESERVE - (CONTROL_ROOM_LIMIT + TOP_MARGIN) / TOKENS_BATCH_SIZE
    : Math.floor(maxRequests / 2)
  const seeds = [...seedQueries, ...(wideDiscovery ? WIDE_SEED_QUERIES : [])].slice(0, Math.max(1, searchSlots))
  const leaderSlots = Math.min(LEADERS_PER_REFRESH, (maxRequests - seeds.length - lists.length - RETRY_RESERVE) * TOKENS_BATCH_SIZE)
  // The hubs lead the first batch: with a warm universe they are among its leaders anyway, so they cost nothing more.
  const leaderBatches = toBatches([...new Set([...HUB_TOKEN_ADDRESSES, ...universeLeaders(universe, leaderSlots)])].slice(0, leaderSlots))

  const enrich = (batch: string[]) => upstream.tokens(batch, { signal, budget, preAdmitted, dropped }).then((pairs) => ({ batch, pairs }))
  // Discovery runs beside DexScreener's wave; a DexScreener outage is reported (and failed over) without waiting for it.
  const discovering = settleAll(
    Array.from({ length: discovery?.pages ?? 0 }, (_, i) => discovery!.gecko.rankedPools(i + 1, { signal, dropped })),
  )
  const [searches, leaders, promoted] = await Promise.all([
    settleAll(seeds.map((q) => upstream.search(q, { signal, budget, preAdmitted, dropped }))),
    settleAll(leaderBatches.map(enrich)),
    settleAll(lists.map((list) => upstream.promotedTokens(list, { signal, budget, preAdmitted }))),
  ])
  if (searches.values.length === 0 && leaders.values.length === 0) throw rootCause([...searches.errors, ...leaders.errors])
  const pools = await discovering

  const enriched = new Set<string>()
  const answers: Pair[] = []
  const absorb = (results: { batch: string[]; pairs: Pair[] }[]) => {
    for (const { batch, pairs } of results) {
      for (const address of batch) enriched.add(address)
      answers.push(...pairs)
    }
  }
  absorb(leaders.values)

  // Hints: volumes of tokens seen in answers about other tokens (either side of a pair), to choose whom to enrich.
  const hints = new Map<string, number>()
  const hint = (address: string | null, volume: number) => {
    if (!address || !isHexAddress(address)) return
    const key = address.toLowerCase()
    hints.set(key, Math.max(hints.get(key) ?? 0, volume))
  }
  for (const pair of [...searches.values.flat(), ...pools.values.flat(), ...answers]) {
    if (pair.chainId !== BASE_CHAIN_ID) continue
    hint(pair.baseToken.address, pair.volume.h24 ?? 0)
    hint(pair.quoteToken.address, pair.volume.h24 ?? 0)
  }
  // A promoted token is a candidate with no volume seen yet: it ranks last among contenders, never shown unenriched.
  for (const address of promoted.values.flat()) if (!hints.has(address)) hints.set(address, 0)
  // What the universe remembers counts for choosing, not as a sighting (it would never age out).
  const remembered = new Map(universe.map((e) => [e.address, e.volume24h]))
  const wide = wideDiscovery || (discovery !== undefined && discovery.pages > 0 && pools.values.length === 0)

  // Wave 2: whoever would rank in the top 100 (plus a margin) without an answer about itself.
  const own = ownBestVolumes(answers, enriched)
  const scoreOf = (address: string) =>
    enriched.has(address) ? (own.get(address) ?? 0) : Math.max(hints.get(address) ?? 0, remembered.get(address) ?? 0)
  const batchesAllowed = Math.max(0, budget.remaining - RETRY_RESERVE) || Math.min(budget.remaining, 1)
  // Without a ranking, every call left is spent on enrichment: a hint's volume is only a lower bound of the token's.
  const contenders = [...new Set([...hints.keys(), ...remembered.keys(), ...enriched])]
    .sort((a, b) => scoreOf(b) - scoreOf(a) || (a < b ? -1 : 1))
    .slice(0, wide ? enriched.size + batchesAllowed * TOKENS_BATCH_SIZE : CONTROL_ROOM_LIMIT + TOP_MARGIN)
  const missing = contenders.filter((address) => !enriched.has(address))
  const followUp = await settleAll(toBatches(missing).slice(0, batchesAllowed).map(enrich))
  if (leaders.values.length === 0 && missing.length > 0 && followUp.values.length === 0)
    throw rootCause([...leaders.errors, ...followUp.errors])
  absorb(followUp.values)

  const ownPairs = answers.filter((pair) => enriched.has(pair.baseToken.address.toLowerCase()))
  const liveActivity = rankTokens({ pairs: ownPairs, limit: CONTROL_ROOM_LIMIT })
  const stats = computeStats({ tokens: liveActivity, ts: now() })

  const sightings = new Map<string, Sighting>()
  for (const [address, volume24h] of hints) if (!enriched.has(address)) sightings.set(address, { volume24h, authoritative: false })
  for (const [address, volume24h] of ownBestVolumes(answers, enriched)) sightings.set(address, { volume24h, authoritative: true })
  for (const address of enriched)
    if (!sightings.has(address) || !sightings.get(address)!.authoritative) sightings.set(address, { volume24h: 0, authoritative: true })

  return {
    room: {
      liveActivity,
      trending: liveActivity.slice(0, TRENDING_LENGTH),
      stats,
      commentary: writeCommentary({ tokens: liveActivity, stats }),
    },
    sightings,
    discoveryErrors: pools.errors,
    requests: maxRequests - budget.remaining,
    dropped,
    waves: missing.length > 0 && batchesAllowed > 0 ? 2 : 1,
  }
}

/** Per enriched token, the 24h volume of its best Base pair as the base token, from the answers about it. */
function ownBestVolumes(answers: readonly Pair[], enriched: ReadonlySet<string>): Map<string, number> {
  const best = new Map<string, number>()
  for (const pair of answers) {
    if (pair.chainId !== BASE_CHAIN_ID) continue
    const address = pair.baseToken.address.toLowerCase()
    if (!enriched.has(address)) continue
    best.set(address, Math.max(best.get(address) ?? 0, pair.volume.h24 ?? 0))
  }
  return best
}

/** Splits addresses into `/tokens/v1` calls of at most 30. */
function toBatches(addresses: readonly string[]): string[][] {
  const batches: string[][] = []
  for (let i = 0; i < addresses.length; i += TOKENS_BATCH_SIZE) batches.push(addresses.slice(i, i + TOKENS_BATCH_SIZE))
  return batches
}

/** The error that explains a failed wave: a budget refusal is only a consequence of the failures before it. */
function rootCause(errors: unknown[]): unknown {
  return errors.find((e) => !(e instanceof UpstreamError && e.kind === 'budget')) ?? errors[0]
}

async function settleAll<T>(promises: Promise<T>[]): Promise<{ values: T[]; errors: unknown[] }> {
  const results = await Promise.allSettled(promises)
  const values: T[] = []
  const errors: unknown[] = []
  for (const r of results) r.status === 'fulfilled' ? values.push(r.value) : errors.push(r.reason)
  return { values, errors }
}
