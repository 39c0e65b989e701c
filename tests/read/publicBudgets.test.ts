import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished, vi } from 'vitest'
import type { ControlRoom } from '../../lib/market/types.js'
import { clientBlock } from '../../lib/platform/clientAddress.js'
import { type FakeDexScreener, startFakeDexScreener } from '../support/fakeDexScreener.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { type ReadStack, startReadStack } from '../support/readStack.js'
import { createSyntheticMarket } from '../support/syntheticMarket.js'

/** A GET from a given loopback source address (127.0.0.0/8 is all this machine's), as ten different clients would. */
function getFrom(url: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { localAddress }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('anonymous search cannot drain the control room’s upstream budget (npm start)', () => {
  let upstream: FakeDexScreener
  let server: NpmStart
  beforeAll(async () => {
    upstream = await startFakeDexScreener(createSyntheticMarket())
    // No GeckoTerminal: a room starved of DexScreener would have nothing to fall back on.
    server = await startNpmStart({ DEXSCREENER_BASE_URL: upstream.url })
  })
  afterAll(async () => {
    await server.stop()
    await upstream.close()
  })

  it('ten clients with 30 new terms each take at most the search share; the room then still comes whole from DexScreener', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 10 }, (_, client) =>
        (async () => {
          const mine: number[] = []
          for (let term = 0; term < 30; term++)
            mine.push(await getFrom(`${server.url}/api/token-search?q=drain${client}x${term}`, `127.0.0.${client + 2}`))
          return mine
        })(),
      ),
    )
    const all = statuses.flat()
    expect(all).toHaveLength(300)
    expect(all.every((s) => s === 200 || s === 429)).toBe(true)
    const searches = upstream.requests.filter((p) => p.startsWith('/latest/dex/search?q=drain')).length
    expect(searches).toBeLessThanOrEqual(100) // SEARCH_UPSTREAM_REQUESTS_PER_MINUTE, default 100 of the 250
    expect(all.filter((s) => s === 429).length).toBeGreaterThanOrEqual(200)

    const response = await fetch(`${server.url}/api/control-room`)
    expect(response.status).toBe(200)
    expect(response.headers.get('x-data-source')).toBe('dexscreener')
    expect(((await response.json()) as ControlRoom).liveActivity).toHaveLength(100)
  }, 30_000)
})

describe('per-client limits count an IPv6 client by its /64, and hold per instance while the store is down', () => {
  let stack: ReadStack
  beforeAll(async () => {
    stack = await startReadStack({
      storeKind: 'upstash',
      redisSocket: inject('redisSocket'),
      env: { SEARCH_RATE_LIMIT_PER_MINUTE: '5', TOKEN_HISTORY_RATE_LIMIT_PER_MINUTE: '4' },
    })
  })
  afterAll(() => stack.close())
  const search = (ip: string) => new Request('https://svc.test/api/token-search?q=weth', { headers: { 'x-real-ip': ip } })
  // Upstash's sliding window keeps its windows on the real clock, on minute boundaries, and weighs the previous minute
  // by how much of it is left (rounded down): a count that crossed a boundary lets one more through. The clock stands
  // still at the start of a minute for the cases that count against the store.
  const holdClockAtStartOfMinute = () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Math.ceil(Date.now() / 60_000) * 60_000 + 1_000)
    onTestFinished(() => {
      vi.useRealTimers()
    })
  }

  it('reads an address’s /64, an IPv4-mapped address as IPv4, and leaves IPv4 alone', () => {
    expect(clientBlock('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64')
    expect(clientBlock('2001:0DB8:0001:0002::ffff')).toBe('2001:db8:1:2::/64')
    expect(clientBlock('[2001:db8:1:2::1]:443')).toBe('2001:db8:1:2::/64')
    expect(clientBlock('::ffff:203.0.113.9')).toBe('203.0.113.9')
    expect(clientBlock('203.0.113.9')).toBe('203.0.113.9')
    expect(clientBlock('not:an::address::')).toBe('not:an::address::')
  })

  it('gives a whole /64 one allowance, and the next /64 its own', async () => {
    holdClockAtStartOfMinute()
    const statuses: number[] = []
    for (let i = 1; i <= 6; i++) statuses.push((await stack.tokenSearch(search(`2001:db8:7:7::${i.toString(16)}`))).status)
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
    expect((await stack.tokenSearch(search('2001:db8:7:8::1'))).status).toBe(200)
  })

  it('throttles token-history per client with its own limit, and answers a repeated unknown address from memory', async () => {
    holdClockAtStartOfMinute()
    const unknown = (ip: string) =>
      new Request('https://svc.test/api/token-history?address=0x00000000000000000000000000000000000c0ffe', { headers: { 'x-real-ip': ip } })
    const answers: Response[] = []
    for (let i = 0; i < 5; i++) answers.push(await stack.tokenHistory(unknown('198.51.100.40')))
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404, 429])
    // Its own policy in the draft-11 headers, on every answer of the count, the 429 included.
    expect(answers.map((a) => a.headers.get('ratelimit-policy'))).toEqual(Array(5).fill('"history";q=4;w=60'))
    expect(answers.map((a) => /r=(\d+)/.exec(a.headers.get('ratelimit') ?? '')?.[1])).toEqual(['3', '2', '1', '0', '0'])
    // A malformed address is counted and told its quota as well.
    const malformed = await stack.tokenHistory(
      new Request('https://svc.test/api/token-history?address=0x12', { headers: { 'x-real-ip': '198.51.100.42' } }),
    )
    expect(malformed.status).toBe(400)
    expect(malformed.headers.get('ratelimit')).toMatch(/^"history";r=3;t=\d+$/)
    // The first 404 read the store; the ones after it, within 30 s, did not.
    const commands = stack.upstash!.commands.length
    expect((await stack.tokenHistory(unknown('198.51.100.41'))).status).toBe(404)
    // Only the throttle's script (EVALSHA, and EVAL where redis had not loaded it yet); no read of the history.
    const spent = stack.upstash!.commands.slice(commands)
    expect(spent.length).toBeGreaterThanOrEqual(1)
    expect(spent.every((c) => c === 'EVALSHA' || c === 'EVAL')).toBe(true)
  })

  it('with the store unreachable, holds each client to its limit on this instance instead of letting everything through', async () => {
    const instance = stack.newInstance()
    stack.upstash!.setUnreachable(true)
    try {
      const statuses: number[] = []
      for (let i = 0; i < 6; i++) statuses.push((await instance.tokenSearch(search('192.0.2.77'))).status)
      expect(statuses.slice(0, 5).every((s) => s !== 429)).toBe(true)
      expect(statuses[5]).toBe(429)
      expect(instance.logs.join('\n')).toContain('throttled per instance')
    } finally {
      stack.upstash!.setUnreachable(false)
    }
  }, 30_000)
})
