import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { ControlRoom } from '../../lib/market/types.js'
import { parseUniverse, serializeUniverse } from '../../lib/market/universe.js'
import { refreshControlRoom } from '../../lib/read/controlRoom/refresh.js'
import { DEFAULT_SEED_QUERIES, MAX_REQUESTS_PER_REFRESH } from '../../lib/read/controlRoom/wavePlan.js'
import { readKeys } from '../../lib/read/keys.js'
import { discoverIfDue } from '../../lib/read/universe/discovery.js'
import { parsePromotedBaseTokens } from '../../lib/upstream/dexscreener.js'
import { holdReads } from '../support/heldReads.js'
import { type ReadStack, readUntilFresh, startReadStack } from '../support/readStack.js'
import { openRespConnection } from '../support/resp.js'
import { createLongTailMarket, createSyntheticMarket, makePair, type RawPair, trueTopTokens } from '../support/syntheticMarket.js'

const get = () => new Request('https://svc.test/api/control-room')
const market = createLongTailMarket()
const truth = trueTopTokens(market)

type Logged = { event: string; waves?: number; dexscreenerRequests?: number; discoveryPages?: number; universe?: number }
const events = (logs: string[]) => logs.map((l) => JSON.parse(l) as Logged)

/** What a listed row says against what the token's own best pair says. */
function rowMatchesBestPair(row: ControlRoom['liveActivity'][number], best: RawPair) {
  return (
    row.pairAddress === String(best.pairAddress).toLowerCase() &&
    row.volume24h === (best.volume as { h24: number }).h24 &&
    row.priceUsd === best.priceUsd
  )
}

