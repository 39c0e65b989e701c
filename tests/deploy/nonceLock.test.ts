import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { releaseNonce } from '../../lib/deploy/sender/nonceFence.js'
import { createNonceLocks, type NonceLock } from '../../lib/deploy/sender/nonceLock.js'
import { systemClock } from '../../lib/platform/clock.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import type { Store } from '../../lib/store/types.js'

// The lock runs on the real clock, whose timers and `Date` are faked here: fake timers move time, so no case waits on
// the wall clock.
beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

const nonces = { counterKey: 'next', fencePrefix: 'fence:', fenceTtlMs: 10_000, counterTtlMs: 60_000 }
const lockOf = (key: string, leaseMs = 10_000, waitMs = 5_000) => ({ key, leaseMs, waitMs, nonces })

/** Settles a promise while fake time runs on, in steps. */
async function settleWhileTimePasses<T>(promise: Promise<T>, stepMs = 10): Promise<T> {
  let done = false
  const settled = promise.finally(() => {
    done = true
  })
  while (!done) await vi.advanceTimersByTimeAsync(stepMs)
  return settled
}

describe('the nonce lock', () => {
  it('gives the lock to one deploy at a time; a waiter gets it once released, or null within its wait', async () => {
    const locks = createNonceLocks({ store: createMemoryStore(), clock: systemClock })
    const first = await locks.acquire(lockOf('lock', 10_000, 0))
    expect(first?.state).toBe('held')
    const started = Date.now()
    const givingUp = locks.acquire(lockOf('lock', 10_000, 150))
    expect(await settleWhileTimePasses(givingUp)).toBeNull()
    expect(Date.now() - started).toBeLessThanOrEqual(160) // it gives up within its wait
    const waiter = locks.acquire(lockOf('lock', 10_000, 2000))
    await vi.advanceTimersByTimeAsync(50)
    await first!.release()
    expect(first!.state).toBe('released')
    const second = await settleWhileTimePasses(waiter)
    expect(second?.state).toBe('held')
    await second!.release()
  })

  it('queues waiters of one instance in memory: only the head asks the store, every 20 ms backing off to 100 ms', async () => {
    const inner = createMemoryStore()
    let asks = 0
    const store: Store = {
      ...inner,
      acquireLock: (key: string, ttl: number) => {
        asks += 1
        return inner.acquireLock(key, ttl)
      },
    }
    const locks = createNonceLocks({ store, clock: systemClock })
    const held = (await inner.acquireLock('queued', 10_000))!
    const waiters = Array.from({ length: 10 }, () => locks.acquire(lockOf('queued')))
    await vi.advanceTimersByTimeAsync(200)
    // Ten waiters for 200 ms: one asks (at 0, 20, 50, 95 and 162 ms: backing off); the nine behind it ask nothing.
    expect(asks).toBe(5)
    await inner.releaseLock('queued', held)
    const order: number[] = []
    await settleWhileTimePasses(
      Promise.all(
        waiters.map(async (w, i) => {
          const lock = (await w)!
          order.push(i)
          await lock.release()
        }),
      ),
    )
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
  })

  it('ends a local turn with the lease even if the holder never releases, so the queue cannot jam', async () => {
    const locks = createNonceLocks({ store: createMemoryStore(), clock: systemClock })
    const stuck = await locks.acquire(lockOf('lapsing', 100, 0))
    expect(stuck).not.toBeNull()
    // The holder "crashed": no release. The store lease (100 ms) and the local turn both lapse.
    const next = await settleWhileTimePasses(locks.acquire(lockOf('lapsing', 100, 2000)))
    expect(next?.state).toBe('held')
    await next!.release()
  })

  it('is released once: a second release, or a release after a hand-off, does nothing', async () => {
    const store = createMemoryStore()
    const locks = createNonceLocks({ store, clock: systemClock })
    const first = (await locks.acquire(lockOf('once')))!
    const waiter = locks.acquire(lockOf('once'))
    await vi.advanceTimersByTimeAsync(5)
    expect(first.handOffBeforeSend(Promise.resolve('sent'))).toBe(true)
    expect(first.state).toBe('handed-off')
    await first.release()
    expect(first.state).toBe('handed-off')
    const second = (await waiter)!
    expect(second.token).toBe(first.token) // the same store lock, handed on
    await second.release()
    await second.release()
    expect(second.state).toBe('released')
    expect(await store.acquireLock('once', 1000)).not.toBeNull() // back in the store
  })
})

