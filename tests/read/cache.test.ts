import { describe, expect, inject, it } from 'vitest'
import { createLogger } from '../../lib/platform/log.js'
import { createReadCache, LOCAL_ENTRIES_MAX } from '../../lib/read/cache/readCache.js'
import { refreshLockKey } from '../../lib/read/cache/sharedRefresh.js'
import { readKeys } from '../../lib/read/keys.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import { startReadStack } from '../support/readStack.js'
import { createTestClock } from '../support/testClock.js'

/** The bound on an instance’s own copy in the first case: a tenth of the service’s. */
const KEPT = LOCAL_ENTRIES_MAX / 10

describe('the instance’s own copy of the shared cache (Upstash over redis-server)', () => {
  it('keeps the hot bodies apart from search terms: after a flood of twice the terms it keeps and no room read, warm room reads cost nothing', async () => {
    // The bound made small (the service's is LOCAL_ENTRIES_MAX): the flood is about the bound, not its size.
    const stack = await startReadStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), cacheLocalEntriesMax: KEPT })
    try {
      const room = () => stack.controlRoom(new Request('https://svc.test/api/control-room'))
      const body = await (await room()).text()
      const keys = readKeys(stack.services.keyPrefix)
      const term = (i: number) => ({ key: keys.tokenSearch(`term${i}`), ttlMs: 30_000, refresh: async () => ({ body: `{"q":${i}}` }) })
      // Distinct terms, twice as many as the instance keeps, with no room read in between.
      for (let i = 0; i < 2 * KEPT; i++) await stack.services.cache.read(term(i))
      const before = stack.upstash!.commands.length
      for (let i = 0; i < 20; i++) expect(await (await room()).text()).toBe(body)
      expect(stack.upstash!.commands.slice(before)).toEqual([])
      // The terms themselves stay bounded: the first ones were let go, and asking for one again reads the store.
      await stack.services.cache.read(term(0))
      expect(stack.upstash!.commands.slice(before)).toEqual(['GET'])
    } finally {
      await stack.close()
    }
  }, 60_000)
})

describe('the cache’s change listeners', () => {
  it('cannot fail a refresh: one that throws is logged once, the read still answers, and the others are told', async () => {
    const clock = createTestClock(1_800_000_000_000)
    const lines: string[] = []
    const background: Promise<unknown>[] = []
    const cache = createReadCache({
      store: createMemoryStore({ now: () => clock.now }),
      logger: createLogger({ write: (line) => lines.push(line), now: () => clock.now }),
      now: () => clock.now,
      sleep: clock.clock.sleep,
      waitUntil: (promise) => void background.push(promise),
    })
    let made = 0
    const room = { key: 'room', ttlMs: 30_000, refresh: async () => ({ body: `{"n":${++made}}` }) }
    const told: string[] = []
    cache.onChange('room', () => {
      throw new Error('a broken listener')
    })
    cache.onChange('room', (entry) => told.push(entry.body))
    expect((await cache.read(room)).entry.body).toBe('{"n":1}')
    // Past the window: the stale body at once, and the refresh behind it lands as the next read's fresh body.
    clock.now += 31_000
    expect(await cache.read(room)).toMatchObject({ entry: { body: '{"n":1}' }, stale: true })
    await Promise.all(background)
    expect(await cache.read(room)).toMatchObject({ entry: { body: '{"n":2}' }, stale: false })
    expect(told).toEqual(['{"n":1}', '{"n":2}'])
    const failures = lines.map((line) => JSON.parse(line) as { event: string; error?: string })
    expect(failures.filter((f) => f.event === 'change_listener_failed')).toEqual([
      expect.objectContaining({ event: 'change_listener_failed', error: 'Error' }),
    ])
    expect(failures.filter((f) => f.event === 'background_refresh_failed')).toEqual([])
  })
})

describe('the cache’s waits run on its injected clock', () => {
  /** A clock the test owns: reading it costs nothing, and waiting on it moves it. */
  const fakeClock = () => {
    const clock = { now: 1_800_000_000_000, slept: 0 }
    const sleep = async (ms: number) => {
      clock.now += ms
      clock.slept += ms
    }
    return { clock, now: () => clock.now, sleep }
  }

  it('pauses the background refresh of a failing key for retryFailedAfterMs of that clock', async () => {
    const { clock, now, sleep } = fakeClock()
    const background: Promise<unknown>[] = []
    const cache = createReadCache({
      store: createMemoryStore({ now }),
      logger: createLogger({ write: () => {}, now }),
      now,
      sleep,
      retryFailedAfterMs: 5_000,
      waitUntil: (promise) => void background.push(promise),
    })
    let attempts = 0
    let failing = false
    const room = {
      key: 'room',
      ttlMs: 30_000,
      refresh: async () => {
        attempts++
        if (failing) throw new Error('the upstream is down')
        return { body: `{"at":${clock.now}}` }
      },
    }
    await cache.read(room)
    failing = true
    clock.now += 31_000
    const staleRead = async () => {
      expect((await cache.read(room)).stale).toBe(true)
      await Promise.all(background.splice(0))
    }
    await staleRead()
    expect(attempts).toBe(2) // the first refresh behind a stale read, which failed
    clock.now += 4_999
    await staleRead()
    expect(attempts).toBe(2) // paused
    clock.now += 1
    await staleRead()
    expect(attempts).toBe(3) // the pause is over on the cache's clock
  })

  it('waits for another instance’s refresh no longer than the lock’s lease, measured on that clock', async () => {
    const { clock, now, sleep } = fakeClock()
    const store = createMemoryStore({ now })
    // Another instance holds the refresh lock and never finishes (its lease outlives this case).
    expect(await store.acquireLock(refreshLockKey('room'), 60_000)).not.toBeNull()
    const cache = createReadCache({ store, logger: createLogger({ write: () => {}, now }), now, sleep, lockTtlMs: 12_000 })
    const started = clock.now
    const { entry } = await cache.read({ key: 'room', ttlMs: 30_000, refresh: async () => ({ body: '{"mine":true}' }) })
    expect(entry.body).toBe('{"mine":true}')
    expect(entry.fetchedAt - started).toBe(12_000)
    expect(clock.slept).toBe(12_000)
  })
})
