import { describe, expect, it } from 'vitest'
import {
  DEFAULT_SEED_QUERIES,
  enrichmentCalls,
  HUB_TOKEN_ADDRESSES,
  leaderSlots,
  planFirstWave,
  planSecondWave,
  searchSlots,
  sightingsOf,
  volumeHints,
  WIDE_PROMOTED_LISTS,
} from '../../lib/read/controlRoom/wavePlan.js'
import type { Pair } from '../../lib/upstream/pair.js'

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`
const universe = Array.from({ length: 400 }, (_, i) => ({ address: address(1000 + i), volume24h: 1_000_000 - i, lastSeen: 0 }))
/** A Base pair of `base` against WETH with a 24h volume. */
const pair = (base: string, volume: number, chainId = 'base'): Pair =>
  ({
    chainId,
    baseToken: { address: base },
    quoteToken: { address: HUB_TOKEN_ADDRESSES[0] },
    volume: { h24: volume },
  }) as unknown as Pair

describe('wave 1 within the budget of 30 requests', () => {
  it('spends half on the seed searches and fills 5 batches with the hubs and the universe’s leaders', () => {
    expect(searchSlots({ maxRequests: 30, wideDiscovery: false })).toBe(15)
    const plan = planFirstWave({ seedQueries: DEFAULT_SEED_QUERIES, universe, maxRequests: 30, wideDiscovery: false })
    expect(plan.seeds).toEqual([...DEFAULT_SEED_QUERIES])
    expect(plan.lists).toEqual([])
    expect(plan.leaderBatches).toHaveLength(5)
    expect(plan.leaderBatches.every((b) => b.length === 30)).toBe(true)
    expect(plan.leaderBatches[0]!.slice(0, 4)).toEqual([...HUB_TOKEN_ADDRESSES])
    expect(plan.leaderBatches.flat()).toContain(address(1000)) // the top of the universe
    expect(plan.leaderBatches.flat()).not.toContain(address(1000 + 146)) // 4 hubs + 146 leaders
  })

  it('wide, keeps room for the lists, the hub batch, the retries and wave 2’s top 120, and never searches nothing', () => {
    expect(searchSlots({ maxRequests: 30, wideDiscovery: true })).toBe(30 - 3 - 1 - 3 - 4)
    const plan = planFirstWave({ seedQueries: DEFAULT_SEED_QUERIES, universe: [], maxRequests: 30, wideDiscovery: true })
    expect(plan.seeds).toHaveLength(19)
    expect(plan.lists).toEqual(WIDE_PROMOTED_LISTS)
    expect(plan.leaderBatches).toEqual([[...HUB_TOKEN_ADDRESSES]]) // a cold universe: the hubs alone
    expect(planFirstWave({ seedQueries: ['a'], universe: [], maxRequests: 2, wideDiscovery: true }).seeds).toEqual(['a'])
    expect(leaderSlots(30, 12, 0)).toBe(150)
    expect(leaderSlots(10, 5, 0)).toBe(60)
  })
})

describe('wave 2', () => {
  it('keeps 3 requests for retries, or spends the last one', () => {
    expect([10, 4, 3, 1, 0].map(enrichmentCalls)).toEqual([7, 1, 1, 1, 0])
  })

  it('enriches whoever would rank in the top 120 without an answer about itself, best first', () => {
    const enriched = new Set([address(1), address(2)])
    const answers = [pair(address(1), 500), pair(address(2), 10)]
    const hints = volumeHints([pair(address(3), 900), pair(address(4), 5), pair(address(5), 1, 'ethereum')], [address(6)])
    expect(hints.get(address(5))).toBeUndefined() // another chain tells nothing
    expect(hints.get(address(6))).toBe(0) // promoted, no volume seen
    const second = planSecondWave({ answers, enriched, hints, remembered: new Map([[address(7), 700]]), remaining: 10, wide: false })
    // The WETH they trade against is seen on the quote side with the same volume: a contender too.
    expect(second.missing).toEqual([address(3), HUB_TOKEN_ADDRESSES[0], address(7), address(4), address(6)])
    expect(second.batches).toEqual([second.missing])
    expect(planSecondWave({ answers, enriched, hints, remembered: new Map(), remaining: 0, wide: false }).batches).toEqual([])
  })

  it('learns an enriched token’s own volume as authoritative, a token seen beside others as a hint', () => {
    const enriched = new Set([address(1), address(9)])
    const sightings = sightingsOf(new Map([[address(3), 900]]), [pair(address(1), 500)], enriched)
    expect(sightings.get(address(1))).toEqual({ volume24h: 500, authoritative: true })
    expect(sightings.get(address(9))).toEqual({ volume24h: 0, authoritative: true }) // enriched, no pair of its own
    expect(sightings.get(address(3))).toEqual({ volume24h: 900, authoritative: false })
  })
})