describe('the true top 100 on a long-tail market where names help nothing (Upstash over redis-server)', () => {
  let stack: ReadStack
  let first: ControlRoom
  beforeAll(async () => {
    stack = await startReadStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), market, withGecko: true })
    first = (await (await stack.controlRoom(get())).json()) as ControlRoom
  })
  afterAll(() => stack.close())

  it('lists at least 95 of the true top 100 after the first refresh', () => {
    const listed = new Set(first.liveActivity.map((t) => t.address))
    const found = [...truth.keys()].filter((address) => listed.has(address)).length
    expect(found).toBeGreaterThanOrEqual(95)
    expect(first.liveActivity).toHaveLength(100)
  })

  it('describes every row by its own best Base pair (price, volume, pair), never by a pair where it is quoted', () => {
    const everyBest = trueTopTokens(market, Number.MAX_SAFE_INTEGER)
    const wrong = first.liveActivity.filter((row) => !rowMatchesBestPair(row, everyBest.get(row.address)!))
    expect(wrong.map((r) => r.symbol)).toEqual([])
  })

  it('fed the universe from GeckoTerminal with the pinned API version, and kept it in the store', async () => {
    const pools = stack.gecko!.requests.filter((r) => r.path.startsWith('/networks/base/pools?sort=h24_volume_usd_desc'))
    expect(pools).toHaveLength(10)
    for (const r of pools) expect(r.accept).toBe('application/json;version=20230302')
    const redis = await openRespConnection(inject('redisSocket'))
    try {
      const universe = parseUniverse((await redis.send(['GET', readKeys(stack.services.keyPrefix).universe])) as string)
      expect(universe.length).toBeGreaterThan(150)
      expect(universe.length).toBeLessThanOrEqual(1000)
      for (const address of truth.keys()) expect(universe.map((e) => e.address)).toContain(address)
    } finally {
      redis.close()
    }
  })

  it('needs two waves cold, then one: a warm refresh enriches the universe leaders with the seed searches', async () => {
    // A stack of its own: the first refresh it logs is cold, whatever the other cases did.
    const own = await startReadStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), market, withGecko: true })
    try {
      const coldRoom = (await (await own.controlRoom(get())).json()) as ControlRoom
      const [cold] = events(own.logs).filter((e) => e.event === 'control_room_refreshed')
      expect(cold).toMatchObject({ waves: 2, discoveryPages: 10 })
      expect(cold!.dexscreenerRequests).toBeLessThanOrEqual(MAX_REQUESTS_PER_REFRESH)
      own.clock.now += 31_000
      const before = own.upstream.requests.length
      const warm = await readUntilFresh(own)
      const refreshed = events(own.logs).filter((e) => e.event === 'control_room_refreshed')
      expect(refreshed).toHaveLength(2)
      expect(refreshed[1]).toMatchObject({ waves: 1, discoveryPages: 0 })
      expect(own.upstream.requests.length - before).toBeLessThanOrEqual(MAX_REQUESTS_PER_REFRESH)
      expect(warm.liveActivity.map((t) => t.address)).toEqual(coldRoom.liveActivity.map((t) => t.address))
    } finally {
      await own.close()
    }
  })

  it('runs GeckoTerminal discovery at most once in 5 minutes across instances', async () => {
    const calls = stack.gecko!.requests.length
    for (let i = 0; i < 4; i++) {
      stack.clock.now += 31_000
      await Promise.all([stack.newInstance(), stack.newInstance()].map((instance) => readUntilFresh(instance)))
    }
    expect(stack.gecko!.requests.length).toBe(calls)
    const redis = await openRespConnection(inject('redisSocket'))
    try {
      const ttl = (await redis.send(['PTTL', `${stack.services.keyPrefix}gecko:discovery`])) as number
      expect(ttl).toBeGreaterThan(0)
      expect(ttl).toBeLessThanOrEqual(300_000)
    } finally {
      redis.close()
    }
  })

  it('a token that climbs into the top 100 between discoveries is enriched before it is shown', async () => {
    // A newcomer that only DexScreener's WETH search sees (as the quote side): it must be enriched, then shown from its own pair.
    const newcomer = { address: '0x00000000000000000000000000000000000bee01', name: 'QZX WRK', symbol: 'QZXW' }
    const weth = { address: '0x4200000000000000000000000000000000000006', name: 'Wrapped Ether', symbol: 'WETH' }
    const { makePair } = await import('../support/syntheticMarket.js')
    const own = makePair({
      base: newcomer,
      quote: weth,
      pairAddress: '0x00000000000000000000000000000000000bee02',
      volume24h: 25_000_000,
      priceUsd: '0.0042',
    })
    const quoted = makePair({
      base: weth,
      quote: newcomer,
      pairAddress: '0x00000000000000000000000000000000000bee03',
      volume24h: 90_000_000,
      priceUsd: '3120.55',
    })
    stack.upstream.setPairs([...market, own, quoted])
    stack.clock.now += 31_000
    const room = await readUntilFresh(stack)
    const row = room.liveActivity.find((t) => t.address === newcomer.address)
    expect(row).toMatchObject({ priceUsd: '0.0042', volume24h: 25_000_000, pairAddress: '0x00000000000000000000000000000000000bee02' })
    stack.upstream.setPairs(market)
  })
})

describe('without discovery (GECKOTERMINAL_BASE_URL empty), the same market', () => {
  it('is mostly invisible to name searches: the coverage test above is not a given', async () => {
    const stack = await startReadStack({ storeKind: 'memory', market })
    try {
      const room = (await (await stack.controlRoom(get())).json()) as ControlRoom
      const listed = new Set(room.liveActivity.map((t) => t.address))
      expect([...truth.keys()].filter((address) => listed.has(address)).length).toBeLessThan(80)
    } finally {
      await stack.close()
    }
  })
})

