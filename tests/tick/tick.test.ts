import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { createDeployServices } from '../../lib/deploy/services.js'
import { SNAPSHOTS_IN_WINDOW } from '../../lib/market/snapshots.js'
import type { ControlRoom, MarketHistoryBody } from '../../lib/market/types.js'
import type { TickJob, TickJobDetails } from '../../lib/platform/tickJob.js'
import { loadSnapshots } from '../../lib/read/history/historyStore.js'
import { backfillPriceLines } from '../../lib/read/history/priceBackfill.js'
import { claimGeckoDiscovery } from '../../lib/read/universe/discovery.js'
import type { Store } from '../../lib/store/types.js'
import { loadTickConfig, type TickConfig } from '../../lib/tick/config.js'
import { createTickEndpoint } from '../../lib/tick/endpoint.js'
import { TICK_JOBS, type TickContext } from '../../lib/tick/jobs.js'
import { runTick, type TickSummary } from '../../lib/tick/runTick.js'
import { withOpenApiCheck } from '../support/openapiCheck.js'
import { signAsQStash } from '../support/qstashSignature.js'
import { type ReadInstance, type ReadStack, readUntilFresh, startReadStack } from '../support/readStack.js'
import { createLongTailMarket, createSyntheticMarket } from '../support/syntheticMarket.js'

const TICK_URL = 'https://svc.test/api/tick'
const CRON_SECRET = 'cron-secret-for-tests-0123456789'
const CURRENT_KEY = 'sig_current_0123456789abcdefghij'
const NEXT_KEY = 'sig_next_0123456789abcdefghijklmn'
const config: TickConfig = loadTickConfig({
  CRON_SECRET,
  QSTASH_CURRENT_SIGNING_KEY: CURRENT_KEY,
  QSTASH_NEXT_SIGNING_KEY: NEXT_KEY,
  TICK_INTERVAL_SECONDS: '60',
  PUBLIC_URL: 'https://svc.test',
})

/** Deploy services with no signer: the deploys part reports itself skipped, and nothing here reaches a chain. */
const noDeploys = deployServicesFrom(() =>
  createDeployServices({ env: { BASE_RPC_URL: 'http://127.0.0.1:9', STORE_KEY_PREFIX: 'tick-nodeploys:' }, store: null }),
)

/** A store that counts every call made through it. */
function countingStore(store: Store): { store: Store; calls: () => number } {
  let calls = 0
  const counted = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        calls++
        return value.apply(target, args)
      }
    },
  })
  return { store: counted, calls: () => calls }
}

const tickOf = (instance: Pick<ReadInstance, 'services'>, tickConfig: TickConfig = config) =>
  withOpenApiCheck('/api/tick', createTickEndpoint({ read: () => instance.services, deploy: noDeploys, config: () => tickConfig }))

const cron = () => new Request(TICK_URL, { headers: { authorization: `Bearer ${CRON_SECRET}` } })

/** The market history as of now: past the cached window, read until the background refresh has landed. */
async function freshMarketHistory(instance: Pick<ReadStack, 'marketHistory' | 'clock' | 'drain'>): Promise<MarketHistoryBody> {
  instance.clock.now += 31_000
  try {
    for (let i = 0; i < 3; i++) {
      const response = await instance.marketHistory(new Request('https://svc.test/api/market-history'))
      if (response.headers.get('x-data-state') === 'fresh') return (await response.json()) as MarketHistoryBody
      await instance.drain()
    }
    throw new Error('market-history never became fresh')
  } finally {
    instance.clock.now -= 31_000
  }
}

async function summaryOf(response: Response): Promise<TickSummary> {
  expect(response.status).toBe(200)
  return (await response.json()) as TickSummary
}

