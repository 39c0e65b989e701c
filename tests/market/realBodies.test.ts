import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { canonicalDexId } from '../../lib/market/dexIds.js'
import { rankTokens } from '../../lib/market/rank.js'
import { tokenSchema } from '../../lib/market/types.js'
import { parsePromotedBaseTokens } from '../../lib/upstream/dexscreener.js'
import type { DroppedRows } from '../../lib/upstream/fields.js'
import { parseCandlesBody, parseGeckoPoolsBody, symbolsOfPoolName } from '../../lib/upstream/geckoterminal.js'
import { parsePairsBody } from '../../lib/upstream/pair.js'
import { toGeckoPool } from '../support/fakeGeckoTerminal.js'
import { LIQUIDITY_ABSENT_SHARE, V4_SHARE } from '../support/realShapes.js'
import { createLongTailMarket, HUBS } from '../support/syntheticMarket.js'

/** One body per upstream endpoint the service reads, in the shapes the real APIs send (written here, not recorded). */
const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'upstream', `${name}.json`), 'utf8'))

const V4_POOL = '0x8f3b1c2d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9'
const YOUNG = '0x9a3dc15e1b7f8e2d4c6a0b9e8f7d6c5b4a392e01'

describe('real DexScreener bodies through the parsers', () => {
  it('/latest/dex/search: keeps the v4 pool, reads missing windows and fields as null, and counts what it drops', () => {
    const dropped: DroppedRows = {}
    const pairs = parsePairsBody(fixture('dexscreener-search'), dropped)!
    // 7 pairs: one on Solana (not ours, uncounted), one whose pool id is 2 bytes (dropped and counted).
    expect(pairs).toHaveLength(5)
    expect(dropped).toEqual({ poolId: 1 })
    const v4 = pairs.find((p) => p.pairAddress.toLowerCase() === V4_POOL)!
    expect(v4).toMatchObject({
      dexId: 'uniswap',
      liquidityUsd: null,
      priceChange: { m5: null, h1: -3.41, h6: 12.8, h24: 184.2 },
      baseToken: { address: '0x9A3dC15e1B7f8E2D4c6a0B9e8F7d6C5b4A392e01' },
    })
    const bare = pairs.find((p) => p.baseToken.symbol === 'HBQ')!
    expect(bare).toMatchObject({ priceChange: { m5: null, h1: null, h6: null, h24: null }, fdv: null, marketCap: null, liquidityUsd: null })
    expect(pairs.find((p) => p.baseToken.symbol === 'ZRKT')).toMatchObject({ pairCreatedAt: null, priceChange: { h24: -22.7, h1: null } })

    const tokens = rankTokens({ pairs, limit: 100 })
    for (const token of tokens) expect(tokenSchema.safeParse(token).success, token.symbol).toBe(true)
    expect(tokens[0]).toMatchObject({
      address: YOUNG,
      pairAddress: V4_POOL,
      pairUrl: `https://dexscreener.com/base/${V4_POOL}`,
      pairName: 'QVXR/ETH',
    })
    // WETH appears only as the base of a pair in which BREW is the quote; BREW is described by its own pair.
    expect(tokens.find((t) => t.symbol === 'BREW')).toMatchObject({ priceUsd: '0.4019', pairName: 'BREW/USDC' })
  })

  it('/tokens/v1: a bare array, the token’s best pair chosen among v4 and v2 pools', () => {
    const pairs = parsePairsBody(fixture('dexscreener-tokens'))!
    expect(pairs).toHaveLength(3)
    const [best] = rankTokens({ pairs, limit: 100 })
    expect(best).toMatchObject({ address: YOUNG, pairAddress: V4_POOL, volume24h: 4_812_345.12, dexId: 'uniswap' })
  })

  it('promoted lists: boosts (amount, a bare-hash icon) and profiles (no amount, cto) give their Base tokens once', () => {
    expect(parsePromotedBaseTokens(fixture('dexscreener-token-boosts'))).toEqual([YOUNG])
    expect(parsePromotedBaseTokens(fixture('dexscreener-token-profiles'))).toEqual(['0x22af33bc7d81e9a0c4f5b6d7e8f9a0b1c2d3e4f5'])
    for (const bad of [null, 'html', 5]) expect(parsePromotedBaseTokens(bad)).toBeNull()
  })
})

