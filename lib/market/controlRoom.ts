import { setMaxListeners } from 'node:events'
import { TOKENS_BATCH_SIZE, UpstreamError, type DexScreenerClient, type RequestBudget } from '../upstream/dexscreener.js'
import type { Pair } from '../upstream/pair.js'
import { writeCommentary } from './commentary.js'
import { BASE_CHAIN_ID, rankTokens } from './rank.js'
import { computeStats } from './stats.js'
import { CONTROL_ROOM_LIMIT, TRENDING_LENGTH, type ControlRoom } from './types.js'
import { isHexAddress } from './normalize.js'

/** Searches that seed the candidate set: Base hub assets and names that reach most of Base's active pairs. */
export const DEFAULT_SEED_QUERIES = [
  'WETH', 'USDC', 'cbBTC', 'AERO', 'VIRTUAL', 'DEGEN', 'BRETT', 'TOSHI', 'ZORA', 'clanker', 'base', 'cbETH',
] as const

/** Most upstream requests one refresh may make, retries included. */
export const MAX_REQUESTS_PER_REFRESH = 30

/** Requests of the budget left for retries when the enrichment wave is planned. */
const RETRY_RESERVE = 3

/** Parameters of {@link buildControlRoom}. */
export type BuildControlRoomParameters = {
  upstream: DexScreenerClient
  now?: () => number
  seedQueries?: readonly string[]
  /** Deadline of the whole refresh (default 10 s). */
  refreshTimeoutMs?: number
  /** Request budget of the refresh, retries included (default 30). */
  maxRequests?: number
}

/**
 * Assembles the control room from the upstream: wave 1 searches the seeds in parallel, wave 2 enriches the
 * candidate tokens (highest volume first) in parallel batches of 30, then ranks, counts and comments.
 * Throws {@link UpstreamError} when a whole wave fails; partial failures only narrow the candidate set.
 */
export async function buildControlRoom(parameters: BuildControlRoomParameters): Promise<ControlRoom> {
  const {
    upstream,
    now = Date.now,
    seedQueries = DEFAULT_SEED_QUERIES,
    refreshTimeoutMs = 10_000,
    maxRequests = MAX_REQUESTS_PER_REFRESH,
  } = parameters
  const signal = AbortSignal.timeout(refreshTimeoutMs)
  // Every call of the refresh (up to the request budget) listens to this one signal.
  setMaxListeners(maxRequests + 8, signal)
  const budget: RequestBudget = { remaining: maxRequests }
  const seeds = seedQueries.slice(0, Math.max(1, Math.floor(maxRequests / 2)))

  const wave1 = await settleAll(seeds.map((q) => upstream.search(q, { signal, budget })))
  if (wave1.values.length === 0) throw rootCause(wave1.errors)
  const seedPairs = wave1.values.flat()

  // Every address seen on Base, scored by the largest 24h volume it was seen with, on either side of a pair.
  const score = new Map<string, number>()
  for (const pair of seedPairs) {
    if (pair.chainId !== BASE_CHAIN_ID) continue
    const volume = pair.volume.h24 ?? 0
    for (const address of [pair.baseToken.address, pair.quoteToken.address]) {
      if (!isHexAddress(address)) continue
      const key = address.toLowerCase()
      score.set(key, Math.max(score.get(key) ?? 0, volume))
    }
  }
  // Keep a few requests of the budget for retries of the enrichment wave.
  const batchesAllowed = budget.remaining > RETRY_RESERVE ? budget.remaining - RETRY_RESERVE : budget.remaining
  const candidates = [...score.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, batchesAllowed * TOKENS_BATCH_SIZE)
    .map(([address]) => address)
  const batches: string[][] = []
  for (let i = 0; i < candidates.length; i += TOKENS_BATCH_SIZE) batches.push(candidates.slice(i, i + TOKENS_BATCH_SIZE))

  const wave2 = await settleAll(batches.map((batch) => upstream.tokens(batch, { signal, budget })))
  if (batches.length > 0 && wave2.values.length === 0) throw rootCause(wave2.errors)

  const liveActivity = rankTokens({ pairs: [...seedPairs, ...wave2.values.flat()] as Pair[], limit: CONTROL_ROOM_LIMIT })
  const stats = computeStats({ tokens: liveActivity, ts: now() })
  return {
    liveActivity,
    trending: liveActivity.slice(0, TRENDING_LENGTH),
    stats,
    commentary: writeCommentary({ tokens: liveActivity, stats }),
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
  for (const r of results) (r.status === 'fulfilled' ? values.push(r.value) : errors.push(r.reason))
  return { values, errors }
}