describe('GeckoTerminal answering 429', () => {
  it('keeps the refresh going, and every instance leaves GeckoTerminal alone for its Retry-After', async () => {
    const stack = await startReadStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), market, withGecko: true })
    try {
      stack.gecko!.failAlways({ kind: 'status', status: 429, headers: { 'retry-after': '45' } })
      const response = await stack.controlRoom(get())
      expect(response.status).toBe(200)
      expect(events(stack.logs)).toContainEqual(expect.objectContaining({ event: 'geckoterminal_rate_limited', backoffMs: 45_000 }))
      const calls = stack.gecko!.requests.length
      const redis = await openRespConnection(inject('redisSocket'))
      await redis.send(['DEL', `${stack.services.keyPrefix}gecko:discovery`]) // discovery due again, but backing off
      redis.close()
      stack.clock.now += 31_000
      await readUntilFresh(stack.newInstance())
      expect(stack.gecko!.requests.length).toBe(calls)
    } finally {
      await stack.close()
    }
  })
})

describe('failover to GeckoTerminal when DexScreener fails', () => {
  it('builds the control room from GeckoTerminal ranked pools, says so, and stays valid against the spec', async () => {
    const stack = await startReadStack({ storeKind: 'memory', market, withGecko: true })
    try {
      stack.upstream.failAlways('/', { kind: 'status', status: 503 })
      const response = await stack.controlRoom(get()) // checked against the OpenAPI document by the stack
      expect(response.status).toBe(200)
      expect(response.headers.get('x-data-source')).toBe('geckoterminal')
      const room = (await response.json()) as ControlRoom
      expect(room.liveActivity.length).toBeGreaterThanOrEqual(90)
      expect(room.trending).toEqual(room.liveActivity.slice(0, 15))
      const everyBest = trueTopTokens(market, Number.MAX_SAFE_INTEGER)
      for (const row of room.liveActivity) {
        expect(row.pairUrl).toBe(`https://www.geckoterminal.com/base/pools/${row.pairAddress}`)
        expect(rowMatchesBestPair(row, everyBest.get(row.address)!)).toBe(true)
      }
      expect(events(stack.logs)).toContainEqual(expect.objectContaining({ event: 'control_room_refreshed', source: 'geckoterminal' }))
    } finally {
      await stack.close()
    }
  })

  it('answers 500 when both providers fail and nothing young enough is cached', async () => {
    const stack = await startReadStack({ storeKind: 'memory', market, withGecko: true })
    try {
      stack.upstream.failAlways('/', { kind: 'status', status: 503 })
      stack.gecko!.failAlways({ kind: 'status', status: 500 })
      const response = await stack.controlRoom(get())
      expect(response.status).toBe(500)
      expect(await response.json()).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' })
    } finally {
      await stack.close()
    }
  })
})

describe('GeckoTerminal budget across many instances (Upstash over redis-server)', () => {
  it('never sends GeckoTerminal more than 30 calls in any rolling minute, however many instances refresh at once', async () => {
    const stack = await startReadStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), market, withGecko: true })
    try {
      // The worst case: DexScreener down, so every refresh of every instance wants 10 failover pages, and discovery is
      // due again at every step; six instances refresh together every 5 s for 3 minutes (an injected clock).
      stack.upstream.failAlways('/', { kind: 'status', status: 503 })
      const instances = [stack, ...Array.from({ length: 5 }, () => stack.newInstance())]
      const discoveryKey = `${stack.services.keyPrefix}gecko:discovery`
      const redis = await openRespConnection(inject('redisSocket'))
      let served = 0
      try {
        for (let step = 0; step < 36; step++, stack.clock.now += 5000) {
          await redis.send(['DEL', discoveryKey])
          const results = await Promise.allSettled(instances.map((instance) => refreshControlRoom(instance.services)))
          served += results.filter((r) => r.status === 'fulfilled' && r.value.source === 'geckoterminal').length
        }
      } finally {
        redis.close()
      }
      const calls = stack.gecko!.requests
      // GeckoTerminal's own limiter never had to refuse a call...
      expect(calls.filter((c) => c.status === 429)).toEqual([])
      // ...and no rolling minute (the fake's clock) holds more than 30 of them.
      const times = calls.map((c) => c.at).sort((a, b) => a - b)
      const busiest = Math.max(...times.map((t) => times.filter((u) => u > t - 60_000 && u <= t).length))
      expect(busiest).toBeLessThanOrEqual(30)
      // The budget was used, not just left alone: 3 minutes hold about 90 calls, and failover rooms were served.
      expect(calls.length).toBeGreaterThanOrEqual(80)
      expect(served).toBeGreaterThanOrEqual(3)
    } finally {
      await stack.close()
    }
  })
})

