import { describe, expect, it } from 'vitest'
import { pairToToken } from '../../lib/market/normalize.js'
import { sanitizeText } from '../../lib/market/sanitize.js'
import { TOKEN_FIELDS } from '../../lib/market/types.js'
import { parsePair, parsePairsBody } from '../../lib/upstream/pair.js'
import { HUBS, makePair } from '../support/syntheticMarket.js'

const TOKEN = { address: '0xAbCdEf0000000000000000000000000000000001', name: 'Test Token', symbol: 'TEST' }
const raw = (overrides: Record<string, unknown> = {}) => ({
  ...makePair({
    base: TOKEN,
    quote: HUBS.WETH,
    pairAddress: '0xPAIR000000000000000000000000000000000001'.replace('PAIR', 'aBcD'),
    volume24h: 120_000,
  }),
  ...overrides,
})
const toToken = (overrides: Record<string, unknown> = {}) => pairToToken(parsePair(raw(overrides))!, 7)

describe('pairToToken', () => {
  it('gives exactly the 24 fields docs/api.md lists, in order, with their types', () => {
    const token = toToken()
    expect(Object.keys(token)).toEqual([...TOKEN_FIELDS])
    expect(token).toMatchObject({
      rank: 7,
      address: '0xabcdef0000000000000000000000000000000001',
      name: 'Test Token',
      symbol: 'TEST',
      priceUsd: '1.2345',
      priceChange24h: 3.4,
      volume24h: 120_000,
      volume1h: 5000,
      volume6h: 30_000,
      liquidity: 40_000,
      marketCap: 960_000,
      fdv: 1_200_000,
      pairAddress: '0xabcd000000000000000000000000000000000001',
      pairCreatedAt: 1_700_000_000_000,
      dexId: 'uniswap',
      pairName: 'TEST/WETH',
    })
    expect(token.pairUrl).toMatch(/^https:\/\/dexscreener\.com\/base\//)
    expect(typeof token.buys24h).toBe('number')
  })

  it('keeps priceUsd as the upstream string, never a number or NaN', () => {
    expect(toToken({ priceUsd: '0.000000012' }).priceUsd).toBe('0.000000012')
    expect(toToken({ priceUsd: 'NaN' }).priceUsd).toBeNull()
    expect(toToken({ priceUsd: 'abc' }).priceUsd).toBeNull()
    expect(toToken({ priceUsd: null }).priceUsd).toBeNull()
    expect(toToken({ priceUsd: undefined }).priceUsd).toBeNull()
    expect(toToken({ priceUsd: 0.5 }).priceUsd).toBe('0.5')
    expect(toToken({ priceUsd: '-1' }).priceUsd).toBeNull()
  })

  it('falls back when optional upstream fields are missing', () => {
    const token = toToken({
      liquidity: undefined,
      marketCap: undefined,
      priceChange: undefined,
      info: undefined,
      labels: null,
      pairCreatedAt: null,
      fdv: null,
      txns: undefined,
      volume: { h24: '5000' },
    })
    expect(token.liquidity).toBe(0)
    expect(token.marketCap).toBe(0)
    expect(token.fdv).toBe(0)
    expect([token.priceChange5m, token.priceChange1h, token.priceChange6h, token.priceChange24h]).toEqual([null, null, null, null])
    expect(token.pairCreatedAt).toBeNull()
    expect([token.buys1h, token.sells1h, token.buys24h, token.sells24h]).toEqual([0, 0, 0, 0])
    expect(token.volume24h).toBe(5000)
    expect(token.volume1h).toBe(0)
  })

  it('uses fdv as marketCap when there is no market cap', () => {
    expect(toToken({ marketCap: null, fdv: 777 }).marketCap).toBe(777)
    expect(toToken({ marketCap: 0, fdv: 777 }).marketCap).toBe(777)
    expect(toToken({ marketCap: 5, fdv: 777 }).marketCap).toBe(5)
  })

  it('never lets NaN, Infinity or negative amounts through', () => {
    const token = toToken({ volume: { h1: 'NaN', h6: -5, h24: 'Infinity' }, fdv: 'x', liquidity: { usd: -1 } })
    expect([token.volume1h, token.volume6h, token.volume24h, token.fdv, token.liquidity]).toEqual([0, 0, 0, 0, 0])
    expect(JSON.stringify(token)).not.toMatch(/NaN|Infinity/)
  })

  it('links only the aggregators’ own https pages, and otherwise builds the link from the pool', () => {
    const pool = '0xabcd000000000000000000000000000000000001'
    for (const url of [
      'javascript:alert(1)',
      'https://evil.example/base/x',
      'http://dexscreener.com/base/x',
      'https://dexscreener.com.evil.example/x',
      'https://user:pw@dexscreener.com/x',
      null,
    ])
      expect(toToken({ url }).pairUrl).toBe(`https://dexscreener.com/base/${pool}`)
    expect(toToken({ url: 'https://www.geckoterminal.com/base/pools/0x1' }).pairUrl).toBe('https://www.geckoterminal.com/base/pools/0x1')
  })

  it('keeps a 32-byte Uniswap v4 pool id as the pair address, lower-cased, and its link', () => {
    const id = `0x${'AbCd'.repeat(16)}`
    const token = toToken({ pairAddress: id, url: `https://dexscreener.com/base/${id}` })
    expect(token.pairAddress).toBe(id.toLowerCase())
    expect(token.pairUrl).toBe(`https://dexscreener.com/base/${id}`)
  })

  it('reads pairCreatedAt given in seconds as milliseconds', () => {
    expect(toToken({ pairCreatedAt: 1_700_000_000 }).pairCreatedAt).toBe(1_700_000_000_000)
  })

  it('sanitises names and symbols from the upstream', () => {
    const token = toToken({
      baseToken: { ...TOKEN, name: 'Evil\u202Egnp.exe\u0000 Coin\n\n', symbol: `\u200BSCAM\u2066${'X'.repeat(60)}` },
    })
    expect(token.name).toBe('Evilgnp.exe Coin')
    expect(token.symbol).not.toMatch(/[\u200B\u2066]/)
    expect(Array.from(token.symbol).length).toBeLessThanOrEqual(24)
    expect(token.pairName.startsWith(`${token.symbol}/`)).toBe(true)
  })

  it('falls back to the symbol when the name is empty and to the name when the symbol is; never to ?', () => {
    expect(toToken({ baseToken: { ...TOKEN, name: '\u200F' } }).name).toBe('TEST')
    expect(toToken({ baseToken: { ...TOKEN, symbol: '\u200B' } })).toMatchObject({ symbol: 'Test Token', name: 'Test Token' })
    // Text that sanitises to nothing leaves the short address, and an unnamed quote its own.
    const token = toToken({ baseToken: { ...TOKEN, name: '\u200F', symbol: '\u200B' }, quoteToken: { address: HUBS.USDC.address } })
    expect([token.name, token.symbol, token.pairName]).toEqual(['0xabcd…0001', '0xabcd…0001', '0xabcd…0001/0x8335…2913'])
  })

  it('names the exchange in DexScreener’s words whichever source sent the pair', () => {
    expect(toToken({ dexId: 'uniswap' }).dexId).toBe('uniswap')
    expect(toToken({ dexId: 'uniswap-v3-base' }).dexId).toBe('uniswap')
    expect(toToken({ dexId: 'aerodrome-slipstream-3' }).dexId).toBe('aerodrome')
    expect(toToken({ dexId: null }).dexId).toBe('unknown')
  })
})

describe('sanitizeText', () => {
  it('caps by code points and never splits an emoji', () => {
    expect(sanitizeText('🚀'.repeat(10), 3)).toBe('🚀🚀🚀')
    expect(sanitizeText('  a\tb  ', 10)).toBe('a b')
    expect(sanitizeText(null, 10)).toBe('')
  })
})

describe('parsePairsBody', () => {
  it('accepts a bare array, { pairs }, and pairs: null', () => {
    expect(parsePairsBody([raw()])).toHaveLength(1)
    expect(parsePairsBody({ schemaVersion: '1', pairs: [raw()] })).toHaveLength(1)
    expect(parsePairsBody({ schemaVersion: '1', pairs: null })).toEqual([])
  })
  it('drops elements that are not pairs and refuses bodies of another shape', () => {
    expect(parsePairsBody([raw(), { chainId: 'base' }, null, 5, { ...raw(), baseToken: { name: 'x' } }])).toHaveLength(1)
    expect(parsePairsBody({ message: 'rate limited' })).toBeNull()
    expect(parsePairsBody('x')).toBeNull()
    expect(parsePairsBody({ pairs: 'x' })).toBeNull()
  })
})

describe('parsePair, field by field', () => {
  it('reads every reshaped, mistyped or missing field as null, never failing the pair', () => {
    const pair = parsePair({
      ...raw(),
      dexId: 7,
      url: null,
      quoteToken: 'WETH',
      priceUsd: '-1',
      txns: { h1: 'many', h24: { buys: '12', sells: null } },
      volume: [1, 2, 3],
      priceChange: { m5: 'NaN', h1: Infinity, h6: '1e3', h24: '' },
      liquidity: { usd: '250000.5' },
      fdv: {},
      marketCap: undefined,
      pairCreatedAt: '1700000000000',
    })!
    expect(pair).toMatchObject({
      dexId: null,
      url: null,
      quoteToken: { address: null, name: null, symbol: null },
      priceUsd: null,
      txns: { h1: { buys: null, sells: null }, h24: { buys: 12, sells: null } },
      volume: { h1: null, h6: null, h24: null },
      priceChange: { m5: null, h1: null, h6: 1000, h24: null },
      liquidityUsd: 250000.5,
      fdv: null,
      marketCap: null,
      pairCreatedAt: 1_700_000_000_000,
    })
    expect(Object.keys(pair).sort()).toEqual(
      [
        'baseToken',
        'chainId',
        'dexId',
        'fdv',
        'liquidityUsd',
        'marketCap',
        'pairAddress',
        'pairCreatedAt',
        'priceChange',
        'priceUsd',
        'quoteToken',
        'txns',
        'url',
        'volume',
      ].sort(),
    )
  })

  it('leaves out Base rows it cannot show, counting each by cause, and other chains uncounted', () => {
    const dropped = {}
    const pairs = parsePairsBody(
      [
        raw(),
        raw({ pairAddress: 'not-an-address' }),
        raw({ pairAddress: `0x${'1'.repeat(50)}` }),
        raw({ pairAddress: undefined }),
        raw({ baseToken: { ...TOKEN, address: '0x12' } }),
        raw({ baseToken: { address: TOKEN.address, name: null, symbol: ' ' } }),
        raw({ chainId: 'solana', pairAddress: 'So11111111111111111111111111111111111111112' }),
      ],
      dropped,
    )
    expect(pairs).toHaveLength(1)
    expect(dropped).toEqual({ poolId: 3, tokenAddress: 1, symbol: 1 })
  })

  it('needs a chain and an object base token with an address', () => {
    for (const bad of [
      null,
      [],
      'pair',
      { ...raw(), chainId: 8453 },
      { ...raw(), baseToken: [raw().baseToken] },
      { ...raw(), baseToken: { address: 1 } },
    ]) {
      expect(parsePair(bad)).toBeNull()
    }
  })
})
