import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import { TOKEN_FIELDS, type TokenSearchResult } from '../../lib/market/types.js'
import { type ReadStack, type StoreKind, startReadStack } from '../support/readStack.js'
import { HUBS, makePair } from '../support/syntheticMarket.js'

/** Past the 600 s in which a last good body is still served: the next read is cold. */
const PAST_GRACE_MS = 11 * 60_000

const search = (q: string | null, init: RequestInit = {}) =>
  new Request(`https://svc.test/api/token-search${q === null ? '' : `?q=${encodeURIComponent(q)}`}`, init)

describe.each<StoreKind>(['memory', 'upstash'])('GET /api/token-search on the %s store', (storeKind) => {
  let stack: ReadStack
  beforeAll(async () => {
    stack = await startReadStack({ storeKind, redisSocket: inject('redisSocket') })
  })
  afterAll(() => stack.close())
  afterEach(() => {
    stack.upstream.clearFaults()
    stack.clock.now += PAST_GRACE_MS
  })

  it("serves a term's last good body while the upstream fails, up to STALE_IF_ERROR_SECONDS, then 502", async () => {
    const first = await (await stack.tokenSearch(search('degen'))).text()
    stack.upstream.failAlways('/', { kind: 'status', status: 503 })
    stack.clock.now += 120_000
    const stale = await stack.tokenSearch(search('degen'))
    expect(stale.status).toBe(200)
    expect(await stale.text()).toBe(first)
    expect(stale.headers.get('x-data-state')).toBe('stale')
    expect(stale.headers.get('x-data-age')).toBe('120')
    await stack.drain() // the background refresh fails and changes nothing
    stack.clock.now += 481_000
    const gone = await stack.tokenSearch(search('degen'))
    expect(gone.status).toBe(502)
    expect(await gone.json()).toMatchObject({ code: 'UPSTREAM_ERROR' })
  })

  it('returns Base pairs whose base token matches, by 24h volume, with rank, total and the trimmed query', async () => {
    const response = await stack.tokenSearch(search('  brett '))
    expect(response.status).toBe(200)
    const body = (await response.json()) as TokenSearchResult
    expect(Object.keys(body)).toEqual(['tokens', 'total', 'query'])
    expect(body.query).toBe('brett')
    expect(body.total).toBe(body.tokens.length)
    expect(body.total).toBeGreaterThan(1)
    for (const [i, token] of body.tokens.entries()) {
      expect(Object.keys(token)).toEqual([...TOKEN_FIELDS])
      expect(token.rank).toBe(i + 1)
      expect(`${token.symbol} ${token.name}`.toLowerCase()).toContain('brett')
      if (i > 0) expect(body.tokens[i - 1]!.volume24h).toBeGreaterThanOrEqual(token.volume24h)
    }
    // The Solana namesakes in the market (900M volume) never appear.
    expect(body.tokens.every((t) => t.address.startsWith('0x') && t.volume24h < 900_000_000)).toBe(true)
  })

  it('lists every matching pair of a token, not only its best', async () => {
    const body = (await (await stack.tokenSearch(search('AERO'))).json()) as TokenSearchResult
    expect(body.tokens[0]).toMatchObject({ symbol: 'AERO', pairName: 'AERO/WETH' })
  })

  it('matches a token by its address', async () => {
    const body = (await (await stack.tokenSearch(search(HUBS.AERO.address.toLowerCase()))).json()) as TokenSearchResult
    expect(body.tokens.map((t) => t.address)).toEqual([HUBS.AERO.address.toLowerCase()])
  })

  it('answers 200 with no tokens when nothing on Base matches', async () => {
    stack.upstream.failOnce('/latest/dex/search', { kind: 'json', body: { schemaVersion: '1.0.0', pairs: null } })
    const response = await stack.tokenSearch(search('nothing-like-this'))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ tokens: [], total: 0, query: 'nothing-like-this' })
    const solanaOnly = [
      makePair({
        chainId: 'solana',
        base: { address: 'So11111111111111111111111111111111111111112', name: 'Wrapped SOL', symbol: 'SOL' },
        quote: HUBS.USDC,
        pairAddress: 'abc',
        volume24h: 5,
      }),
    ]
    stack.upstream.failOnce('/latest/dex/search', { kind: 'json', body: { pairs: solanaOnly } })
    expect(await (await stack.tokenSearch(search('SOL'))).json()).toEqual({ tokens: [], total: 0, query: 'SOL' })
  })

  it.each([
    [null, 'QUERY_REQUIRED'],
    ['', 'QUERY_REQUIRED'],
    ['   ', 'QUERY_REQUIRED'],
    ['x'.repeat(65), 'QUERY_TOO_LONG'],
  ])('answers 400 for q=%j without calling the upstream', async (q, code) => {
    const before = stack.upstream.requests.length
    const response = await stack.tokenSearch(search(q))
    expect(response.status).toBe(400)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(await response.json()).toEqual({ error: expect.any(String), code })
    expect(stack.upstream.requests.length).toBe(before)
  })

  it.each([
    ['a 500', { kind: 'status' as const, status: 500 }],
    ['an HTML page', { kind: 'html' as const }],
    ['a reset connection', { kind: 'reset' as const }],
  ])('answers 502 when the upstream answers %s, and does not cache it', async (_, fault) => {
    stack.upstream.failAlways('/latest/dex/search', fault)
    const response = await stack.tokenSearch(search('degen'))
    expect(response.status).toBe(502)
    expect(await response.json()).toEqual({ error: expect.any(String), code: 'UPSTREAM_ERROR' })
    stack.upstream.clearFaults()
    expect((await stack.tokenSearch(search('degen'))).status).toBe(200)
  })

  it('caches a term for 30 s (same body, one upstream call) and sends an ETag', async () => {
    const before = stack.upstream.requests.length
    const [a, b] = await Promise.all([stack.tokenSearch(search('toshi')), stack.tokenSearch(search('toshi'))])
    expect(await a.text()).toBe(await b.text())
    expect(stack.upstream.requests.length - before).toBe(1)
    const c = await stack.tokenSearch(search('toshi', { headers: { 'if-none-match': a.headers.get('etag')! } }))
    expect(c.status).toBe(304)
  })

  it('answers OPTIONS with 204 and other methods with 405', async () => {
    expect((await stack.tokenSearch(search('x', { method: 'OPTIONS' }))).status).toBe(204)
    expect((await stack.tokenSearch(search('x', { method: 'PUT' }))).status).toBe(405)
  })
})
