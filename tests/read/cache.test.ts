import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createLogger, silentLogger } from '../../lib/platform/log.js'
import { createReadCache, LOCAL_ENTRIES_MAX } from '../../lib/read/cache.js'
import { readKeys } from '../../lib/read/keys.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import { createUpstashStore } from '../../lib/store/upstash.js'
import { startUpstashRestServer, type UpstashRestServer } from '../support/upstashRestServer.js'

describe('the instance’s own copy of the shared cache (Upstash over redis-server)', () => {
  let upstash: UpstashRestServer
  beforeAll(async () => {
    upstash = await startUpstashRestServer({ redisSocket: inject('redisSocket') })
  })
  afterAll(() => upstash.close())

  it('keeps the always-read control room through a flood of 2,000 distinct search terms: its warm reads cost no store command', async () => {
    const clock = { now: 1_800_000_000_000 }
    const cache = createReadCache({
      store: createUpstashStore({ url: upstash.url, token: upstash.token }),
      logger: silentLogger,
      now: () => clock.now,
    })
    const keys = readKeys(`lru${process.pid}-${Date.now()}:`)
    const controlRoom = { key: keys.controlRoom, ttlMs: 30_000, refresh: async () => ({ body: '{"room":true}' }) }
    await cache.read(controlRoom)
    // Dashboards read the room between searches, as they do every few seconds; the terms are all different.
    let roomCommands = 0
    for (let i = 0; i < 2 * LOCAL_ENTRIES_MAX; i++) {
      await cache.read({ key: keys.tokenSearch(`term${i}`), ttlMs: 30_000, refresh: async () => ({ body: `{"q":${i}}` }) })
      if (i % 100 === 99) {
        const before = upstash.commands.length
        expect((await cache.read(controlRoom)).entry.body).toBe('{"room":true}')
        roomCommands += upstash.commands.length - before
      }
    }
    expect(roomCommands).toBe(0)
  }, 60_000)
})

describe('the cache’s change listeners', () => {
  it('cannot fail a refresh: one that throws is logged once, the read still answers, and the others are told', async () => {
    const clock = { now: 1_800_000_000_000 }
    const lines: string[] = []
    const background: Promise<unknown>[] = []
    const cache = createReadCache({
      store: createMemoryStore({ now: () => clock.now }),
      logger: createLogger({ write: (line) => lines.push(line), now: () => clock.now }),
      now: () => clock.now,
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
