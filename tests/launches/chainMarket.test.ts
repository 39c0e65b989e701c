import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { applySwaps, chainMarketOf, chainOhlcvRows, withPoolRead } from '../../lib/market/chainCandles.js'
import { type ChainLaunch, type ChainSwap, chainMarketStateSchema } from '../../lib/market/chainMarketState.js'
import {
  compareDecimals,
  decimalFraction,
  divideToSignificant,
  multiplyDecimals,
  tokenPriceEth,
  weiToEth,
} from '../../lib/market/poolPrice.js'

// The pure cores of a launch's market read from its own pool: the price maths (held to Uniswap's SDK), the candles a
// run of swaps makes, the market and the token-ohlcv rows they answer.

const require = createRequire(import.meta.url)
const { Ether, Token } = require('@uniswap/sdk-core') as typeof import('@uniswap/sdk-core')
const { TickMath } = require('@uniswap/v3-sdk') as typeof import('@uniswap/v3-sdk')
const { Pool } = require('@uniswap/v4-sdk') as typeof import('@uniswap/v4-sdk')
const JSBI = require('jsbi') as typeof import('jsbi').default

/** A seeded generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const MIN = BigInt(TickMath.MIN_SQRT_RATIO.toString())
const MAX = BigInt(TickMath.MAX_SQRT_RATIO.toString())
const TOKEN = '0x00000000000000000000000000000000000000aa'

/** A random sqrtPriceX96 in the pool's range, spread over its orders of magnitude. */
function randomSqrt(next: () => number): bigint {
  const bits = 33 + Math.floor(next() * 125) // 2^33 .. 2^158
  let value = 1n << BigInt(bits)
  value += BigInt(Math.floor(next() * 2 ** 52)) << BigInt(Math.max(0, bits - 53))
  return value < MIN ? MIN : value >= MAX ? MAX - 1n : value
}

/** e such that 10^e <= value < 10^(e+1), for a positive decimal string. */
function exponentOf(value: string): number {
  const [whole, fraction = ''] = value.split('.')
  if (/[1-9]/.test(whole!)) return whole!.replace(/^0+/, '').length - 1
  return -(fraction.search(/[1-9]/) + 1)
}

describe('the token’s price in ETH from sqrtPriceX96', () => {
  it('is exactly the SDK’s price of the token (v4 Pool.token1Price) to 18 significant digits, over 3,000 prices and every decimals 6..18', () => {
    const next = random(7)
    for (let i = 0; i < 3000; i++) {
      const sqrt = randomSqrt(next)
      const decimals = 6 + (i % 13)
      const pool = new Pool(
        Ether.onChain(8453),
        new Token(8453, '0x00000000000000000000000000000000000000aa', decimals),
        10000,
        200,
        '0x0000000000000000000000000000000000000000',
        sqrt.toString(),
        0,
        TickMath.getTickAtSqrtRatio(JSBI.BigInt(sqrt.toString())),
      )
      // ETH per whole token, as a fraction (the SDK's own, private to its types)
      const exact = (pool.token1Price as unknown as { adjustedForDecimals: { numerator: object; denominator: object } }).adjustedForDecimals
      const ours = tokenPriceEth(sqrt, decimals)
      const [n, d] = decimalFraction(ours)
      const num = BigInt(exact.numerator.toString())
      const den = BigInt(exact.denominator.toString())
      // |ours - exact| <= half a unit of the 18th significant digit: ours·den·D vs num·D, in integers.
      expect(ours.replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length).toBeLessThanOrEqual(18)
      // |ours - exact| <= half a unit of the 18th significant digit, 0.5·10^(e-17) with 10^e <= ours < 10^(e+1):
      // 2·|n·den - num·d|·10^17 <= d·den·10^e, in integers.
      const e = exponentOf(ours)
      const diff = n * den - num * d
      const abs = diff < 0n ? -diff : diff
      const lhs = 2n * abs * 10n ** 17n * (e < 0 ? 10n ** BigInt(-e) : 1n)
      const rhs = d * den * (e > 0 ? 10n ** BigInt(e) : 1n)
      expect(lhs <= rhs, `sqrt ${sqrt}, decimals ${decimals}: ${ours}`).toBe(true)
      // And it reads the same as the SDK's own rounding to 15 digits (away from double-rounding ties).
      expect(Number(ours) / Number(pool.token1Price.toSignificant(15))).toBeCloseTo(1, 12)
    }
  })

  it('is 1/price of ETH in the token: 10 ETH for 1e9 tokens of 18 decimals is 1e-8 ETH a token', () => {
    const sqrt = BigInt(
      require('@uniswap/v3-sdk')
        .encodeSqrtRatioX96((10n ** 27n).toString(), (10n ** 19n).toString())
        .toString(),
    )
    expect(tokenPriceEth(sqrt, 18)).toBe('0.00000001')
    expect(tokenPriceEth(1n << 96n, 18)).toBe('1') // one base unit per wei at equal decimals
    expect(tokenPriceEth(1n << 96n, 6)).toBe('0.000000000001')
    expect(() => tokenPriceEth(0n, 18)).toThrow(RangeError)
  })

  it('rounds half up at the last digit kept, carrying into a new digit', () => {
    expect(divideToSignificant(2n, 3n, 3)).toBe('0.667')
    expect(divideToSignificant(1n, 3n, 3)).toBe('0.333')
    expect(divideToSignificant(9995n, 10n, 3)).toBe('1000')
    expect(divideToSignificant(99_95n, 1000n, 3)).toBe('10')
    expect(divideToSignificant(1n, 8n, 2)).toBe('0.13')
    expect(divideToSignificant(10n ** 30n, 1n, 5)).toBe('1000000000000000000000000000000')
    expect(divideToSignificant(1n, 10n ** 30n, 5)).toBe(`0.${'0'.repeat(29)}1`)
  })

  it('multiplies, compares and converts decimal strings exactly', () => {
    expect(multiplyDecimals('0.00000001', '3000.5')).toBe('0.000030005')
    expect(multiplyDecimals('0', '3000')).toBe('0')
    expect(compareDecimals('0.10', '0.1')).toBe(0)
    expect(compareDecimals('0.0999999999999999999', '0.1')).toBe(-1)
    expect(compareDecimals('10', '9.99')).toBe(1)
    expect(weiToEth(1n)).toBe('0.000000000000000001')
    expect(weiToEth(1_500_000_000_000_000_000n)).toBe('1.5')
    expect(weiToEth(0n)).toBe('0')
  })
})

