import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { silentLogger } from '../../lib/platform/log.js'
import { createReadCache, LOCAL_ENTRIES_MAX } from '../../lib/read/cache.js'
import { readKeys } from '../../lib/read/keys.js'
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
