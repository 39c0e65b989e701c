import { setMaxListeners } from 'node:events'
import { writeCommentary } from '../../market/commentary.js'
import { rankTokens } from '../../market/rank.js'
import { computeStats } from '../../market/stats.js'
import { CONTROL_ROOM_LIMIT, type ControlRoom, TRENDING_LENGTH } from '../../market/types.js'
import type { Sighting, UniverseEntry } from '../../market/universe.js'
import type { Deadline } from '../../platform/clock.js'
import { type DexScreenerClient, type DroppedRows, type RequestBudget, UpstreamError } from '../../upstream/dexscreener.js'
import type { GeckoTerminalClient } from '../../upstream/geckoterminal.js'
import type { Pair } from '../../upstream/pair.js'
import { DEFAULT_SEED_QUERIES, MAX_REQUESTS_PER_REFRESH, planFirstWave, planSecondWave, sightingsOf, volumeHints } from './wavePlan.js'

/** Parameters of {@link buildControlRoom}. */
export type BuildControlRoomParameters = {
  upstream: DexScreenerClient
  /** The known token universe (from earlier refreshes); its leaders are enriched in the first wave. */
  universe?: readonly UniverseEntry[]
  /** GeckoTerminal's volume-ranked pools to fetch in the first wave (pages 1..n), with the client; none when absent. */
  discovery?: { gecko: GeckoTerminalClient; pages: number }
  now: () => number
  /** The read side's clock of deadlines: every call of the refresh is given up `refreshTimeoutMs` after it starts. */
  deadline: Deadline
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
    now,
    deadline,
    seedQueries = DEFAULT_SEED_QUERIES,
    refreshTimeoutMs = 10_000,
    maxRequests = MAX_REQUESTS_PER_REFRESH,
    wideDiscovery = false,
    preAdmitted,
  } = parameters
  const signal = deadline(refreshTimeoutMs)
  // Every call of the refresh (up to the request budget, plus discovery) listens to this one signal.
  setMaxListeners(maxRequests + 24, signal)
  const budget: RequestBudget = { remaining: maxRequests }
  const dropped: DroppedRows = {}
  const { seeds, lists, leaderBatches } = planFirstWave({ seedQueries, universe, maxRequests, wideDiscovery })
  const enrich = (batch: string[]) => upstream.tokens(batch, { signal, budget, preAdmitted, dropped }).then((pairs) => ({ batch, pairs }))

  // Wave 1. Discovery runs beside DexScreener's; a DexScreener outage is reported (and failed over) without waiting for it.
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

  // Wave 2: whoever would rank in the top 100 (plus a margin) without an answer about itself.
  const hints = volumeHints([...searches.values.flat(), ...pools.values.flat(), ...answers], promoted.values.flat())
  const second = planSecondWave({
    answers,
    enriched,
    hints,
    remembered: new Map(universe.map((e) => [e.address, e.volume24h])),
    remaining: budget.remaining,
    wide: wideDiscovery || (discovery !== undefined && discovery.pages > 0 && pools.values.length === 0),
  })
  const followUp = await settleAll(second.batches.map(enrich))
  if (leaders.values.length === 0 && second.missing.length > 0 && followUp.values.length === 0)
    throw rootCause([...leaders.errors, ...followUp.errors])
  absorb(followUp.values)

  const liveActivity = rankTokens({
    pairs: answers.filter((pair) => enriched.has(pair.baseToken.address.toLowerCase())),
    limit: CONTROL_ROOM_LIMIT,
  })
  const stats = computeStats({ tokens: liveActivity, ts: now() })
  return {
    room: {
      liveActivity,
      trending: liveActivity.slice(0, TRENDING_LENGTH),
      stats,
      commentary: writeCommentary({ tokens: liveActivity, stats }),
    },
    sightings: sightingsOf(hints, answers, enriched),
    discoveryErrors: pools.errors,
    requests: maxRequests - budget.remaining,
    dropped,
    waves: second.batches.length > 0 ? 2 : 1,
  }
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
