import { describe, expect, it } from 'vitest'
import { pairToToken } from '../../lib/market/normalize.js'
import {
  mergeSightings,
  parseUniverse,
  serializeUniverse,
  UNIVERSE_MAX,
  UNIVERSE_MAX_AGE_MS,
  type UniverseEntry,
  universeLeaders,
} from '../../lib/market/universe.js'
import { parseGeckoPoolsBody } from '../../lib/upstream/geckoterminal.js'
import { toGeckoPool } from '../support/fakeGeckoTerminal.js'
import { HUBS, makePair } from '../support/syntheticMarket.js'

const token = { address: '0xAbCdef0000000000000000000000000000000001', name: 'Qrx Zt', symbol: 'QRX' }
const pair = makePair({
  base: token,
  quote: HUBS.WETH,
  pairAddress: '0x1111111111111111111111111111111111111111',
  volume24h: 1_234_567,
  liquidityUsd: 40_000,
  priceUsd: '0.00012',
  createdAt: 1_763_700_000_000,
})

describe('parseGeckoPoolsBody (GeckoTerminal pools -> the 24-field Token)', () => {
  const { pool, tokens } = toGeckoPool(pair)
  const body = { data: [pool], included: tokens }

  it('maps a pool to a Token field by field, as the spec types them, with the pool on GeckoTerminal as pairUrl', () => {
    const [parsed] = parseGeckoPoolsBody(body)!
    const t = pairToToken(parsed!, 1)
    expect(t).toMatchObject({
      address: token.address.toLowerCase(),
      name: 'Qrx Zt',
      symbol: 'QRX',
      priceUsd: '0.00012',
      volume24h: 1_234_567,
      liquidity: 40_000,
      fdv: 12_345_670,
      marketCap: expect.any(Number), // a string on every Base pool
      pairAddress: '0x1111111111111111111111111111111111111111',
      pairCreatedAt: 1_763_700_000_000,
      pairUrl: 'https://www.geckoterminal.com/base/pools/0x1111111111111111111111111111111111111111',
      dexId: 'uniswap', // GeckoTerminal's uniswap-v3-base, in DexScreener's words
      pairName: 'QRX/WETH',
      priceChange24h: pair.priceChange && (pair.priceChange as { h24: number }).h24,
    })
    expect(typeof t.buys24h).toBe('number')
    expect(t.buys24h).toBeGreaterThan(0)
  })

  it('takes the token from the relationship id and the pool name when `included` lacks it, and drops pools without one', () => {
    const dropped = {}
    const bare = parseGeckoPoolsBody({ data: [pool, { id: 'x', attributes: {}, relationships: {} }, 'junk', null] }, dropped)!
    expect(bare).toHaveLength(1)
    expect(bare[0]!.baseToken).toEqual({ address: token.address.toLowerCase(), name: 'QRX', symbol: 'QRX' })
    expect(bare[0]!.quoteToken.symbol).toBe('WETH')
    expect(dropped).toEqual({ tokenAddress: 1 })
    const t = pairToToken(bare[0]!, 1)
    expect([t.name, t.symbol, t.pairName]).toEqual(['QRX', 'QRX', 'QRX/WETH'])
  })

  it('reads strings and nulls tolerantly, and refuses a body that is not a pools answer', () => {
    const odd = structuredClone(pool) as { attributes: Record<string, unknown> }
    odd.attributes.volume_usd = { h24: 'not a number' }
    odd.attributes.base_token_price_usd = null
    odd.attributes.pool_created_at = 'yesterday'
    const [p] = parseGeckoPoolsBody({ data: [odd], included: tokens })!
    expect(p).toMatchObject({ priceUsd: null, pairCreatedAt: null, volume: { h24: null } })
    for (const bad of [null, [], {}, { data: 'x' }, 'html']) expect(parseGeckoPoolsBody(bad)).toBeNull()
    expect(parseGeckoPoolsBody({ data: [] })).toEqual([])
  })
})

describe('the token universe', () => {
  const now = 1_800_000_000_000
  const entry = (n: number, volume24h: number, lastSeen = now): UniverseEntry => ({
    address: `0x${n.toString(16).padStart(40, '0')}`,
    volume24h,
    lastSeen,
  })

  it('replaces a sighted token volume, keeps the unseen, drops what was unseen for a day, keeps the 1,000 highest', () => {
    const universe = [entry(1, 10), entry(2, 20, now - UNIVERSE_MAX_AGE_MS), entry(3, 30, now - 1000)]
    const merged = mergeSightings(universe, new Map([[entry(1, 0).address, { volume24h: 99, authoritative: true }]]), now)
    expect(merged).toEqual([entry(1, 99), entry(3, 30, now - 1000)])
    const many = new Map(
      Array.from({ length: 1500 }, (_, i) => [entry(i + 10, 0).address, { volume24h: i, authoritative: false }] as const),
    )
    const bounded = mergeSightings([], many, now)
    expect(bounded).toHaveLength(UNIVERSE_MAX)
    expect(bounded[0]!.volume24h).toBe(1499)
    expect(bounded.at(-1)!.volume24h).toBe(500)
  })

  it('names its leaders by volume, and survives a round trip through the store and any garbage in it', () => {
    const universe = [entry(1, 5), entry(2, 50), entry(3, 500)]
    expect(universeLeaders(universe, 2)).toEqual([entry(3, 0).address, entry(2, 0).address])
    expect(parseUniverse(serializeUniverse(universe))).toEqual(universe)
    for (const bad of [null, '', 'not json', '{}', '[1,2]', '[["0xZZ",1,1]]']) expect(parseUniverse(bad)).toEqual([])
  })
})
