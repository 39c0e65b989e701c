import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createLogger, silentLogger } from '../../lib/platform/log.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import { createSlidingLogStore } from '../../lib/store/slidingLog.js'
import type { Store } from '../../lib/store/types.js'
import { createUpstashStore } from '../../lib/store/upstash.js'
import { createSharedRequestBudget } from '../../lib/upstream/sharedBudget.js'
import { startUpstashRestServer, type UpstashRestServer } from '../support/upstashRestServer.js'

describe.each(['memory', 'upstash'] as const)('a share of the upstream budget on the %s store', (kind) => {
  let store: Store
  let server: UpstashRestServer | null = null
  beforeAll(async () => {
    if (kind === 'upstash') {
      server = await startUpstashRestServer({ redisSocket: inject('redisSocket') })
      store = createUpstashStore({ url: server.url, token: server.token })
    } else store = createMemoryStore()
  })
  afterAll(() => server?.close())

  it('takes a slot of the share and of the whole, or of neither: searches refused by the whole leave the share free', async () => {
    const prefix = `budget-${process.pid}-${kind}-${Date.now()}:`
    const clock = { now: 1_800_000_000_000 }
    const now = () => clock.now
    const whole = createSharedRequestBudget({ store, key: `${prefix}whole`, perMinute: 5, logger: silentLogger, now })
    const within = { key: `${prefix}whole`, perMinute: 5 }
    const search = createSharedRequestBudget({ store, key: `${prefix}share`, perMinute: 3, logger: silentLogger, now, within })
    // The control room spends the whole minute; searches meanwhile are refused, as they must be.
    for (let i = 0; i < 5; i++) expect(await whole()).toBe(true)
    for (let i = 0; i < 3; i++) {
      clock.now += 1
      expect(await search()).toBe(false)
    }
    // A minute after the room's requests the whole is free again, and so is the share: nothing was taken of it.
    clock.now = 1_800_000_060_000
    expect([await search(), await search(), await search(), await search()]).toEqual([true, true, true, false])
  })
})

describe('the upstream budget while the shared store is unreachable', () => {
  let server: UpstashRestServer
  beforeAll(async () => {
    server = await startUpstashRestServer({ redisSocket: inject('redisSocket') })
  })
  afterAll(() => server.close())

  it('holds the same windows in this process: a share within its whole, taken together or not at all, and a line once a minute', async () => {
    const store = createUpstashStore({ url: server.url, token: server.token })
    const prefix = `budget-down-${process.pid}-${Date.now()}:`
    const clock = { now: 1_800_000_000_000 }
    const now = () => clock.now
    const lines: string[] = []
    const logger = createLogger({ write: (line) => lines.push(line), now })
    const local = createSlidingLogStore(now)
    const whole = createSharedRequestBudget({ store, key: `${prefix}whole`, perMinute: 5, logger, now, local })
    const within = { key: `${prefix}whole`, perMinute: 5 }
    const search = createSharedRequestBudget({ store, key: `${prefix}share`, perMinute: 3, logger, now, within, local })
    server.setUnreachable(true)
    try {
      for (let i = 0; i < 5; i++) expect(await whole()).toBe(true)
      for (let i = 0; i < 3; i++) {
        clock.now += 1
        expect(await search()).toBe(false)
      }
      clock.now = 1_800_000_060_000
      expect([await search(), await search(), await search(), await search()]).toEqual([true, true, true, false])
      // The whole counted those three searches: two more requests of its own, then none.
      expect([await whole(), await whole(), await whole()]).toEqual([true, true, false])
    } finally {
      server.setUnreachable(false)
    }
    const warnings = lines.filter((line) => line.includes('upstream calls counted per instance'))
    expect(warnings).toHaveLength(2) // each budget once within the minute
  }, 30_000)
})
