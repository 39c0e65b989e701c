import { describe, expect, it } from 'vitest'
import { formatPercent, formatUsd, writeCommentary } from '../../lib/market/commentary.js'
import { pairToToken } from '../../lib/market/normalize.js'
import { rankTokens } from '../../lib/market/rank.js'
import { computeStats } from '../../lib/market/stats.js'
import type { Token } from '../../lib/market/types.js'
import { type Pair, parsePair } from '../../lib/upstream/pair.js'
import { HUBS, type MakePairParameters, makePair, mixCase } from '../support/syntheticMarket.js'

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`
const tokenInfo = (n: number) => ({ address: mixCase(addr(n)), name: `Token ${n}`, symbol: `T${n}` })
const pair = (p: Partial<MakePairParameters> & { n: number; volume24h: number }): Pair =>
  parsePair(makePair({ base: tokenInfo(p.n), quote: HUBS.WETH, pairAddress: addr(1000 + p.n * 10 + (p.volume24h % 7)), ...p }))!

describe('rankTokens', () => {
  it('keeps one entry per token: its Base pair as base token with the highest 24h volume', () => {
    const tokens = rankTokens({
      pairs: [
        pair({ n: 1, volume24h: 100, pairAddress: addr(11) }),
        pair({ n: 1, volume24h: 900, pairAddress: addr(12), dexId: 'aerodrome' }),
        pair({ n: 1, volume24h: 500, pairAddress: addr(13) }),
      ],
      limit: 100,
    })
    expect(tokens).toHaveLength(1)
    expect(tokens[0]).toMatchObject({ volume24h: 900, pairAddress: addr(12), dexId: 'aerodrome', rank: 1 })
  })

  it('treats checksummed and lower-case addresses as the same token', () => {
    const lower = parsePair(
      makePair({ base: { ...tokenInfo(2), address: addr(2) }, quote: HUBS.USDC, pairAddress: addr(21), volume24h: 10 }),
    )!
    const tokens = rankTokens({ pairs: [pair({ n: 2, volume24h: 50 }), lower], limit: 100 })
    expect(tokens.map((t) => t.address)).toEqual([addr(2)])
  })

  it('never describes a token by a pair where it is the quote side, nor by another chain', () => {
    const quoteSide = parsePair(
      makePair({ base: HUBS.WETH, quote: tokenInfo(3), pairAddress: addr(31), volume24h: 9_999_999, priceUsd: '3000' }),
    )!
    // Another chain's pair is not even parsed as a pair of this service.
    expect(
      parsePair(makePair({ chainId: 'ethereum', base: tokenInfo(3), quote: HUBS.USDC, pairAddress: addr(32), volume24h: 8_888_888 })),
    ).toBeNull()
    const tokens = rankTokens({ pairs: [quoteSide, pair({ n: 3, volume24h: 10, priceUsd: '0.01' })], limit: 100 })
    const t3 = tokens.find((t) => t.address === addr(3))!
    expect(t3).toMatchObject({ volume24h: 10, priceUsd: '0.01' })
    expect(tokens.find((t) => t.address === HUBS.WETH.address.toLowerCase())).toMatchObject({ volume24h: 9_999_999 })
  })

  it('sorts by 24h volume descending, ranks 1..n and cuts at the limit', () => {
    const pairs = Array.from({ length: 130 }, (_, i) => pair({ n: i + 1, volume24h: ((i * 37) % 131) + 1 }))
    const tokens = rankTokens({ pairs, limit: 100 })
    expect(tokens).toHaveLength(100)
    expect(tokens.map((t) => t.rank)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1))
    for (let i = 1; i < tokens.length; i++) expect(tokens[i - 1]!.volume24h).toBeGreaterThanOrEqual(tokens[i]!.volume24h)
  })

  it('gives the same order for the same data whatever order the pairs came in', () => {
    const pairs = [
      pair({ n: 5, volume24h: 10, liquidityUsd: 1 }),
      pair({ n: 6, volume24h: 10, liquidityUsd: 1 }),
      pair({ n: 7, volume24h: 10, liquidityUsd: 2 }),
    ]
    const a = rankTokens({ pairs, limit: 10 }).map((t) => t.address)
    const b = rankTokens({ pairs: [...pairs].reverse(), limit: 10 }).map((t) => t.address)
    expect(a).toEqual(b)
    expect(a[0]).toBe(addr(7))
  })
})

const token = (over: Partial<Token>): Token => ({ ...pairToToken(pair({ n: 9, volume24h: 1 }), 1), ...over })

describe('computeStats', () => {
  it('counts tokens, safe liquidity (>= 50,000 USD exactly) and sums 1h volume to the cent', () => {
    const tokens = [
      token({ liquidity: 50_000, volume1h: 0.1 }),
      token({ liquidity: 49_999.99, volume1h: 0.2 }),
      token({ liquidity: 1e9, volume1h: 0 }),
    ]
    expect(computeStats({ tokens, ts: 42 })).toEqual({ total: 3, safeCount: 2, totalVol1h: 0.3, ts: 42 })
    expect(computeStats({ tokens: [], ts: 1 })).toEqual({ total: 0, safeCount: 0, totalVol1h: 0, ts: 1 })
  })
})

describe('formatters', () => {
  it('formats USD and percentages the way people read them', () => {
    expect([formatUsd(1_234_567_890), formatUsd(45_600_000), formatUsd(12_345), formatUsd(950), formatUsd(0.5), formatUsd(50_000)]).toEqual(
      ['$1.23B', '$45.6M', '$12.3K', '$950', '$0.5', '$50K'],
    )
    expect([formatPercent(12.345), formatPercent(-4.56), formatPercent(0), formatPercent(-0.01)]).toEqual([
      '+12.3%',
      '-4.6%',
      '0.0%',
      '0.0%',
    ])
  })
})

describe('writeCommentary', () => {
  const tokens = [
    token({ symbol: 'AAA', volume24h: 5_000_000, liquidity: 2_000_000, priceChange24h: 4.2, volume1h: 100_000 }),
    token({ symbol: 'BBB', volume24h: 3_000_000, liquidity: 60_000, priceChange24h: -18.5, volume1h: 50_000 }),
    token({ symbol: 'CCC', volume24h: 1_000_000, liquidity: 10_000, priceChange24h: 250, volume1h: 10_000 }),
    token({ symbol: 'DDD', volume24h: 500_000, liquidity: 5_000, priceChange24h: null, volume1h: 0 }),
  ]
  const stats = computeStats({ tokens, ts: 0 })
  const text = writeCommentary({ tokens, stats })

  it('is 2 to 4 sentences with the concrete figures', () => {
    const sentences = text.split(/(?<=\.)\s+(?=[A-Z0-9])/)
    expect(sentences.length).toBeGreaterThanOrEqual(2)
    expect(sentences.length).toBeLessThanOrEqual(4)
    expect(text).toContain('AAA leads 4 tracked Base tokens with $5M of 24h volume, out of $9.5M in total.')
    expect(text).toContain('2 rose and 1 fell, with 1 flat or without a price change.')
    expect(text).toContain('2 of 4 (50%) hold at least $50K of liquidity')
    expect(text).toContain('the last hour traded $160K')
  })

  it('names the largest move only among tokens with safe liquidity', () => {
    expect(text).toContain('the largest 24h move is BBB at -18.5%')
    expect(text).not.toContain('CCC')
  })

  it('is the same text for the same data and says so when there is none', () => {
    expect(writeCommentary({ tokens, stats })).toBe(text)
    expect(writeCommentary({ tokens: [], stats: computeStats({ tokens: [], ts: 0 }) })).toBe('No Base token data is available right now.')
  })

  it('leaves out the mover sentence when no safe token has a 24h change', () => {
    const thin = [token({ symbol: 'ZZZ', liquidity: 10, priceChange24h: 99 })]
    const out = writeCommentary({ tokens: thin, stats: computeStats({ tokens: thin, ts: 0 }) })
    expect(out).not.toContain('largest')
    expect(out).toContain('1 rose and 0 fell.')
    expect(out).toContain('ZZZ leads 1 tracked Base token with')
  })
})