describe('who may run the tick', () => {
  let stack: ReadStack
  beforeAll(async () => {
    stack = await startReadStack({ storeKind: 'memory' })
  })
  afterAll(() => stack.close())

  const post = (body: string, headers: Record<string, string>, url = TICK_URL) => new Request(url, { method: 'POST', body, headers })
  const body = '{"scheduleId":"scd_test"}'
  const cases: [string, () => Request, number][] = [
    ['no credentials', () => new Request(TICK_URL), 401],
    ['a wrong bearer', () => new Request(TICK_URL, { headers: { authorization: 'Bearer not-the-cron-secret-000000' } }), 401],
    ['the cron secret without "Bearer"', () => new Request(TICK_URL, { headers: { authorization: CRON_SECRET } }), 401],
    ['Vercel Cron with the right bearer', cron, 200],
    [
      'QStash signed with the current key',
      () => post(body, { 'upstash-signature': signAsQStash({ signingKey: CURRENT_KEY, url: TICK_URL, body }) }),
      200,
    ],
    [
      'QStash signed with the next key (rotation)',
      () => post(body, { 'upstash-signature': signAsQStash({ signingKey: NEXT_KEY, url: TICK_URL, body }) }),
      200,
    ],
    [
      'QStash with a tampered body',
      () => post('{"scheduleId":"scd_evil"}', { 'upstash-signature': signAsQStash({ signingKey: CURRENT_KEY, url: TICK_URL, body }) }),
      401,
    ],
    [
      'QStash signed for another host, sent to that host (the Host header is not the service’s URL)',
      () =>
        post(
          body,
          { 'upstash-signature': signAsQStash({ signingKey: CURRENT_KEY, url: 'https://other.example/api/tick', body }) },
          'https://other.example/api/tick',
        ),
      401,
    ],
    [
      'QStash signed for another URL',
      () => post(body, { 'upstash-signature': signAsQStash({ signingKey: CURRENT_KEY, url: 'https://other.example/api/tick', body }) }),
      401,
    ],
    [
      'QStash with an expired signature',
      () => post(body, { 'upstash-signature': signAsQStash({ signingKey: CURRENT_KEY, url: TICK_URL, body, expiresInSeconds: -30 }) }),
      401,
    ],
    [
      'QStash signed with an unknown key',
      () => post(body, { 'upstash-signature': signAsQStash({ signingKey: 'sig_someone_else_0123456789ab', url: TICK_URL, body }) }),
      401,
    ],
    ['a signature that is not a JWT', () => post(body, { 'upstash-signature': 'not.a.jwt' }), 401],
  ]

  it.each(cases)('%s: %s, and a refusal costs no store or upstream call', async (_, request, status) => {
    stack.clock.now += 60_000 // a new interval: an accepted tick runs
    const counted = countingStore(stack.store)
    const instance = { services: { ...stack.services, store: counted.store } }
    const upstreamBefore = stack.upstream.requests.length
    const response = await tickOf(instance)(request())
    expect(response.status).toBe(status)
    const answer = (await response.json()) as Record<string, unknown>
    if (status === 401) {
      expect(answer).toMatchObject({ code: 'UNAUTHORIZED' })
      expect(counted.calls()).toBe(0)
      expect(stack.upstream.requests.length).toBe(upstreamBefore)
    } else {
      expect(answer).toMatchObject({ ran: true, caller: expect.stringMatching(/^(vercel-cron|qstash)$/) })
      expect(counted.calls()).toBeGreaterThan(0)
    }
  })

  it('turns a way off when its secret is unset: then even the right credentials get 401', async () => {
    stack.clock.now += 60_000
    const off = loadTickConfig({})
    expect((await tickOf(stack, off)(cron())).status).toBe(401)
    const body = '{}'
    const signed = new Request(TICK_URL, {
      method: 'POST',
      body,
      headers: { 'upstash-signature': signAsQStash({ signingKey: CURRENT_KEY, url: TICK_URL, body }) },
    })
    expect((await tickOf(stack, off)(signed)).status).toBe(401)
  })

  it('refuses a body over 64 KB with 413 and other methods with 405, and never echoes a secret', async () => {
    const signature = signAsQStash({ signingKey: CURRENT_KEY, url: TICK_URL, body })
    const big = new Request(TICK_URL, { method: 'POST', body: 'x'.repeat(65 * 1024), headers: { 'upstash-signature': signature } })
    const refused = await tickOf(stack)(big)
    expect(refused.status).toBe(413)
    expect((await refused.json()) as object).toMatchObject({ code: 'BODY_TOO_LARGE' })
    const declared = new Request(TICK_URL, { method: 'POST', body: 'x', headers: { 'content-length': String(65 * 1024) } })
    expect((await tickOf(stack)(declared)).status).toBe(413)
    const put = await tickOf(stack)(new Request(TICK_URL, { method: 'PUT', headers: { authorization: `Bearer ${CRON_SECRET}` } }))
    expect(put.status).toBe(405)
    stack.clock.now += 60_000
    const text = await (await tickOf(stack)(cron())).text()
    for (const secret of [CRON_SECRET, CURRENT_KEY, NEXT_KEY]) expect(text).not.toContain(secret)
    for (const line of stack.logs) for (const secret of [CRON_SECRET, CURRENT_KEY, NEXT_KEY]) expect(line).not.toContain(secret)
  })

  it('answers a caller without credentials before reading its body: a body that never ends holds nothing', async () => {
    const endless = () => new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode('{"a":')) })
    const stranger = new Request(TICK_URL, { method: 'POST', body: endless(), duplex: 'half' } as RequestInit)
    expect((await tickOf(stack)(stranger)).status).toBe(401)
    const notAJwt = new Request(TICK_URL, {
      method: 'POST',
      body: endless(),
      duplex: 'half',
      headers: { 'upstash-signature': 'x' },
    } as RequestInit)
    expect((await tickOf(stack)(notAJwt)).status).toBe(401)
  })

  it('refuses a configuration with one QStash key of the two, naming the missing variable', () => {
    expect(() => loadTickConfig({ QSTASH_CURRENT_SIGNING_KEY: CURRENT_KEY })).toThrow(/QSTASH_NEXT_SIGNING_KEY: is required/)
    expect(() => loadTickConfig({ CRON_SECRET: 'short' })).toThrow(/CRON_SECRET: must be at least 16 characters/)
    expect(() => loadTickConfig({ TICK_INTERVAL_SECONDS: '-1' })).toThrow(/TICK_INTERVAL_SECONDS/)
  })
})

