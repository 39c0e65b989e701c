import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { createDeployServices } from '../../lib/deploy/services.js'
import { HISTORY_WEEK_MS, historyMarks, SNAPSHOT_INTERVAL_MS, THINNED_INTERVAL_MS } from '../../lib/market/snapshots.js'
import type { ControlRoom, MarketHistoryBody, TokenHistory } from '../../lib/market/types.js'
import { readKeys } from '../../lib/read/keys.js'
import { loadTickConfig } from '../../lib/tick/config.js'
import { createTickEndpoint } from '../../lib/tick/endpoint.js'
import { type ReadStack, startReadStack } from '../support/readStack.js'
import { createSyntheticMarket } from '../support/syntheticMarket.js'

const DAY = 86_400_000
const CRON_SECRET = 'cron-secret-for-tests-0123456789'
/** The first 5-minute slot of day 1 that ticks: 18:00 UTC. */
const DAY_ONE_FIRST_TICK = 216
/** The 30-minute marks day 1 keeps: 18:00 to 23:30. */
const DAY_ONE_MARKS = 12

describe('a week of history through a quiet day (injected clock; the in-process store expires on the same clock)', () => {
  let stack: ReadStack
  let leader: string
  let start: number
  const held = new Map<number, string>()

  /** What the store holds of the week's marks as of now (every mark a 7 d answer may read), and its bytes. */
  async function holdings() {
    const marks = historyMarks(stack.clock.now, '7d')
    const values = await stack.store.getMany(marks.map(readKeys(stack.services.keyPrefix).snapshot))
    held.clear()
    marks.forEach((t, i) => {
      if (values[i]) held.set(t, values[i]!)
    })
    return { marks: [...held.keys()], bytes: [...held.values()].reduce((sum, v) => sum + v.length, 0) }
  }
  const get = async <T>(path: string) => {
    const endpoint = path.startsWith('/api/token-history') ? stack.tokenHistory : stack.marketHistory
    const response = await endpoint(new Request(`https://svc.test${path}`))
    expect(response.status, path).toBe(200)
    return { body: (await response.json()) as T, etag: response.headers.get('etag') }
  }

  beforeAll(async () => {
    // A market just big enough for a full room (100 tokens, held below), not the default 160: each of the 360 ticks
    // refreshes the room.
    stack = await startReadStack({ storeKind: 'memory', storeOnClock: true, market: createSyntheticMarket({ tokens: 104 }) })
    const tick = createTickEndpoint({
      read: () => stack.services,
      deploy: deployServicesFrom(() => createDeployServices({ env: { BASE_RPC_URL: 'http://127.0.0.1:9' }, store: null })),
      config: () => ({ ...loadTickConfig({ CRON_SECRET }), intervalSeconds: 300 }),
    })
    const cron = () => new Request('https://svc.test/api/tick', { headers: { authorization: `Bearer ${CRON_SECRET}` } })
    start = Math.floor(stack.clock.now / DAY) * DAY + DAY // a midnight, UTC
    // Day 1, its last 6 hours (the service started then): the scheduler ticks every 5 minutes, a little late as
    // schedulers are; nobody reads. Day 2: nothing at all (no tick, no reader). Day 3: ticks again, all day. The clock
    // stops at the last tick of day 3. (A whole first day would thin the same way, 48 marks instead of 12, at the cost
    // of 216 more ticks.)
    for (const day of [0, 2])
      for (let i = day === 0 ? DAY_ONE_FIRST_TICK : 0; i < DAY / SNAPSHOT_INTERVAL_MS; i++) {
        stack.clock.now = start + day * DAY + i * SNAPSHOT_INTERVAL_MS + ((i * 7_919) % 60_000)
        const summary = (await (await tick.fetch(cron())).json()) as { parts: { snapshot: { ok: boolean } } }
        expect(summary.parts.snapshot.ok).toBe(true)
      }
    const room = (await (await stack.controlRoom(new Request('https://svc.test/api/control-room'))).json()) as ControlRoom
    expect(room.liveActivity).toHaveLength(100) // a full room: the bill below is for 100 tokens a snapshot
    leader = room.liveActivity[0]!.address
  }, 120_000)
  afterAll(() => stack?.close())

  it('holds every 5-minute snapshot of the last day, only the 30-minute ones before it, and nothing of the quiet day', async () => {
    const { marks, bytes } = await holdings()
    const day1 = marks.filter((t) => t < start + DAY)
    const day2 = marks.filter((t) => t >= start + DAY && t < start + 2 * DAY)
    const day3 = marks.filter((t) => t >= start + 2 * DAY)
    expect(day1).toHaveLength(DAY_ONE_MARKS)
    expect(day1.every((t) => t % THINNED_INTERVAL_MS === 0)).toBe(true)
    expect(day2).toEqual([])
    expect(day3).toHaveLength(288)
    // The bill: under 10 KB a snapshot (100 tokens), so a day of them is under 2.9 MB and a thinned day under 0.5 MB.
    expect(bytes / marks.length).toBeLessThan(10_000)
  })

  it('answers 7 d every 30 minutes, with a gap where the quiet day left nothing; 24 h is today’s answer, byte for byte', async () => {
    const week = await get<TokenHistory>(`/api/token-history?address=${leader}&range=7d`)
    expect(week.body.intervalSeconds).toBe(1800)
    const times = week.body.points.map((p) => Date.parse(p.t))
    expect(times.every((t) => t % THINNED_INTERVAL_MS === 0)).toBe(true)
    expect(times.filter((t) => t < start + DAY)).toHaveLength(DAY_ONE_MARKS)
    expect(times.filter((t) => t >= start + DAY && t < start + 2 * DAY)).toEqual([]) // no point invented for the quiet day
    expect(times.filter((t) => t >= start + 2 * DAY)).toHaveLength(48)
    expect(week.body.points.every((p) => p.rank === 1 && p.volume24h !== null)).toBe(true)
    const day = await get<TokenHistory>(`/api/token-history?address=${leader}`)
    expect(day.body.intervalSeconds).toBe(300)
    expect(day.body.points).toHaveLength(288)
    const same = await get<TokenHistory>(`/api/token-history?address=${leader}&range=24h`)
    expect(same.etag).toBe(day.etag)
    const market = await get<MarketHistoryBody>('/api/market-history?range=7d')
    expect(market.body.volume.intervalSeconds).toBe(1800)
    expect(market.body.volume.points).toHaveLength(DAY_ONE_MARKS + 48)
    expect(market.body.sparklines.times).toHaveLength(56)
    expect((await get<MarketHistoryBody>('/api/market-history')).body.volume.points).toHaveLength(288)
  })

  it('a week later, nobody having called: the first day has left the store and the answer', async () => {
    stack.clock.now = start + 8 * DAY + 10 * 60_000 // a week after the first day ended
    const { marks } = await holdings()
    expect(marks.filter((t) => t < start + DAY)).toEqual([])
    expect(marks.every((t) => t % THINNED_INTERVAL_MS === 0 && t > stack.clock.now - HISTORY_WEEK_MS)).toBe(true)
    expect(marks).toHaveLength(48)
    const week = await get<TokenHistory>(`/api/token-history?address=${leader}&range=7d`)
    expect(week.body.points.map((p) => Date.parse(p.t))).toEqual(marks)
    const wrong = await stack.tokenHistory(new Request(`https://svc.test/api/token-history?address=${leader}&range=30d`))
    expect(wrong.status).toBe(400)
    expect(await wrong.json()).toMatchObject({ code: 'INVALID_PARAMETER', field: 'range' })
  })
})
