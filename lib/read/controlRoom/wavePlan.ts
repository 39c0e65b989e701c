import { isHexAddress } from '../../market/normalize.js'
import { DEXSCREENER_BASE_SLUG } from '../../market/rank.js'
import { CONTROL_ROOM_LIMIT } from '../../market/types.js'
import { type Sighting, type UniverseEntry, universeLeaders } from '../../market/universe.js'
import { type PromotedList, TOKENS_BATCH_SIZE } from '../../upstream/dexscreener.js'
import type { Pair } from '../../upstream/pair.js'

// How a control-room refresh spends its DexScreener budget (pure: no I/O, no clock). buildControlRoom in
// build.ts makes the calls these plans name.

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
export const RETRY_RESERVE = 3

/** Universe leaders enriched in every refresh, in the same wave as the seed searches (5 calls of 30). */
export const LEADERS_PER_REFRESH = 150

/** Tokens past the top 100 that a refresh also makes sure to have enriched, in case enrichment lowers some. */
export const TOP_MARGIN = 20

/** Parameters of {@link planFirstWave}. */
export type PlanFirstWaveParameters = {
  seedQueries: readonly string[]
  universe: readonly UniverseEntry[]
  maxRequests: number
  wideDiscovery: boolean
}

/** Wave 1: the searches, the promoted lists, and the batches of universe leaders to enrich, within the budget. */
export type FirstWavePlan = { seeds: string[]; lists: readonly PromotedList[]; leaderBatches: string[][] }

/**
 * Search calls of wave 1. Normally half the budget. Wide (no GeckoTerminal ranking), all but the promoted lists, the
 * hub batch, the retries and wave 2's enrichment of the top 100 and its margin.
 */
export function searchSlots({ maxRequests, wideDiscovery }: Pick<PlanFirstWaveParameters, 'maxRequests' | 'wideDiscovery'>): number {
  if (!wideDiscovery) return Math.floor(maxRequests / 2)
  const enrichTop = (CONTROL_ROOM_LIMIT + TOP_MARGIN) / TOKENS_BATCH_SIZE
  return maxRequests - WIDE_PROMOTED_LISTS.length - 1 - RETRY_RESERVE - enrichTop
}

/** Universe leaders wave 1 enriches: what the calls left after searches, lists and retries hold, at most 150. */
export function leaderSlots(maxRequests: number, searches: number, lists: number): number {
  return Math.min(LEADERS_PER_REFRESH, (maxRequests - searches - lists - RETRY_RESERVE) * TOKENS_BATCH_SIZE)
}

/** Plans wave 1. */
export function planFirstWave({ seedQueries, universe, maxRequests, wideDiscovery }: PlanFirstWaveParameters): FirstWavePlan {
  const lists = wideDiscovery ? WIDE_PROMOTED_LISTS : []
  const seeds = [...seedQueries, ...(wideDiscovery ? WIDE_SEED_QUERIES : [])].slice(
    0,
    Math.max(1, searchSlots({ maxRequests, wideDiscovery })),
  )
  const leaders = leaderSlots(maxRequests, seeds.length, lists.length)
  // The hubs lead the first batch: with a warm universe they are among its leaders anyway, so they cost nothing more.
  const leaderBatches = toBatches([...new Set([...HUB_TOKEN_ADDRESSES, ...universeLeaders(universe, leaders)])].slice(0, leaders))
  return { seeds, lists, leaderBatches }
}

/**
 * Volumes of tokens seen in answers about other tokens (either side of a Base pair), to choose whom to enrich. A
 * promoted token is a candidate with no volume seen yet: it ranks last among contenders, never shown unenriched.
 */
export function volumeHints(seen: readonly Pair[], promoted: readonly string[]): Map<string, number> {
  const hints = new Map<string, number>()
  const hint = (address: string | null, volume: number) => {
    if (!address || !isHexAddress(address)) return
    const key = address.toLowerCase()
    hints.set(key, Math.max(hints.get(key) ?? 0, volume))
  }
  for (const pair of seen) {
    if (pair.chainId !== DEXSCREENER_BASE_SLUG) continue
    hint(pair.baseToken.address, pair.volume.h24 ?? 0)
    hint(pair.quoteToken.address, pair.volume.h24 ?? 0)
  }
  for (const address of promoted) if (!hints.has(address)) hints.set(address, 0)
  return hints
}

/** Parameters of {@link planSecondWave}. */
export type PlanSecondWaveParameters = {
  /** The answers about enriched tokens so far. */
  answers: readonly Pair[]
  enriched: ReadonlySet<string>
  hints: ReadonlyMap<string, number>
  /** What the universe remembers: it counts for choosing, never as a sighting (it would never age out). */
  remembered: ReadonlyMap<string, number>
  /** Requests left in the budget. */
  remaining: number
  /** Without a ranking, every call left is spent on enrichment: a hint's volume is only a lower bound. */
  wide: boolean
}

/** Enrichment calls wave 2 may make: the budget left less the retry reserve, or one call when that is all there is. */
export function enrichmentCalls(remaining: number): number {
  return Math.max(0, remaining - RETRY_RESERVE) || Math.min(remaining, 1)
}

/** Wave 2: whoever would rank in the top 100 (plus a margin) without an answer about itself, in batches. */
export function planSecondWave({ answers, enriched, hints, remembered, remaining, wide }: PlanSecondWaveParameters): {
  missing: string[]
  batches: string[][]
} {
  const own = ownBestVolumes(answers, enriched)
  const scoreOf = (address: string) =>
    enriched.has(address) ? (own.get(address) ?? 0) : Math.max(hints.get(address) ?? 0, remembered.get(address) ?? 0)
  const calls = enrichmentCalls(remaining)
  const contenders = [...new Set([...hints.keys(), ...remembered.keys(), ...enriched])]
    .sort((a, b) => scoreOf(b) - scoreOf(a) || (a < b ? -1 : 1))
    .slice(0, wide ? enriched.size + calls * TOKENS_BATCH_SIZE : CONTROL_ROOM_LIMIT + TOP_MARGIN)
  const missing = contenders.filter((address) => !enriched.has(address))
  return { missing, batches: toBatches(missing).slice(0, calls) }
}

/** What a refresh learned for the universe: the tokens seen with their volume, authoritative when enriched. */
export function sightingsOf(
  hints: ReadonlyMap<string, number>,
  answers: readonly Pair[],
  enriched: ReadonlySet<string>,
): Map<string, Sighting> {
  const sightings = new Map<string, Sighting>()
  for (const [address, volume24h] of hints) if (!enriched.has(address)) sightings.set(address, { volume24h, authoritative: false })
  for (const [address, volume24h] of ownBestVolumes(answers, enriched)) sightings.set(address, { volume24h, authoritative: true })
  for (const address of enriched)
    if (!sightings.has(address) || !sightings.get(address)!.authoritative) sightings.set(address, { volume24h: 0, authoritative: true })
  return sightings
}

/** Per enriched token, the 24h volume of its best Base pair as the base token, from the answers about it. */
function ownBestVolumes(answers: readonly Pair[], enriched: ReadonlySet<string>): Map<string, number> {
  const best = new Map<string, number>()
  for (const pair of answers) {
    if (pair.chainId !== DEXSCREENER_BASE_SLUG) continue
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
