import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import { type ControlRoom, TOKEN_FIELDS } from '../../lib/market/types.js'
import { MAX_REQUESTS_PER_REFRESH } from '../../lib/read/controlRoom/wavePlan.js'
import { createControlRoomEndpoint } from '../../lib/read/endpoint.js'
import { type ReadStack, readUntilFresh, type StoreKind, startReadStack } from '../support/readStack.js'
import { createSyntheticMarket, HUBS } from '../support/syntheticMarket.js'

/** Past the 600 s in which a last good body is still served: the next read is cold. */
const PAST_GRACE_MS = 11 * 60_000

const URL_CR = 'https://svc.test/api/control-room'
const get = (headers: Record<string, string> = {}, method = 'GET') => new Request(URL_CR, { method, headers })

/** Lets a background refresh finish (or fail) before the next step. */
const settle = (stack: ReadStack) => stack.drain()

describe.each<StoreKind>(['memory', 'upstash'])('GET /api/control-room on the %s store', (storeKind) => {
  let stack: ReadStack
  beforeAll(async () => {
    stack = await startReadStack({ storeKind, redisSocket: inject('redisSocket') })
  })
  afterAll(() => stack.close())
  afterEach(() => {
    stack.upstream.clearFaults()
    stack.upstream.setPairs(createSyntheticMarket())
    stack.clock.now += PAST_GRACE_MS // every test starts on a cold cache
  })

  it('serves 100 Base tokens with the 24 spec fields, trending = first 15, stats and commentary', async () => {
    const response = await stack.controlRoom(get())
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('application/json')
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    const body = (await response.json()) as ControlRoom
    expect(Object.keys(body)).toEqual(['liveActivity', 'trending', 'stats', 'commentary'])
    expect(body.liveActivity).toHaveLength(100)
    expect(body.trending).toEqual(body.liveActivity.slice(0, 15))
    for (const [i, token] of body.liveActivity.entries()) {
      expect(Object.keys(token)).toEqual([...TOKEN_FIELDS])
      expect(token.rank).toBe(i + 1)
      expect(token.address).toMatch(/^0x[0-9a-f]{40}$/)
      expect(token.priceUsd === null || typeof token.priceUsd === 'string').toBe(true)
      if (i > 0) expect(body.liveActivity[i - 1]!.volume24h).toBeGreaterThanOrEqual(token.volume24h)
    }
    expect(new Set(body.liveActivity.map((t) => t.address)).size).toBe(100)
    // WETH is described by its own pair (WETH/USDC), not by the pairs where it is quoted.
    const weth = body.liveActivity.find((t) => t.address === HUBS.WETH.address)!
    expect(weth).toMatchObject({ pairName: 'WETH/USDC', priceUsd: '3120.55', volume24h: 180_000_000, rank: 1 })
    expect(body.stats).toEqual({
      total: 100,
      safeCount: body.liveActivity.filter((t) => t.liquidity >= 50_000).length,
      totalVol1h: Math.round(body.liveActivity.reduce((s, t) => s + t.volume1h, 0) * 100) / 100,
      ts: stack.clock.now,
    })
    expect(body.commentary).toContain('WETH leads 100 tracked Base tokens')
  })

  it('makes at most 30 upstream requests per refresh, searches first, then batches of at most 30 addresses', async () => {
    const before = stack.upstream.requests.length
    await stack.controlRoom(get())
    const made = stack.upstream.requests.slice(before)
    expect(made.length).toBeLessThanOrEqual(MAX_REQUESTS_PER_REFRESH)
    expect(made.some((p) => p.startsWith('/latest/dex/search'))).toBe(true)
    const batches = made.filter((p) => p.startsWith('/tokens/v1/base/'))
    expect(batches.length).toBeGreaterThan(0)
    for (const path of batches) expect(path.split('/').pop()!.split(',').length).toBeLessThanOrEqual(30)
  })

  it('returns the same body for 30 s; after the window answers at once from it while one refresh runs, then the new one', async () => {
    const first = await stack.controlRoom(get())
    const firstBody = await first.text()
    const requests = stack.upstream.requests.length
    stack.clock.now += 29_000
    const second = await stack.controlRoom(get())
    expect(await second.text()).toBe(firstBody)
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'))
    expect(second.headers.get('x-data-state')).toBe('fresh')
    expect(stack.upstream.requests.length).toBe(requests)
    expect(Number(second.headers.get('cache-control')!.match(/s-maxage=(\d+)/)![1])).toBeLessThanOrEqual(1)
    stack.clock.now += 2_000
    // Past the window: the last body, at once, said to be stale, while the refresh runs in the background.
    const third = await stack.controlRoom(get())
    expect(await third.text()).toBe(firstBody)
    expect(third.headers.get('x-data-state')).toBe('stale')
    expect(third.headers.get('x-data-age')).toBe('31')
    expect(third.headers.get('cache-control')).toMatch(/max-age=0, s-maxage=0, stale-while-revalidate=30, stale-if-error=600/)
    const fresh = await readUntilFresh(stack)
    expect(fresh.stats.ts).toBe(stack.clock.now)
    expect(fresh.stats.ts).not.toBe((JSON.parse(firstBody) as ControlRoom).stats.ts)
    expect(stack.upstream.requests.length).toBeGreaterThan(requests)
  })

  it('answers a late request without waiting for the upstream: the refresh hangs, the body comes', async () => {
    const first = await (await stack.controlRoom(get())).text()
    stack.upstream.failAlways('/', { kind: 'hang' })
    stack.clock.now += 45_000
    const late = await stack.controlRoom(get())
    expect(late.status).toBe(200)
    expect(await late.text()).toBe(first)
    expect(late.headers.get('x-data-state')).toBe('stale')
  })

  it('during an outage asks the upstream once per few seconds, not once per request for the stale body', async () => {
    await stack.controlRoom(get())
    stack.upstream.failAlways('/', { kind: 'status', status: 503 })
    stack.clock.now += 45_000
    const before = stack.upstream.requests.length
    for (let i = 0; i < 20; i++) {
      const response = await stack.controlRoom(get())
      expect(response.headers.get('x-data-state')).toBe('stale')
      await settle(stack)
    }
    // One failed background refresh (its WETH search tried at most 3 times), never 20 refreshes' worth.
    const wethCalls = stack.upstream.requests.slice(before).filter((p) => p === '/latest/dex/search?q=WETH').length
    expect(wethCalls).toBeGreaterThan(0)
    expect(wethCalls).toBeLessThanOrEqual(3)
  })

  it('serves the last good body while the upstream is down, up to STALE_IF_ERROR_SECONDS, then 500', async () => {
    const first = await (await stack.controlRoom(get())).text()
    stack.upstream.failAlways('/', { kind: 'status', status: 503 })
    for (const age of [60_000, 300_000, 590_000]) {
      stack.clock.now += age - (stack.clock.now - (JSON.parse(first) as ControlRoom).stats.ts)
      const response = await stack.controlRoom(get())
      expect(response.status).toBe(200)
      expect(await response.text()).toBe(first)
      expect(response.headers.get('x-data-state')).toBe('stale')
      expect(Number(response.headers.get('x-data-age'))).toBe(age / 1000)
      await settle(stack)
    }
    stack.clock.now += 11_000 // 601 s old
    const expired = await stack.controlRoom(get())
    expect(expired.status).toBe(500)
    expect(await expired.json()).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' })
  })

  it('counts X-Data-Age up and max-age down by the second on warm answers, 200s and 304s alike', async () => {
    const first = await stack.controlRoom(get())
    const etag = first.headers.get('etag')!
    const seen = async () => {
      const [ok, notModified] = [await stack.controlRoom(get()), await stack.controlRoom(get({ 'if-none-match': etag }))]
      expect(notModified.status).toBe(304)
      return [ok, notModified].map((r) => `${r.headers.get('x-data-age')} ${/max-age=(\d+)/.exec(r.headers.get('cache-control')!)![1]}`)
    }
    expect(await seen()).toEqual(['0 30', '0 30'])
    stack.clock.now += 400 // the same second: the same headers
    expect(await seen()).toEqual(['0 30', '0 30'])
    stack.clock.now += 1100
    expect(await seen()).toEqual(['1 29', '1 29'])
    stack.clock.now += 12_000
    expect(await seen()).toEqual(['13 17', '13 17'])
  })

  it('answers a warm read at once, id and all; a read past the window refreshes under its request’s id', async () => {
    const served = createControlRoomEndpoint(() => stack.services).fetch
    await (await served(get())).arrayBuffer()
    const before = stack.logs.length
    const warm = served(get())
    expect(warm).toBeInstanceOf(Response) // no promise to wait for
    expect((warm as Response).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    expect(stack.logs.length).toBe(before)
    // Past the window the instance has no fresh copy: the handler proper answers, and the refresh it starts logs
    // under the request's id.
    stack.clock.now += 31_000
    const stale = served(get())
    expect(stale).toBeInstanceOf(Promise)
    await stale
    expect((await stale).headers.get('x-data-state')).toBe('stale')
    await readUntilFresh(stack)
    const refreshed = stack.logs.slice(before).map((line) => JSON.parse(line) as { event: string; requestId?: string })
    expect(refreshed.find((line) => line.event === 'control_room_refreshed')?.requestId).toBe((await stale).headers.get('x-request-id'))
  })

  it('sends Cache-Control for a 30 s shared cache and answers If-None-Match with 304', async () => {
    const first = await stack.controlRoom(get())
    expect(first.headers.get('cache-control')).toBe('public, max-age=30, s-maxage=30, stale-while-revalidate=30, stale-if-error=600')
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^".+"$/)
    const again = await stack.controlRoom(get({ 'if-none-match': etag }))
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
    expect(again.headers.get('etag')).toBe(etag)
    expect((await stack.controlRoom(get({ 'if-none-match': '"other"' }))).status).toBe(200)
  })

  it('answers HEAD with the headers and no body', async () => {
    const response = await stack.controlRoom(get({}, 'HEAD'))
    expect(response.status).toBe(200)
    expect(response.headers.get('etag')).toBeTruthy()
    expect(await response.text()).toBe('')
  })

  it('makes ONE upstream refresh for 50 concurrent cold requests', async () => {
    const before = stack.upstream.requests.length
    const responses = await Promise.all(Array.from({ length: 50 }, () => stack.controlRoom(get())))
    const bodies = await Promise.all(responses.map((r) => r.text()))
    expect(new Set(bodies).size).toBe(1)
    const oneRefresh = stack.upstream.requests.length - before
    stack.clock.now += PAST_GRACE_MS
    const beforeSingle = stack.upstream.requests.length
    await stack.controlRoom(get())
    expect(oneRefresh).toBe(stack.upstream.requests.length - beforeSingle)
  })

  it('answers 500 with a JSON error when the upstream is down and nothing fresh is cached, and never caches the error', async () => {
    stack.upstream.failAlways('/', { kind: 'status', status: 503 })
    const response = await stack.controlRoom(get())
    expect(response.status).toBe(500)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(await response.json()).toEqual({ error: expect.any(String), code: 'UPSTREAM_UNAVAILABLE' })
    stack.upstream.clearFaults()
    const recovered = await stack.controlRoom(get())
    expect(recovered.status).toBe(200)
  })

  it.each([
    ['an anti-bot HTML page with 200', { kind: 'html' as const }, 'body'],
    ['an anti-bot HTML page with 403', { kind: 'html' as const, status: 403 }, 'status'],
    ['429 on every call', { kind: 'status' as const, status: 429, headers: { 'retry-after': '0' } }, 'status'],
    ['a JSON body without pairs', { kind: 'json' as const, body: { message: 'moved' } }, 'body'],
    ['connection resets', { kind: 'reset' as const }, 'network'],
  ] as const)('treats %s as the upstream being unavailable, and logs the real cause', async (_, fault, cause) => {
    stack.upstream.failAlways('/', fault)
    const logged = stack.logs.length
    const response = await stack.controlRoom(get())
    expect(response.status).toBe(500)
    expect(((await response.json()) as { code: string }).code).toBe('UPSTREAM_UNAVAILABLE')
    const line = stack.logs
      .slice(logged)
      .map((l) => JSON.parse(l) as { event: string; kind: string })
      .find((l) => l.event === 'control_room_upstream_failed')
    // Retries exhaust the request budget on the way; the log must still name what actually went wrong.
    expect(line?.kind).toBe(cause)
  })

  it('serves fresh cached data while the upstream is down', async () => {
    const first = await (await stack.controlRoom(get())).text()
    stack.upstream.failAlways('/', { kind: 'status', status: 500 })
    stack.clock.now += 10_000
    const second = await stack.controlRoom(get())
    expect(second.status).toBe(200)
    expect(await second.text()).toBe(first)
  })

  it('retries 429 (honouring Retry-After), 5xx and resets at most twice per call', async () => {
    stack.upstream.failOnce('/latest/dex/search?q=WETH', { kind: 'status', status: 429, headers: { 'retry-after': '0' } })
    stack.upstream.failOnce('/latest/dex/search?q=WETH', { kind: 'reset' })
    const before = stack.upstream.requests.length
    const response = await stack.controlRoom(get())
    expect(response.status).toBe(200)
    const wethCalls = stack.upstream.requests.slice(before).filter((p) => p === '/latest/dex/search?q=WETH')
    expect(wethCalls).toHaveLength(3)
    const body = (await response.json()) as ControlRoom
    expect(body.liveActivity[0]!.symbol).toBe('WETH')

    stack.clock.now += PAST_GRACE_MS
    stack.upstream.failAlways('/latest/dex/search?q=USDC', { kind: 'status', status: 502 })
    stack.upstream.failAlways('/latest/dex/search?q=cbBTC', { kind: 'status', status: 404 })
    const before2 = stack.upstream.requests.length
    expect((await stack.controlRoom(get())).status).toBe(200)
    const made = stack.upstream.requests.slice(before2)
    expect(made.filter((p) => p === '/latest/dex/search?q=USDC')).toHaveLength(3)
    expect(made.filter((p) => p === '/latest/dex/search?q=cbBTC')).toHaveLength(1) // 404 is not retried
  })

  it('tolerates pairs: null, missing fields, checksummed addresses and other chains', async () => {
    const market = createSyntheticMarket({ tokens: 30 })
    for (const pair of market.slice(5, 15)) {
      delete pair.liquidity
      delete pair.priceUsd
      delete pair.marketCap
      delete pair.priceChange
      delete pair.info
      pair.labels = null
    }
    stack.upstream.setPairs(market)
    stack.upstream.failOnce('/latest/dex/search?q=AERO', { kind: 'json', body: { schemaVersion: '1.0.0', pairs: null } })
    const response = await stack.controlRoom(get())
    expect(response.status).toBe(200)
    const body = (await response.json()) as ControlRoom
    const baseAddresses = new Set(market.filter((p) => p.chainId === 'base').map((p) => p.baseToken.address.toLowerCase()))
    for (const token of body.liveActivity) expect(baseAddresses.has(token.address)).toBe(true)
    expect(body.liveActivity.some((t) => t.priceUsd === null && t.liquidity === 0 && t.priceChange24h === null)).toBe(true)
  })

  it('answers OPTIONS with 204, other methods with 405 and Allow, plain HTTP with 308', async () => {
    expect((await stack.controlRoom(get({}, 'OPTIONS'))).status).toBe(204)
    const post = await stack.controlRoom(get({}, 'POST'))
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    expect(post.headers.get('access-control-allow-origin')).toBe('*')
    // The public origin (PUBLIC_URL, read once per instance) as an endpoint of this instance is given it.
    const behindEdge = createControlRoomEndpoint(() => stack.services, { publicOriginOf: () => 'https://svc.test' })
    const redirect = await behindEdge.fetch(
      new Request('http://svc.test/api/control-room', { headers: { 'x-forwarded-proto': 'http', 'x-forwarded-host': 'evil.example' } }),
    )
    expect(redirect.status).toBe(308)
    expect(redirect.headers.get('location')).toBe('https://svc.test/api/control-room')
  })
})

describe('GET /api/control-room timeouts', () => {
  let stack: ReadStack
  beforeAll(async () => {
    stack = await startReadStack({ storeKind: 'memory', requestTimeoutMs: 150 })
  })
  afterAll(() => stack.close())

  it('times out a call that never answers and retries it', async () => {
    stack.upstream.failOnce('/latest/dex/search?q=WETH', { kind: 'hang' })
    const before = stack.upstream.requests.length
    const response = await stack.controlRoom(get())
    expect(response.status).toBe(200)
    expect(stack.upstream.requests.slice(before).filter((p) => p === '/latest/dex/search?q=WETH')).toHaveLength(2)
  })

  it('answers 500 when every call hangs', async () => {
    stack.clock.now += PAST_GRACE_MS
    stack.upstream.failAlways('/', { kind: 'hang' })
    const response = await stack.controlRoom(get())
    expect(response.status).toBe(500)
    stack.upstream.clearFaults()
  })
})