const launch: ChainLaunch = {
  token: TOKEN,
  poolId: `0x${'ab'.repeat(32)}`,
  decimals: 18,
  // 1e-8 ETH a token
  sqrtPriceX96: (10_000n << 96n).toString(),
}
/** sqrtPriceX96 at which the token costs `eth` ETH (18 decimals each): sqrt(1/eth) · 2^96. */
const sqrtAt = (ethPerToken: number) => BigInt(Math.round(Math.sqrt(1 / ethPerToken) * 2 ** 48)) << 48n
const swap = (at: number, block: number, logIndex: number, ethPerToken: number, wei: bigint): ChainSwap => ({
  amount0: wei,
  sqrtPriceX96: sqrtAt(ethPerToken),
  blockNumber: BigInt(block),
  logIndex,
  at,
})

describe('a launch’s candles and market from its swaps', () => {
  const T = 1_800_000_000 // a minute's start (divisible by 60 and 3600? 1_800_000_000 / 3600 = 500000)

  it('makes minute and hour candles that open at the price before their first trade, counting volume in wei and trades', () => {
    const swaps = [
      swap(T + 5, 100, 0, 2e-8, -(10n ** 17n)), // a buy: the price up
      swap(T + 30, 110, 3, 1.5e-8, 5n * 10n ** 16n), // a sell
      swap(T + 65, 120, 1, 3e-8, -2n * 10n ** 17n), // the next minute
    ]
    const state = applySwaps({ state: null, launch, swaps, wethUsd: '3000', now: T + 120 })!
    expect(chainMarketStateSchema.parse(JSON.parse(JSON.stringify(state)))).toEqual(state)
    expect(state.minutes.map((c) => [c.t, c.n, c.v])).toEqual([
      [T, 2, '150000000000000000'],
      [T + 60, 1, '200000000000000000'],
    ])
    const [first, second] = state.minutes
    expect(first!.o).toBe('0.00000001') // the pool's first price
    expect(Number(first!.h)).toBeCloseTo(2e-8, 20)
    expect(first!.l).toBe('0.00000001')
    expect(Number(first!.c)).toBeCloseTo(1.5e-8, 20)
    expect(second!.o).toBe(first!.c) // no jump between candles
    expect(state.hours).toHaveLength(1)
    expect(state.hours[0]).toMatchObject({ t: T, n: 3, v: '350000000000000000', o: '0.00000001', h: second!.c, l: '0.00000001' })
    expect(state.last).toEqual({ block: '120', logIndex: 1 })

    const market = chainMarketOf(state, T + 120, '3000')
    expect(market).toMatchObject({
      source: 'chain',
      pairAddress: launch.poolId,
      dexId: 'uniswap',
      priceEth: second!.c,
      liquidity: null,
      volume24hEth: '0.35',
      volume24h: 1050,
      trades24h: 3,
      firstSeenAt: new Date((T + 5) * 1000).toISOString(),
      lastTradeAt: new Date((T + 65) * 1000).toISOString(),
    })
    expect(Number(market.priceUsd)).toBeCloseTo(3e-8 * 3000, 15)
    // A day later the 24 h figures are empty; the price stays.
    expect(chainMarketOf(state, T + 86_400 + 120, '3000')).toMatchObject({ volume24hEth: '0', trades24h: 0, priceEth: second!.c })
    expect(chainMarketOf(state, T + 120, null)).toMatchObject({ priceUsd: null, volume24h: 0 })
    // USD goes through WETH's price now, not the one kept with the last swap: a quiet pool's USD price stays current.
    expect(chainMarketOf(state, T + 86_400, '4000').priceUsd).toBe(multiplyDecimals(second!.c, '4000'))
    expect(chainMarketOf(state, T + 120, '4000').volume24h).toBe(1400)
  })

  it('is born of a StateView read: a price, liquidity and market cap from the launch’s block, before any swap', () => {
    const supply = (10n ** 27n).toString()
    const born = withPoolRead({
      state: null,
      launch: { ...launch, supply },
      read: { sqrtPriceX96: BigInt(launch.sqrtPriceX96), tick: 184_200, liquidity: 0n, block: 50n },
      at: T,
    })!
    expect(chainMarketStateSchema.parse(JSON.parse(JSON.stringify(born)))).toEqual(born)
    expect(born).toMatchObject({ priceEth: '0.00000001', liquidity: '0', tick: 184_200, readBlock: '50', supply, seenAt: T })
    expect(chainMarketOf(born, T + 1, '3000')).toEqual({
      source: 'chain',
      pairAddress: launch.poolId,
      dexId: 'uniswap',
      priceEth: '0.00000001',
      priceUsd: '0.00003',
      liquidity: 0, // at birth the current tick is the position's edge: what the chain says
      marketCapEth: '10',
      volume24h: 0,
      volume24hEth: '0',
      trades24h: 0,
      pairUrl: `https://dexscreener.com/base/${launch.poolId}`,
      firstSeenAt: new Date(T * 1000).toISOString(),
      lastTradeAt: null,
    })
    // An uninitialised pool says nothing; a read older than the one kept changes nothing.
    const none = { sqrtPriceX96: 0n, tick: 0, liquidity: 0n, block: 51n }
    expect(withPoolRead({ state: null, launch, read: none, at: T })).toBeNull()
    expect(withPoolRead({ state: born, launch, read: { ...none, sqrtPriceX96: 1n << 96n, block: 49n }, at: T })).toBe(born)
    // The first swap then opens its candles at the born price, and keeps the born time as first seen.
    const traded = applySwaps({ state: born, launch, swaps: [swap(T + 90, 60, 0, 2e-8, -(10n ** 17n))], wethUsd: '3000', now: T + 120 })!
    expect(traded).toMatchObject({ firstTradeAt: T + 90, lastTradeAt: T + 90, seenAt: T, liquidity: '0', supply })
    expect(traded.minutes[0]).toMatchObject({ o: '0.00000001', n: 1 })
    expect(chainMarketOf(traded, T + 120, '3000')).toMatchObject({
      firstSeenAt: new Date(T * 1000).toISOString(),
      lastTradeAt: new Date((T + 90) * 1000).toISOString(),
      trades24h: 1,
    })
    // The tick's next read after that swap: its price (the same block or later) and the liquidity now in range.
    const read = { sqrtPriceX96: sqrtAt(2e-8), tick: 177_200, liquidity: 12345n, block: 60n }
    const after = withPoolRead({ state: traded, launch, read, at: T + 120 })!
    expect(after).toMatchObject({ liquidity: '12345', tick: 177_200, readBlock: '60', priceEth: tokenPriceEth(sqrtAt(2e-8), 18) })
    expect(Number(chainMarketOf(after, T + 120, null).marketCapEth)).toBeCloseTo(20, 6)
    // A read from before the last swap counted keeps the swap's price, and takes the liquidity.
    const late = applySwaps({ state: after, launch, swaps: [swap(T + 130, 70, 0, 3e-8, -1n)], wethUsd: null, now: T + 130 })!
    const older = withPoolRead({ state: late, launch, read: { ...read, liquidity: 999n, block: 65n }, at: T + 140 })!
    expect(older).toMatchObject({ liquidity: '999', priceEth: late.priceEth })
  })

  it('counts a swap once: swaps at or before the last counted are skipped, whatever order and however often they come', () => {
    const swaps = Array.from({ length: 40 }, (_, i) => swap(T + i * 17, 100 + Math.floor(i / 3), i % 3, 1e-8 * (1 + i / 50), -(10n ** 15n)))
    const once = applySwaps({ state: null, launch, swaps, wethUsd: null, now: T + 3600 })!
    // Read again in overlapping ranges, in pieces: the same state.
    let pieces = applySwaps({ state: null, launch, swaps: swaps.slice(0, 25), wethUsd: null, now: T + 3600 })
    pieces = applySwaps({ state: pieces, launch, swaps: swaps.slice(10, 33), wethUsd: null, now: T + 3600 })
    pieces = applySwaps({ state: pieces, launch, swaps, wethUsd: null, now: T + 3600 })
    expect(pieces).toEqual(once)
    expect(once.minutes.reduce((n, c) => n + c.n, 0)).toBe(40)
    expect(applySwaps({ state: once, launch, swaps, wethUsd: null, now: T + 3600 })).toBe(once)
    expect(applySwaps({ state: null, launch, swaps: [], wethUsd: null, now: T })).toBeNull()
  })

  it('keeps minute candles a day and hour candles 30 days', () => {
    const old = applySwaps({ state: null, launch, swaps: [swap(T, 1, 0, 1e-8, 1n)], wethUsd: null, now: T })!
    const later = applySwaps({ state: old, launch, swaps: [swap(T + 2 * 86_400, 2, 0, 1e-8, 1n)], wethUsd: null, now: T + 2 * 86_400 })!
    expect(later.minutes.map((c) => c.t)).toEqual([T + 2 * 86_400])
    expect(later.hours.map((c) => c.t)).toEqual([T, T + 2 * 86_400])
    const month = applySwaps({ state: later, launch, swaps: [swap(T + 31 * 86_400, 3, 0, 1e-8, 1n)], wethUsd: null, now: T + 31 * 86_400 })!
    expect(month.hours.map((c) => c.t)).toEqual([T + 2 * 86_400, T + 31 * 86_400])
  })

  it('answers token-ohlcv rows newest first, joined into the asked length, in ETH or in USD through WETH', () => {
    const swaps = [
      swap(T + 10, 1, 0, 2e-8, -(10n ** 18n)),
      swap(T + 70, 2, 0, 4e-8, -(10n ** 18n)),
      swap(T + 130, 3, 0, 3e-8, 10n ** 18n),
      swap(T + 400, 4, 0, 5e-8, -(10n ** 18n)),
    ]
    const state = applySwaps({ state: null, launch, swaps, wethUsd: '2000', now: T + 600 })!
    const minute = chainOhlcvRows({ state, seconds: 60, currency: 'token', before: null, limit: 100 })
    expect(minute.map((r) => r[0])).toEqual([T + 360, T + 120, T + 60, T])
    expect(minute.map((r) => r[5])).toEqual([1, 1, 1, 1])
    const five = chainOhlcvRows({ state, seconds: 300, currency: 'token', before: null, limit: 100 })
    expect(five.map((r) => r[0])).toEqual([T + 300, T])
    const [, firstFive] = five
    expect(firstFive![1]).toBeCloseTo(1e-8, 20) // open: the pool's first price
    expect(firstFive![2]).toBeCloseTo(4e-8, 20) // high
    expect(firstFive![3]).toBeCloseTo(1e-8, 20) // low
    expect(firstFive![4]).toBeCloseTo(3e-8, 20) // close
    expect(firstFive![5]).toBe(3)
    const usd = chainOhlcvRows({ state, seconds: 300, currency: 'usd', before: null, limit: 100 })
    expect(usd[1]![4]).toBeCloseTo(3e-8 * 2000, 15)
    expect(usd[1]![5]).toBe(6000)
    expect(chainOhlcvRows({ state, seconds: 60, currency: 'token', before: T + 120, limit: 1 }).map((r) => r[0])).toEqual([T + 60])
    expect(chainOhlcvRows({ state, seconds: 3600, currency: 'token', before: null, limit: 10 })).toHaveLength(1)
    expect(chainOhlcvRows({ state, seconds: 86_400, currency: 'token', before: null, limit: 10 })[0]![5]).toBe(4)
    expect(
      chainOhlcvRows({
        state: { ...state, wethUsd: null, minutes: state.minutes.map((c) => ({ ...c, u: null })) },
        seconds: 60,
        currency: 'usd',
        before: null,
        limit: 10,
      }),
    ).toEqual([])
  })
})