describe('the nonce lock within one instance: handed on, with the next nonce already claimed', () => {
  it('hands the store lock to the next local waiter up to 8 times, each with its nonce claimed while the previous signed', async () => {
    const inner = createMemoryStore()
    const calls = { acquire: 0, release: 0, claim: 0 }
    const store: Store = {
      ...inner,
      acquireLock: (key: string, ttl: number) => {
        calls.acquire++
        return inner.acquireLock(key, ttl)
      },
      releaseLock: (key: string, token: string) => {
        calls.release++
        return inner.releaseLock(key, token)
      },
      run(script, keys, args) {
        if (script.name === 'nonce claim') calls.claim++
        return inner.run(script, keys, args)
      },
    }
    const locks = createNonceLocks({ store, clock: systemClock })
    const taken: number[] = []
    const storeClaimsAtTurn: number[] = []
    const deploy = async () => {
      const lock = (await locks.acquire(lockOf('burst')))!
      const before = calls.claim
      const claim = await lock.claimNonce(0)
      storeClaimsAtTurn.push(calls.claim - before)
      expect(claim.kind).toBe('claimed')
      lock.prefetchForSuccessor(0)
      await new Promise((r) => setTimeout(r, 5)) // signing and sending, in fake time
      taken.push((claim as { nonce: number }).nonce)
      await lock.release()
    }
    await settleWhileTimePasses(Promise.all(Array.from({ length: 10 }, deploy)), 1)
    expect(taken).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    // Ten deploys, two store locks (8 hand-offs at most), and every nonce claimed once: no claim wasted.
    expect(calls.acquire).toBe(2)
    expect(calls.release).toBe(2)
    expect(calls.claim).toBe(10)
    expect(await inner.get('next')).toBe('10')
    // Only the first deploy of each store lock waited for a claim; the others found theirs made.
    expect(storeClaimsAtTurn).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 1, 0])
  })

  it('gives back a successor’s nonce and its own when a deploy stops unsent: the stream has no gap', async () => {
    const store = createMemoryStore()
    const locks = createNonceLocks({ store, clock: systemClock })
    const first = (await locks.acquire(lockOf('refused')))!
    const waiter = locks.acquire(lockOf('refused'))
    await vi.advanceTimersByTimeAsync(5)
    const own = await first.claimNonce(3)
    expect(own).toEqual({ kind: 'claimed', nonce: 3 })
    first.prefetchForSuccessor(3) // nonce 4, for the waiter
    // The node refuses nonce 3: the successor's nonce goes back first, then its own.
    await first.dropPrefetch()
    await releaseNonce(store, { counterKey: nonces.counterKey, fencePrefix: nonces.fencePrefix, nonce: 3 })
    await first.release()
    const second: NonceLock = (await waiter)!
    expect(await second.claimNonce(3)).toEqual({ kind: 'claimed', nonce: 3 })
    await second.release()
  })

  it('gives back a nonce handed on to a deploy that stopped before asking for it', async () => {
    const store = createMemoryStore()
    const locks = createNonceLocks({ store, clock: systemClock })
    const first = (await locks.acquire(lockOf('early')))!
    const second = locks.acquire(lockOf('early'))
    await vi.advanceTimersByTimeAsync(5)
    expect(await first.claimNonce(0)).toEqual({ kind: 'claimed', nonce: 0 })
    first.prefetchForSuccessor(0)
    await first.release()
    await (await second)!.release() // e.g. a stuck earlier deploy could not be replaced: it never claimed
    const third = (await locks.acquire(lockOf('early')))!
    expect(await third.claimNonce(0)).toEqual({ kind: 'claimed', nonce: 1 })
    await third.release()
  })
})
