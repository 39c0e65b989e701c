import { describe, expect, it } from 'vitest'
import { acquireNonceLock, claimNonce } from '../../lib/deploy/nonceStream.js'
import { createMemoryStore } from '../../lib/store/memory.js'

describe('the nonce lock and fence', () => {
  it('gives the lock to one deploy at a time; a waiter gets it once released, or null within its wait', async () => {
    const store = createMemoryStore()
    const first = await acquireNonceLock(store, 'lock', 10_000, 0)
    expect(first).not.toBeNull()
    const started = Date.now()
    expect(await acquireNonceLock(store, 'lock', 10_000, 150)).toBeNull()
    // It gives up within its wait.
    expect(Date.now() - started).toBeLessThanOrEqual(200)
    const waiter = acquireNonceLock(store, 'lock', 10_000, 2000)
    await new Promise((r) => setTimeout(r, 50))
    await first!.release()
    const second = await waiter
    expect(second).not.toBeNull()
    await second!.release()
  })

  it('queues waiters of one instance in memory: only the head asks the store, at most once per 20 ms', async () => {
    const inner = createMemoryStore()
    let asks = 0
    const store = {
      ...inner,
      acquireLock: (key: string, ttl: number) => {
        asks += 1
        return inner.acquireLock(key, ttl)
      },
    }
    const held = (await inner.acquireLock('queued', 10_000))!
    const waiters = Array.from({ length: 10 }, () => acquireNonceLock(store, 'queued', 10_000, 5000))
    await new Promise((r) => setTimeout(r, 200))
    // Ten waiters for 200 ms: one asks, about every 20 ms; the nine behind it ask nothing.
    expect(asks).toBeGreaterThanOrEqual(5)
    expect(asks).toBeLessThanOrEqual(12)
    await inner.releaseLock('queued', held)
    const order: number[] = []
    await Promise.all(
      waiters.map(async (w, i) => {
        const lock = (await w)!
        order.push(i)
        await lock.release()
      }),
    )
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
  })

  it('ends a local turn with the lease even if the holder never releases, so the queue cannot jam', async () => {
    const store = createMemoryStore()
    const stuck = await acquireNonceLock(store, 'lapsing', 100, 0)
    expect(stuck).not.toBeNull()
    // The holder "crashed": no release. The store lease (100 ms) and the local turn both lapse.
    const next = await acquireNonceLock(store, 'lapsing', 100, 2000)
    expect(next).not.toBeNull()
    await next!.release()
  })

  it('claims a nonce once; a second claim, or a claim by a holder whose lock lapsed, signs nothing', async () => {
    const store = createMemoryStore()
    const token = (await store.acquireLock('lock', 10_000))!
    expect(await claimNonce({ store, nonceKey: 'nonce:7', lockKey: 'lock', lockToken: token })).toBe('claimed')
    expect(await claimNonce({ store, nonceKey: 'nonce:7', lockKey: 'lock', lockToken: token })).toBe('held')
    await store.releaseLock('lock', token)
    const next = (await store.acquireLock('lock', 10_000))!
    expect(await claimNonce({ store, nonceKey: 'nonce:8', lockKey: 'lock', lockToken: token })).toBe('lock-lost')
    expect(await claimNonce({ store, nonceKey: 'nonce:9', lockKey: 'lock', lockToken: next })).toBe('claimed')
  })
})
