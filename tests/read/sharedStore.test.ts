import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { ControlRoom } from '../../lib/market/types.js'
import { type ReadStack, readUntilFresh, startReadStack } from '../support/readStack.js'
import { openRespConnection } from '../support/resp.js'

/** Past the 600 s in which a last good body is still served: the next read is cold. */
const PAST_GRACE_MS = 11 * 60_000

const get = () => new Request('https://svc.test/api/control-room')

describe('the read cache on real Redis (Upstash REST over redis-server)', () => {
  let stack: ReadStack
  beforeAll(async () => {
    stack = await startReadStack({ storeKind: 'upstash', redisSocket: inject('redisSocket') })
  })
  afterAll(() => stack.close())

  it('shares one refresh and one body across instances', async () => {
    const instances = [stack.newInstance(), stack.newInstance(), stack.newInstance()]
    const before = stack.upstream.requests.length
    const responses = await Promise.all(instances.flatMap((i) => Array.from({ length: 10 }, () => i.controlRoom(get()))))
    const bodies = new Set(await Promise.all(responses.map((r) => r.text())))
    expect(bodies.size).toBe(1)
    const searches = stack.upstream.requests.slice(before).filter((p) => p === '/latest/dex/search?q=WETH')
    expect(searches).toHaveLength(1)
    // The body really went through Redis: a fresh instance with an empty local cache gets the same bytes.
    const later = await stack.newInstance().controlRoom(get())
    expect(await later.text()).toBe([...bodies][0])
    expect(stack.upstash!.commands).toEqual(expect.arrayContaining(['SET', 'GET', 'EVAL']))
  })

  it('after the window, three instances answer the last body at once and make ONE background refresh between them', async () => {
    const instances = [stack.newInstance(), stack.newInstance(), stack.newInstance()]
    const warm = await Promise.all(instances.map((i) => i.controlRoom(get()).then((r) => r.text())))
    stack.clock.now += 31_000
    const before = stack.upstream.requests.length
    const stale = await Promise.all(instances.flatMap((i) => Array.from({ length: 5 }, () => i.controlRoom(get()))))
    for (const response of stale) expect(response.headers.get('x-data-state')).toBe('stale')
    expect(new Set(await Promise.all(stale.map((r) => r.text())))).toEqual(new Set([warm[0]]))
    for (const instance of instances) await readUntilFresh(instance)
    const searches = stack.upstream.requests.slice(before).filter((p) => p === '/latest/dex/search?q=WETH')
    expect(searches).toHaveLength(1)
  })

  it('still answers (uncached) when Redis is unreachable, and says so in a log line', async () => {
    stack.clock.now += PAST_GRACE_MS
    const instance = stack.newInstance()
    stack.upstash!.setUnreachable(true)
    try {
      const response = await instance.controlRoom(get())
      expect(response.status).toBe(200)
      const body = (await response.json()) as ControlRoom
      expect(body.liveActivity.length).toBe(100)
      const events = instance.logs.map((l) => JSON.parse(l) as { event: string; store: string; operation: string })
      expect(events).toContainEqual(expect.objectContaining({ event: 'store_unavailable', store: 'upstash' }))
      expect(instance.logs.join('\n')).not.toContain(stack.upstash!.token)
    } finally {
      stack.upstash!.setUnreachable(false)
    }
  })

  it('keeps the cache entry in Redis for as long as it may be served stale (STALE_IF_ERROR_SECONDS, 600 s)', async () => {
    stack.clock.now += PAST_GRACE_MS
    await stack.controlRoom(get())
    const redis = await openRespConnection(inject('redisSocket'))
    try {
      const keys = (await redis.send(['KEYS', `${stack.services.keyPrefix}v2:control-room`])) as string[]
      expect(keys).toHaveLength(1)
      const ttl = (await redis.send(['PTTL', keys[0]!])) as number
      expect(ttl).toBeGreaterThan(590_000)
      expect(ttl).toBeLessThanOrEqual(600_000)
      expect((await redis.send(['EXISTS', `${keys[0]}:refresh-lock`])) as number).toBe(0)
    } finally {
      redis.close()
    }
  })
})