describe('real GeckoTerminal bodies through the parsers', () => {
  it('/networks/base/pools: v4 and launchpad pools, native ETH, a token missing from included, strings and nulls', () => {
    const dropped: DroppedRows = {}
    const pairs = parseGeckoPoolsBody(fixture('geckoterminal-pools'), dropped)!
    // 10 pools: one with a 2-byte address, one whose token is neither included nor named.
    expect(pairs).toHaveLength(8)
    expect(dropped).toEqual({ poolId: 1, symbol: 1 })
    const tokens = rankTokens({ pairs, limit: 100 })
    for (const token of tokens) {
      expect(tokenSchema.safeParse(token).success, token.symbol).toBe(true)
      expect(token.pairUrl).toBe(`https://www.geckoterminal.com/base/pools/${token.pairAddress}`)
      expect(`${token.name} ${token.symbol} ${token.pairName}`).not.toContain('?')
    }
    const bySymbol = new Map(tokens.map((t) => [t.symbol, t]))
    expect(bySymbol.get('QVXR')).toMatchObject({ pairAddress: V4_POOL, dexId: 'uniswap', pairName: 'QVXR/ETH', marketCap: 13_002_000.5 })
    expect(bySymbol.get('BNKR9')).toMatchObject({ dexId: 'uniswap', pairName: 'BNKR9/WETH' })
    expect(bySymbol.get('O1X')).toMatchObject({ dexId: 'uniswap', fdv: 0, marketCap: 2_100_000, pairCreatedAt: null })
    expect(bySymbol.get('ZRKT')!.dexId).toBe('aerodrome')
    expect(bySymbol.get('BREW')).toMatchObject({ dexId: 'uniswap', pairCreatedAt: Date.parse('2024-11-07T17:20:00Z') })
    // Not in `included`: the pool's name gives the symbol, used as the name too.
    expect(bySymbol.get('XDP')).toMatchObject({ name: 'XDP', pairName: 'XDP/USDC', dexId: 'pancakeswap', liquidity: 0, fdv: 0 })
    expect(bySymbol.get('DGN')!.dexId).toBe('sushiswap')
  })

  it('OHLCV: exponent notation and a repeated oldest timestamp', () => {
    const candles = parseCandlesBody(fixture('geckoterminal-ohlcv'))!
    expect(candles.map((c) => c.t / 1000)).toEqual([1763908800, 1763909400, 1763910000, 1763910300])
    expect(candles.map((c) => c.close)).toEqual([1.55e-5, 1.59e-5, 1.612e-5, 1.64e-5])
  })
})

describe('one dexId vocabulary, DexScreener’s', () => {
  it.each([
    ['uniswap', 'uniswap'],
    ['uniswap-v2-base', 'uniswap'],
    ['uniswap-v3-base', 'uniswap'],
    ['uniswap-v4-base', 'uniswap'],
    ['aerodrome', 'aerodrome'],
    ['aerodrome-base', 'aerodrome'],
    ['aerodrome-slipstream-3', 'aerodrome'],
    ['aerodrome-slipstream', 'aerodrome'],
    ['pancakeswap-v3-base', 'pancakeswap'],
    ['sushiswap-v3-base', 'sushiswap'],
    ['baseswap-v2-base', 'baseswap'],
    ['Uniswap-V3-Base', 'uniswap'],
    ['some-new-dex-base', 'some-new-dex'],
    ['uniswapx-base', 'uniswapx'],
    ['bankr', 'bankr'],
  ])('%s -> %s', (dexId, expected) => {
    expect(canonicalDexId({ dexId, pairAddress: '0x1111111111111111111111111111111111111111' })).toBe(expected)
  })

  it('reads a v4-hook launchpad pool (32-byte id) as uniswap, as DexScreener lists it', () => {
    expect(canonicalDexId({ dexId: 'bankr', pairAddress: V4_POOL })).toBe('uniswap')
    expect(canonicalDexId({ dexId: 'o1-launchpad', pairAddress: V4_POOL })).toBe('uniswap')
    expect(canonicalDexId({ dexId: 'some-launchpad', pairAddress: V4_POOL })).toBe('some-launchpad')
  })

  it('splits pool names into their symbols, the fee left out', () => {
    expect(symbolsOfPoolName('XDP / USDC 0.01%')).toEqual({ base: 'XDP', quote: 'USDC' })
    expect(symbolsOfPoolName('A B / WETH')).toEqual({ base: 'A B', quote: 'WETH' })
    expect(symbolsOfPoolName('1% / ETH 1%')).toEqual({ base: '1%', quote: 'ETH' })
    for (const bad of ['', 'XDP', ' / USDC', null]) expect(symbolsOfPoolName(bad).base).toBeNull()
  })
})

