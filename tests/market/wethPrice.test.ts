import { describe, expect, it } from 'vitest'
import { WETH_ADDRESS, wethUsdAmong } from '../../lib/market/wethPrice.js'
import { parseCachedBody } from '../../lib/read/cache/cachedBody.js'
import { readKeys } from '../../lib/read/keys.js'
import { readWethUsd, wethUsdOfRoomBody } from '../../lib/read/roomWethPrice.js'
import { createMemoryStore } from '../../lib/store/memory.js'

// WETH's USD price as the control room says it: what a dry run, the launches feed and a launch's candles turn ETH into
// USD with, always the room's current one.

const weth = (priceUsd: string | null) => ({ address: WETH_ADDRESS.toUpperCase().replace('0X', '0x'), priceUsd })

describe('WETH’s price in the control room', () => {
  it('is WETH’s priceUsd among the room’s tokens, any case of its address; null when absent, unpriced or not a price', () => {
    expect(wethUsdAmong([{ address: '0x01', priceUsd: '1' }, weth('3012.5')])).toBe('3012.5')
    for (const tokens of [
      null,
      undefined,
      [],
      [{ address: '0x01', priceUsd: '3000' }],
      [weth(null)],
      [weth('0')],
      [weth('1e3')],
      [weth('-1')],
    ])
      expect(wethUsdAmong(tokens), JSON.stringify(tokens)).toBeNull()
  })

  it('reads it from a room body, parsing only addresses and prices', () => {
    expect(wethUsdOfRoomBody(JSON.stringify({ liveActivity: [weth('2999.99')], stats: {}, commentary: '' }))).toBe('2999.99')
    expect(wethUsdOfRoomBody('not json')).toBeNull()
    expect(wethUsdOfRoomBody(JSON.stringify({ liveActivity: 'no' }))).toBeNull()
  })

  it('is the instance’s fresh copy first (no store command), else the shared body (one read), else unknown', async () => {
    const store = createMemoryStore()
    const key = readKeys('t:').controlRoom
    const body = (price: string) => JSON.stringify({ liveActivity: [weth(price)] })
    let reads = 0
    const counted = {
      ...store,
      get: (k: string) => {
        reads++
        return store.get(k)
      },
    }
    expect(await readWethUsd({ store: counted, keyPrefix: 't:' })).toBeNull()
    await store.set(key, JSON.stringify({ body: body('3000'), etag: '"a"', fetchedAt: 0, expiresAt: 0 }), 60_000)
    expect(parseCachedBody(await store.get(key))?.body).toBe(body('3000'))
    reads = 0
    expect(await readWethUsd({ store: counted, keyPrefix: 't:' })).toBe('3000')
    expect(reads).toBe(1)
    const entry = { body: body('3100'), etag: '"b"', fetchedAt: 1, expiresAt: 2, bytes: new Uint8Array() }
    const cache = { peek: (k: string) => (k === key ? { entry, stale: false } : null) }
    reads = 0
    expect(await readWethUsd({ store: counted, keyPrefix: 't:', cache })).toBe('3100')
    expect(reads).toBe(0)
  })
})