describe('the tick keeps the service warm (Upstash over redis-server)', () => {
  let stack: ReadStack
  beforeAll(async () => {
    stack = await startReadStack({ storeKind: 'upstash', redisSocket: inject('redisSocket') })
  })
  afterAll(() => stack.close())

  it('three ticks at once on three instances do the work once: one refresh, one summary that ran', async () => {
    stack.clock.now += 120_000
    const instances = [stack, stack.newInstance(), stack.newInstance()]
    const upstreamBefore = stack.upstream.requests.length
    const summaries = await Promise.all(instances.map(async (instance) => summaryOf(await tickOf(instance)(cron()))))
    expect(summaries.filter((s) => s.ran)).toHaveLength(1)
    const refreshes = instances.flatMap((i) => i.logs).filter((l) => JSON.parse(l).event === 'control_room_refreshed')
    expect(refreshes).toHaveLength(1)
    expect(stack.upstream.requests.length - upstreamBefore).toBeLessThanOrEqual(30)
    const ran = summaries.find((s) => s.ran)!
    expect(ran.parts).toMatchObject({
      controlRoom: { ok: true, refreshed: true, tokens: 100 },
      snapshot: { ok: true },
      deploys: { ok: true, skipped: 'no signer configured' },
    })
  })

  it('the read after a tick is answered at once from its refresh, with no upstream call', async () => {
    stack.clock.now += 120_000
    const reader = stack.newInstance()
    await summaryOf(await tickOf(stack)(cron()))
    stack.clock.now += 5_000
    const before = stack.upstream.requests.length
    const response = await reader.controlRoom(new Request('https://svc.test/api/control-room'))
    expect(response.headers.get('x-data-state')).toBe('fresh')
    expect(Number(response.headers.get('x-data-age'))).toBeLessThanOrEqual(5)
    expect(stack.upstream.requests.length).toBe(before)
  })

  it('a tick within the 30 s window does not refresh again', async () => {
    stack.clock.now += 120_000
    const first = await summaryOf(await tickOf(stack)(cron()))
    expect(first.parts?.controlRoom).toMatchObject({ refreshed: true })
    stack.clock.now += 60_000
    await readUntilFresh(stack) // a fresh body from a read's own refresh
    stack.clock.now += 1_000
    const second = await summaryOf(await tickOf(stack)(cron()))
    expect(second.ran).toBe(true)
    expect(second.parts?.controlRoom).toMatchObject({ ok: true, refreshed: false })
  })

  it('keeps running its other parts when one fails, and names the failed part', async () => {
    stack.clock.now += 120_000
    stack.upstream.failAlways('/', { kind: 'status', status: 503 })
    try {
      stack.clock.now += 700_000 // past STALE_IF_ERROR_SECONDS: no body to fall back on
      const summary = await summaryOf(await tickOf(stack)(cron()))
      expect(summary.ok).toBe(false)
      expect(summary.failed).toEqual(expect.arrayContaining(['controlRoom']))
      expect(summary.parts?.controlRoom).toMatchObject({ ok: false, error: expect.any(String) })
      expect(summary.parts?.deploys).toMatchObject({ ok: true })
      expect(stack.logs.some((l) => JSON.parse(l).event === 'tick_part_failed')).toBe(true)
    } finally {
      stack.upstream.clearFaults()
    }
  })
  it('runs every job its list holds, each on its own: a new job is one line, reported by name, skipped without a signer it needs', async () => {
    stack.clock.now += 120_000
    const runs: string[] = []
    const job = (name: string, needs: TickJob<TickContext>['needs'], run: () => Promise<TickJobDetails>): TickJob<TickContext> => ({
      name,
      details: name,
      needs,
      run: () => {
        runs.push(name)
        return run()
      },
    })
    const jobs = [
      ...TICK_JOBS,
      job('counted', [], async () => ({ counted: 1 })),
      job('signed', ['signer'], async () => ({ signed: true })),
      job('broken', [], async () => {
        throw new Error('a job that fails')
      }),
    ]
    const summary = await runTick({ read: stack.services, deploy: noDeploys.services, caller: 'test', intervalSeconds: 60, jobs })
    expect(summary.ran).toBe(true)
    expect(summary.parts).toMatchObject({
      controlRoom: { ok: true },
      counted: { ok: true, counted: 1 },
      signed: { ok: true, skipped: 'no signer configured' },
      broken: { ok: false, code: 'INTERNAL', error: 'Error' },
    })
    expect(runs).toEqual(['counted', 'broken']) // the job that needs a signer never ran without one
    expect(summary.failed).toContain('broken')
    expect(summary.failed).not.toContain('counted')
    expect(summary.failed!.indexOf('broken')).toBe(summary.failed!.length - 1) // reported in the list's order
  })
})