describe('discovery without GeckoTerminal on a market where names help (2000 hub-named tokens)', () => {
  const namesHelp = createSyntheticMarket({ tokens: 2000 })
  const top20 = [...trueTopTokens(namesHelp, 20).keys()]

  it.each([
    ['down (503)', { kind: 'status', status: 503 } as const],
    ['rate-limited (429)', { kind: 'status', status: 429, headers: { 'retry-after': '60' } } as const],
    ['off', null],
  ])('GeckoTerminal %s: the first room lists at least 60 tokens and 18 of the true top 20, in one refresh budget', async (_, fault) => {
    const stack = await startReadStack({ storeKind: 'memory', market: namesHelp, withGecko: fault !== null })
    try {
      if (fault) stack.gecko!.failAlways(fault)
      const room = (await (await stack.controlRoom(get())).json()) as ControlRoom
      const listed = new Set(room.liveActivity.map((t) => t.address))
      expect(room.liveActivity.length).toBeGreaterThanOrEqual(60)
      expect(top20.filter((address) => listed.has(address)).length).toBeGreaterThanOrEqual(18)
      const made = stack.upstream.requests
      expect(made.length).toBeLessThanOrEqual(MAX_REQUESTS_PER_REFRESH)
      // The wider discovery: more hub searches and DexScreener's promoted lists (filtered to Base).
      expect(made.filter((p) => p.startsWith('/latest/dex/search')).length).toBeGreaterThan(DEFAULT_SEED_QUERIES.length)
      expect(made).toEqual(expect.arrayContaining(['/token-boosts/latest/v1', '/token-boosts/top/v1', '/token-profiles/latest/v1']))
      const everyBest = trueTopTokens(namesHelp, Number.MAX_SAFE_INTEGER)
      for (const row of room.liveActivity) expect(rowMatchesBestPair(row, everyBest.get(row.address)!)).toBe(true)
    } finally {
      await stack.close()
    }
  })

  it('with a warm universe and GeckoTerminal healthy, spends no more than the usual searches', async () => {
    const stack = await startReadStack({ storeKind: 'memory', market: namesHelp, withGecko: true })
    try {
      await stack.controlRoom(get())
      stack.clock.now += 31_000
      const before = stack.upstream.requests.length
      await readUntilFresh(stack)
      const made = stack.upstream.requests.slice(before)
      expect(made.filter((p) => p.startsWith('/latest/dex/search')).length).toBe(DEFAULT_SEED_QUERIES.length)
      expect(made.filter((p) => p.startsWith('/token-'))).toEqual([])
    } finally {
      await stack.close()
    }
  })
})

describe('DexScreener promoted lists', () => {
  it('keeps only Base token addresses, lower-cased, once each, and refuses a body that is not a list', () => {
    const base = '0x00000000000000000000000000000000000000Ab'
    expect(
      parsePromotedBaseTokens([
        { chainId: 'solana', tokenAddress: 'So11111111111111111111111111111111111111112' },
        { chainId: 'base', tokenAddress: base },
        { chainId: 'base', tokenAddress: base.toLowerCase() },
        { chainId: 'base', tokenAddress: 'not-an-address' },
        { chainId: 'base' },
        null,
        7,
      ]),
    ).toEqual([base.toLowerCase()])
    expect(parsePromotedBaseTokens({ chainId: 'base', tokenAddress: base })).toEqual([base.toLowerCase()])
    expect(parsePromotedBaseTokens('<html>')).toBeNull()
  })
})

