import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it, onTestFinished, vi } from 'vitest'
import { type FakeDexScreener, startFakeDexScreener } from '../support/fakeDexScreener.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { type ReadStack, type StoreKind, startReadStack } from '../support/readStack.js'
import { createSyntheticMarket } from '../support/syntheticMarket.js'

const search = (q: string, ip: string) =>
  new Request(`https://svc.test/api/token-search?q=${encodeURIComponent(q)}`, { headers: { 'x-real-ip': ip } })

describe.each<StoreKind>(['memory', 'upstash'])('token-search throttling on the %s store', (storeKind) => {
  let stack: ReadStack
  // A stack of its own for each case: each counts its own budget and throttles, whatever ran before.
  beforeEach(async () => {
    stack = await startReadStack({
      storeKind,
      redisSocket: inject('redisSocket'),
      env: { SEARCH_RATE_LIMIT_PER_MINUTE: '5' },
      dexscreenerPerMinute: 12,
    })
  })
  afterEach(() => stack.close())

  it('lets a client make SEARCH_RATE_LIMIT_PER_MINUTE searches a minute, then 429 RATE_LIMITED with Retry-After; others are not affected', async () => {
    // Upstash's sliding window weighs the previous minute by how much of it is left: a run that crossed a minute
    // boundary would see the first searches weigh less. The clock stands at the start of a minute for this case.
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Math.ceil(Date.now() / 60_000) * 60_000 + 1_000)
    onTestFinished(() => {
      vi.useRealTimers()
    })
    const answers: Response[] = []
    for (let i = 0; i < 6; i++) answers.push(await stack.tokenSearch(search('weth', '203.0.113.7')))
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429])
    // Every answer tells the client its quota (IETF draft-11): the policy, and what is left, one less per request.
    for (const answer of answers) expect(answer.headers.get('ratelimit-policy')).toBe('"search";q=5;w=60')
    const remaining = answers.map((a) => /"search";r=(\d+);t=(\d+)$/.exec(a.headers.get('ratelimit') ?? '')?.[1])
    expect(remaining).toEqual(['4', '3', '2', '1', '0', '0'])
    for (const answer of answers) {
      const resetSeconds = Number(/;t=(\d+)$/.exec(answer.headers.get('ratelimit') ?? '')?.[1])
      expect(resetSeconds).toBeGreaterThanOrEqual(1)
      expect(resetSeconds).toBeLessThanOrEqual(60)
    }
    const limited = await stack.tokenSearch(search('weth', '203.0.113.7'))
    expect(limited.status).toBe(429)
    expect(await limited.json()).toMatchObject({ code: 'RATE_LIMITED' })
    const retryAfter = Number(limited.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    // The 429 says the same seconds in its headers and in its words.
    expect(limited.headers.get('ratelimit')).toBe(`"search";r=0;t=${retryAfter}`)
    expect((await stack.tokenSearch(search('weth', '198.51.100.9'))).status).toBe(200)
    if (storeKind === 'upstash') expect(stack.upstash!.commands).toEqual(expect.arrayContaining(['EVALSHA']))
  })

  it('never sends DexScreener more than the service-wide budget, however many clients search distinct terms; cached terms still answer', async () => {
    expect((await stack.tokenSearch(search('weth', '192.0.2.249'))).status).toBe(200)
    const before = stack.upstream.requests.length
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => stack.tokenSearch(search(`term${i}`, `192.0.2.${i}`))))
    const made = stack.upstream.requests.length - before
    // 12 a minute in this stack; "weth" used one.
    expect(made).toBeLessThanOrEqual(11)
    const statuses = answers.map((a) => a.status)
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(29)
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true)
    const refused = answers.find((a) => a.status === 429)!
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED' })
    // A term already cached is answered from the cache, budget or not.
    expect((await stack.tokenSearch(search('weth', '192.0.2.250'))).status).toBe(200)
  })
})

describe('npm start', () => {
  let upstream: FakeDexScreener
  let server: NpmStart
  beforeAll(async () => {
    upstream = await startFakeDexScreener(createSyntheticMarket())
    server = await startNpmStart({ DEXSCREENER_BASE_URL: upstream.url, SEARCH_RATE_LIMIT_PER_MINUTE: '3' })
  })
  afterAll(async () => {
    await server.stop()
    await upstream.close()
  })

  it('throttles by the connection address: a client cannot claim another one with X-Real-IP or X-Forwarded-For', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${server.url}/api/token-search?q=weth`, {
        headers: { 'x-real-ip': `10.9.9.${i}`, 'x-forwarded-for': `10.8.8.${i}` },
      })
      statuses.push(response.status)
      await response.arrayBuffer()
    }
    expect(statuses).toEqual([200, 200, 200, 429])
  })
})