describe('a quiet day: ticks only, no read request (injected clock, Upstash over redis-server)', () => {
  it('writes 288 of the 288 snapshots of the day, and the charts show all of them', async () => {
    // A market of 20 tokens: the day is about the schedule, not the room's size, and each of the 288 ticks refreshes
    // the room; over the default 160 tokens the case took about 20 s of CPU, over 20 about 8 s.
    const stack = await startReadStack({
      storeKind: 'upstash',
      redisSocket: inject('redisSocket'),
      market: createSyntheticMarket({ tokens: 20 }),
    })
    try {
      const start = Math.floor(stack.clock.now / 300_000) * 300_000 + 300_000
      // A scheduler every 5 minutes, late by up to 4 minutes (Vercel Cron and QStash are late, never early).
      for (let i = 0; i < SNAPSHOTS_IN_WINDOW; i++) {
        stack.clock.now = start + i * 300_000 + ((i * 37_003) % 240_000)
        const summary = await summaryOf(await tickOf(stack, { ...config, intervalSeconds: 300 })(cron()))
        expect(summary.ran).toBe(true)
        expect(summary.parts?.snapshot).toMatchObject({ ok: true })
      }
      const snapshots = await loadSnapshots(stack.services, stack.clock.now)
      expect(snapshots).toHaveLength(SNAPSHOTS_IN_WINDOW)
      const history = await freshMarketHistory(stack)
      expect(history.volume.points.length).toBeGreaterThanOrEqual(SNAPSHOTS_IN_WINDOW - 1)
    } finally {
      await stack.close()
    }
  }, 300_000)
})