describe('discovery on its own (a tick whose control room was already fresh)', () => {
  it('reads the ranked pools when due, adds what the universe lacks, never lowers a volume, and is claimed once', async () => {
    const stack = await startReadStack({ storeKind: 'memory', market, withGecko: true })
    try {
      await stack.controlRoom(get())
      expect(await discoverIfDue(stack.services)).toMatchObject({ due: false }) // the refresh ran it
      // The universe forgot everything but one leader, whose remembered volume is higher than any pool shows.
      const key = readKeys(stack.services.keyPrefix).universe
      const leader = [...truth.keys()][0]!
      await stack.store.set(key, serializeUniverse([{ address: leader, volume24h: 9e12, lastSeen: stack.clock.now }]), 60_000)
      stack.clock.now += 61_000
      await stack.store.delete(`${stack.services.keyPrefix}gecko:discovery`)
      const result = await discoverIfDue(stack.services)
      expect(result).toMatchObject({ due: true, pages: 10, failedPages: 0 })
      expect(result.learned).toBeGreaterThan(50)
      const after = parseUniverse(await stack.store.get(key))
      expect(after.find((e) => e.address === leader)?.volume24h).toBe(9e12)
      // The true leaders are back in the universe, for the next refresh to enrich.
      const known = new Set(after.map((e) => e.address))
      expect([...truth.keys()].slice(0, 50).filter((a) => known.has(a)).length).toBeGreaterThanOrEqual(45)
      expect(await discoverIfDue(stack.services)).toMatchObject({ due: false })
    } finally {
      await stack.close()
    }
  })
})

describe('discovery and the refresh both write the universe (Upstash over redis-server)', () => {
  it('loses neither: a discovery that runs while a refresh is under way merges into what the refresh wrote', async () => {
    const stack = await startReadStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), withGecko: true })
    try {
      // GeckoTerminal knows one token DexScreener never mentions; DexScreener knows the rest of the market.
      const geckoOnly = { address: '0x00000000000000000000000000000000000ec0de', name: 'Only Gecko', symbol: 'OGK' }
      const weth = { address: '0x4200000000000000000000000000000000000006', name: 'Wrapped Ether', symbol: 'WETH' }
      stack.gecko!.setPairs([
        { ...makePair({ base: geckoOnly, quote: weth, pairAddress: '0x00000000000000000000000000000000000ec0d1', volume24h: 7_000_000 }) },
      ])
      const held = holdReads(stack.store)
      let waited: () => void
      const waiting = new Promise<void>((resolve) => {
        waited = resolve
      })
      const sleep = async () => {
        waited()
        await new Promise((resolve) => setImmediate(resolve))
      }
      const instance = stack.newInstance({ store: held.store, sleep })
      const universeKey = readKeys(instance.services.keyPrefix).universe
      // The refresh has read the universe and is building the room...
      const refreshRead = held.hold((key) => key === universeKey)
      const reading = instance.controlRoom(get())
      await refreshRead.reached
      // ...when the tick's discovery comes due on the same instance.
      const discoveryRead = held.hold((key) => key === universeKey)
      const discovering = discoverIfDue(instance.services)
      await Promise.race([discoveryRead.reached, waiting])
      refreshRead.release()
      expect((await reading).status).toBe(200)
      discoveryRead.release()
      expect(await discovering).toMatchObject({ due: true, learned: 1 })
      const universe = parseUniverse(await stack.store.get(universeKey)).map((e) => e.address)
      expect(universe).toContain(geckoOnly.address)
      const room = (await (await instance.controlRoom(get())).json()) as ControlRoom
      for (const token of room.liveActivity) expect(universe).toContain(token.address)
    } finally {
      await stack.close()
    }
  })
})
