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
    // It gives up rather than sleep past its wait, having asked more than once.
    expect(Date.now() - started).toBeLessThanOrEqual(150)
    const waiter = acquireNonceLock(store, 'lock', 10_000, 2000)
    await new Promise((r) => setTimeout(r, 50))
    await store.releaseLock('lock', first!)
    expect(await waiter).not.toBeNull()
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