describe('price history from the first minute: candles backfilled within GeckoTerminal’s 30 calls a minute', () => {
  it('a fresh deployment has 24 h lines for 18 of the top 20 within 2.5 minutes and 90 of the top 100 within 6, with no 429', async () => {
    const stack = await startReadStack({
      storeKind: 'upstash',
      redisSocket: inject('redisSocket'),
      market: createLongTailMarket(),
      withGecko: true,
    })
    try {
      const first = stack.clock.now
      /** Tokens of the current room whose sparkline has at least 40 of its 48 half-hour slots. */
      const lined = async (count: number) => {
        const room = (await (await stack.controlRoom(new Request('https://svc.test/api/control-room'))).json()) as ControlRoom
        const history = await freshMarketHistory(stack)
        return room.liveActivity
          .slice(0, count)
          .filter((t) => (history.sparklines.prices[t.address] ?? []).filter((p) => p !== null).length >= 40).length
      }
      const tickAt = async (offsetMs: number) => {
        stack.clock.now = first + offsetMs
        return summaryOf(await tickOf(stack)(cron()))
      }
      for (const offset of [0, 60_000, 120_000]) expect((await tickAt(offset)).ran).toBe(true)
      stack.clock.now = first + 150_000
      expect(await lined(20)).toBeGreaterThanOrEqual(18)
      // token-history serves the candles too: a day of prices for the leader, the marks before its first snapshot
      // with the price only.
      const room = (await (await stack.controlRoom(new Request('https://svc.test/api/control-room'))).json()) as ControlRoom
      const leader = await stack.tokenHistory(new Request(`https://svc.test/api/token-history?address=${room.liveActivity[0]!.address}`))
      const points = ((await leader.json()) as { points: { priceUsd: number | null; rank: number | null; volume24h: number | null }[] })
        .points
      expect(points.length).toBeGreaterThan(144)
      expect(points[0]).toMatchObject({ priceUsd: expect.any(Number), rank: null, volume24h: null })
      expect(points.at(-1)).toMatchObject({ rank: 1, volume24h: expect.any(Number) })
      for (const offset of [180_000, 240_000, 300_000, 360_000]) await tickAt(offset)
      stack.clock.now = first + 360_000
      expect(await lined(100)).toBeGreaterThanOrEqual(90)
      const calls = stack.gecko!.requests
      expect(calls.filter((c) => c.status === 429)).toEqual([])
      expect(calls.filter((c) => c.path.includes('/ohlcv/')).length).toBeGreaterThanOrEqual(90)
      // Each token once a day: another tick finds nothing left to fetch for the tokens it already has.
      const again = await tickAt(420_000)
      expect(again.parts?.backfill).toMatchObject({ ok: true, fetched: expect.any(Number) })
      expect((again.parts!.backfill as unknown as { fetched: number }).fetched).toBeLessThanOrEqual(10)
    } finally {
      await stack.close()
    }
  }, 60_000)
})

describe('the schedule that ships', () => {
  it('asks Vercel for no cron more often than daily, so the project deploys on the Hobby plan too', async () => {
    const { readFile } = await import('node:fs/promises')
    const vercel = JSON.parse(await readFile(new URL('../../vercel.json', import.meta.url), 'utf8')) as {
      crons?: { schedule: string }[]
      functions: Record<string, unknown>
    }
    for (const cron of vercel.crons ?? [])
      expect(
        cron.schedule
          .split(' ')
          .slice(0, 2)
          .every((f) => /^\d+$/.test(f)),
      ).toBe(true)
    expect(vercel.functions['api/tick.ts']).toMatchObject({ maxDuration: 60 })
  })
})

describe('the backfill leaves discovery its share of GeckoTerminal', () => {
  it('takes at most 15 of the 30 calls of a minute, so discovery due in the same minute still gets its 10 pages', async () => {
    const stack = await startReadStack({ storeKind: 'memory', market: createLongTailMarket(), withGecko: true })
    try {
      const room = (await (await stack.controlRoom(new Request('https://svc.test/api/control-room'))).json()) as ControlRoom
      stack.clock.now += 61_000 // the room's own discovery calls have left the window
      const backfill = await backfillPriceLines({ services: stack.services, tokens: room.liveActivity })
      expect(backfill).toMatchObject({ fetched: 15, failed: 0, remaining: 85 })
      await stack.store.delete(`${stack.services.keyPrefix}gecko:discovery`) // discovery is due again
      const claim = await claimGeckoDiscovery({
        store: stack.store,
        keyPrefix: stack.services.keyPrefix,
        now: stack.clock.now,
        logger: stack.services.logger,
      })
      expect(claim.pages).toBe(10)
    } finally {
      await stack.close()
    }
  })
})