describe('the fakes send the real shapes, in realistic shares', () => {
  const market = createLongTailMarket({ tokens: 600 })
  const young = market.filter(
    (p) => p.chainId === 'base' && !Object.values(HUBS).some((h) => h.address.toLowerCase() === p.baseToken.address.toLowerCase()),
  )
  const share = (test: (p: (typeof market)[number]) => boolean) => young.filter(test).length / young.length

  it('DexScreener pairs: v4 pool ids, missing liquidity, partial priceChange windows, absent labels and info', () => {
    expect(share((p) => /^0x[0-9a-fA-F]{64}$/.test(String(p.pairAddress)))).toBeGreaterThan(V4_SHARE - 0.1)
    expect(share((p) => /^0x[0-9a-fA-F]{64}$/.test(String(p.pairAddress)))).toBeLessThan(V4_SHARE + 0.1)
    expect(Math.abs(share((p) => !('liquidity' in p)) - LIQUIDITY_ABSENT_SHARE)).toBeLessThan(0.06)
    const allWindows = share((p) => Object.keys(p.priceChange as object).length === 4)
    expect(allWindows).toBeGreaterThan(0.3)
    expect(allWindows).toBeLessThan(0.6)
    expect(share((p) => Object.keys(p.priceChange as object).length === 0)).toBeGreaterThan(0)
    expect(share((p) => !('labels' in p))).toBeGreaterThan(0.35)
    expect(share((p) => !('info' in p))).toBeGreaterThan(0.35)
    expect(share((p) => 'boosts' in p)).toBeGreaterThan(0.03)
    for (const p of young.filter((p) => /^0x[0-9a-fA-F]{64}$/.test(String(p.pairAddress))))
      expect(String(p.url)).toBe(`https://dexscreener.com/base/${p.pairAddress}`)
    // Every generated pair still parses: the shapes cost fields, never rows.
    const dropped: DroppedRows = {}
    expect(parsePairsBody(market, dropped)).toHaveLength(market.filter((p) => p.chainId === 'base').length)
    expect(dropped).toEqual({})
  })

  it('GeckoTerminal pools: lower-case ids, launchpad dexes, native ETH, missing included tokens, strings everywhere', () => {
    const pools = young.map(toGeckoPool)
    const ids = pools.map(({ pool }) => (pool as { relationships: { dex: { data: { id: string } } } }).relationships.dex.data.id)
    for (const id of ['uniswap-v4-base', 'uniswap-v3-base', 'bankr', 'o1-launchpad', 'aerodrome-base', 'aerodrome-slipstream-3'])
      expect(ids, id).toContain(id)
    const text = JSON.stringify(pools)
    expect(text).not.toMatch(/base_0x[0-9a-f]*[A-F]/)
    expect(text).toContain('base_0x0000000000000000000000000000000000000000')
    const withoutBase = pools.filter(({ pool, tokens }) => {
      const baseId = (pool as { relationships: { base_token: { data: { id: string } } } }).relationships.base_token.data.id
      return !tokens.some((t) => (t as { id: string }).id === baseId)
    })
    expect(withoutBase.length / pools.length).toBeGreaterThan(0.05)
    // Parsed, no pool is lost and none is named `?`.
    const dropped: DroppedRows = {}
    const included = [...new Map(pools.flatMap((p) => p.tokens).map((t) => [(t as { id: string }).id, t])).values()]
    const parsed = parseGeckoPoolsBody({ data: pools.map((p) => p.pool), included }, dropped)!
    expect(parsed).toHaveLength(pools.length)
    expect(dropped).toEqual({})
    for (const token of rankTokens({ pairs: parsed, limit: 1000 })) expect(token.symbol).not.toBe('?')
  })
})
