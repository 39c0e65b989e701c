import { Redis } from '@upstash/redis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { countCapSlots, releaseCapSlot, reserveCapSlot, reserveCapSlots } from '../../lib/deploy/pipeline/capWindow.js'
import { claimNextNonce, fencesKeyOf, releaseNonce } from '../../lib/deploy/sender/nonceFence.js'
import { claimDue } from '../../lib/deploy/webhooks/leases.js'
import { echoMessage, encodeChainEvent, readChainEvent } from '../../lib/launches/chainEvents.js'
import { announceLaunch, launchesSince } from '../../lib/launches/launchSignal.js'
import type { Launch } from '../../lib/launches/schema.js'
import { releaseTradeWatch, takeTradeWatch } from '../../lib/launches/tradeWatchLease.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import { listIndexed, oldestInIndex, putIndexed, removeFromIndex } from '../../lib/store/recordIndex.js'
import { countSlots, releaseSlot, takeSlots } from '../../lib/store/slidingLog.js'
import { defineScript, type Store, type StoreError } from '../../lib/store/types.js'
import { createUpstashStore } from '../../lib/store/upstash.js'
import { reserveSlots } from '../../lib/upstream/sharedBudget.js'
import { createTestClock } from '../support/testClock.js'
import { startUpstashRestServer, type UpstashRestServer } from '../support/upstashRestServer.js'

/** Both adapters must keep the same semantics: the same tests run on each. */
describe.each(['memory', 'upstash'] as const)('the %s store', (kind) => {
  let store: Store
  let server: UpstashRestServer | null = null
  const prefix = `storetest-${process.pid}-${kind}-${Date.now()}:`
  beforeAll(async () => {
    if (kind === 'upstash') {
      server = await startUpstashRestServer({ redisSocket: inject('redisSocket') })
      store = createUpstashStore({ url: server.url, token: server.token })
    } else store = createMemoryStore()
  })
  afterAll(() => server?.close())

  /**
   * How a TTL shows, without waiting for it: the in-process store runs on a test clock moved past the TTL (the key is
   * then gone); Redis keeps time on its own clock, so there the key's PTTL is read (it is set, and no longer).
   */
  const expiry = (ttlMs: number) => {
    if (kind === 'memory') {
      const clock = createTestClock()
      return {
        store: createMemoryStore({ now: clock.clock.now }) as Store,
        async lapses(key: string, stillThere: () => Promise<unknown>) {
          clock.now += ttlMs - 1
          expect(await stillThere(), `${key} before its TTL`).not.toBeNull()
          clock.now += 2
        },
      }
    }
    const redis = new Redis({ url: server!.url, token: server!.token })
    return {
      store,
      async lapses(key: string) {
        const left = await redis.pttl(key)
        expect(left, `${key}'s PTTL`).toBeGreaterThan(0)
        expect(left, `${key}'s PTTL`).toBeLessThanOrEqual(ttlMs)
        await redis.del(key) // as Redis does once the PTTL runs out
      },
    }
  }

  it('holds the trade watch’s lease for one instance at a time, with the cursor a new holder goes on from', async () => {
    const { store: on, lapses } = expiry(30_000)
    const keys = { lease: `${prefix}trades:watcher`, cursor: `${prefix}trades:cursor`, leaseMs: 30_000, cursorMs: 300_000 }
    let known: string | null = null
    const take = async (instanceId: string, saved: string | null = null) => {
      const answer = await takeTradeWatch({ store: on, keys, instanceId, saved, expected: known })
      if (answer.ok) known = answer.cursor
      return answer.ok ? { ok: true, cursor: answer.cursor } : answer
    }
    expect(await take('a')).toEqual({ ok: true, cursor: null }) // free, and no cursor saved yet
    expect(await take('b')).toEqual({ ok: false, code: 'LEASE_HELD_ELSEWHERE' })
    expect(await take('a', 'block-12')).toEqual({ ok: true, cursor: 'block-12' }) // a renewal saves a's cursor
    expect(await take('b', 'block-99')).toEqual({ ok: false, code: 'LEASE_HELD_ELSEWHERE' }) // b saves nothing: it does not hold it
    expect(await on.get(keys.cursor)).toBe('block-12')
    await releaseTradeWatch({ store: on, keys, instanceId: 'b', saved: null, expected: null }) // not b's to free
    expect(await take('b')).toEqual({ ok: false, code: 'LEASE_HELD_ELSEWHERE' })
    await releaseTradeWatch({ store: on, keys, instanceId: 'a', saved: 'block-15', expected: 'block-12' })
    expect(await take('b')).toEqual({ ok: true, cursor: 'block-15' }) // b goes on where a stopped
    // b vanishes without a word: its lease lapses after leaseMs, and a takes it back.
    await lapses(keys.lease, () => on.get(keys.lease))
    expect(await take('a')).toEqual({ ok: true, cursor: 'block-15' })
    // a's lease lapses while it reads; c takes over and reads on to block-200. a's late release, with the block it
    // had reached, must neither move c's cursor back nor free c's lease.
    await lapses(keys.lease, () => on.get(keys.lease))
    expect(await take('c', 'block-200')).toEqual({ ok: true, cursor: 'block-200' })
    await releaseTradeWatch({ store: on, keys, instanceId: 'a', saved: 'block-100', expected: 'block-15' })
    expect(await on.get(keys.cursor)).toBe('block-200')
    expect(await take('a')).toEqual({ ok: false, code: 'LEASE_HELD_ELSEWHERE' })
    // A release finding the lease free (its own lapsed, no one took it) keeps the cursor it brings: the newest known.
    await lapses(keys.lease, () => on.get(keys.lease))
    await releaseTradeWatch({ store: on, keys, instanceId: 'c', saved: 'block-210', expected: 'block-200' })
    expect(await on.get(keys.cursor)).toBe('block-210')
  })

  it('never moves the trade watch’s cursor back: a holder whose lease lapsed writes only over the cursor it last saw', async () => {
    const { store: on, lapses } = expiry(30_000)
    const keys = { lease: `${prefix}trades-cas:watcher`, cursor: `${prefix}trades-cas:cursor`, leaseMs: 30_000, cursorMs: 300_000 }
    const take = (instanceId: string, saved: string | null, expected: string | null) =>
      takeTradeWatch({ store: on, keys, instanceId, saved, expected })
    expect(await take('a', null, null)).toEqual({ ok: true, cursor: null, saved: false })
    expect(await take('a', 'block-100', null)).toEqual({ ok: true, cursor: 'block-100', saved: true })
    // a's lease lapses while it reads; c takes over from a's block 100, reads on to 200, saves it, and stops (or
    // vanishes too): the lease is free again, the cursor says 200.
    await lapses(keys.lease, () => on.get(keys.lease))
    expect(await take('c', null, null)).toEqual({ ok: true, cursor: 'block-100', saved: false })
    expect(await take('c', 'block-200', 'block-100')).toEqual({ ok: true, cursor: 'block-200', saved: true })
    await releaseTradeWatch({ store: on, keys, instanceId: 'c', saved: 'block-200', expected: 'block-200' })
    expect(await on.get(keys.lease)).toBeNull()
    // a's late release finds the lease free, and a cursor that is not the one it saved: it writes nothing.
    await releaseTradeWatch({ store: on, keys, instanceId: 'a', saved: 'block-150', expected: 'block-100' })
    expect(await on.get(keys.cursor)).toBe('block-200')
    // a's late renewal takes the free lease, but keeps the newer cursor and answers it, for a to go on from.
    expect(await take('a', 'block-150', 'block-100')).toEqual({ ok: true, cursor: 'block-200', saved: false })
    expect(await on.get(keys.cursor)).toBe('block-200')
    // From there a's saves go through again: it now holds the lease and knows the cursor.
    expect(await take('a', 'block-230', 'block-200')).toEqual({ ok: true, cursor: 'block-230', saved: true })
  })

  /** A subscription that keeps what it hears: its opens, its messages in order, its drop. */
  const listen = (channel: string, on: Store = store) => {
    const messages: string[] = []
    let [opens, dropped] = [0, null as Error | null]
    let markOpen = () => {}
    const opened = new Promise<void>((resolve) => (markOpen = resolve))
    const subscription = on.subscribe(channel, {
      onOpen: () => {
        opens += 1
        markOpen()
      },
      onMessage: (message) => messages.push(message),
      onDrop: (error) => {
        dropped = error
      },
    })
    return { messages, opened, subscription, opens: () => opens, dropped: () => dropped }
  }

  it('publishes to every subscription open on the channel, once each, in order, byte for byte; to none after close', async () => {
    const channel = `${prefix}events`
    const [a, b, elsewhere] = [listen(channel), listen(channel), listen(`${prefix}other-events`)]
    expect([a.opens(), b.opens(), elsewhere.opens()]).toEqual([0, 0, 0]) // nothing comes synchronously from subscribe
    await Promise.all([a.opened, b.opened, elsewhere.opened])
    const texts = [encodeChainEvent('launch', 1, { a: 1 }), 'héllo, ✓ 🚀 with, commas', 'T0s=', 'OK', '42', 'null', '', echoMessage('x', 2)]
    for (const text of texts) await store.publish(channel, text)
    await expect.poll(() => b.messages.length).toBe(texts.length)
    await expect.poll(() => a.messages.length).toBe(texts.length)
    expect(a.messages).toEqual(texts)
    expect(b.messages).toEqual(texts)
    expect(elsewhere.messages).toEqual([])
    a.subscription.close()
    await store.publish(channel, 'after a closed')
    await expect.poll(() => b.messages.at(-1)).toBe('after a closed')
    expect(a.messages).toHaveLength(texts.length)
    expect([a.opens(), b.opens(), a.dropped(), b.dropped()]).toEqual([1, 1, null, null])
    // Nobody listening: the message goes nowhere, and the publish still succeeds.
    await store.publish(`${prefix}nobody`, 'lost')
    for (const open of [b, elsewhere]) open.subscription.close()
  })

  it('stores strings with a TTL, byte for byte (unicode and base64-looking values too)', async () => {
    for (const value of ['{"a":1}', 'héllo ✓ 🚀', 'T0s=', 'OK', '']) {
      await store.set(`${prefix}v`, value, 10_000)
      expect(await store.get(`${prefix}v`)).toBe(value)
    }
    // A TTL long enough that a loaded machine never sees it run out between the write and the look.
    const short = expiry(30_000)
    await short.store.set(`${prefix}short`, 'x', 30_000)
    await short.lapses(`${prefix}short`, () => short.store.get(`${prefix}short`))
    expect(await short.store.get(`${prefix}short`)).toBeNull()
    expect(await store.get(`${prefix}never-set`)).toBeNull()
  })

  it('gives a lock to one caller at a time and releases it only for its owner', async () => {
    const key = `${prefix}lock`
    const results = await Promise.all(Array.from({ length: 20 }, () => store.acquireLock(key, 5_000)))
    const owners = results.filter((t): t is string => t !== null)
    expect(owners).toHaveLength(1)
    expect(await store.releaseLock(key, 'not-the-owner')).toBe(false)
    expect(await store.acquireLock(key, 5_000)).toBeNull()
    expect(await store.releaseLock(key, owners[0]!)).toBe(true)
    expect(await store.acquireLock(key, 5_000)).not.toBeNull()
  })

  it('lets a lock lapse after its lease, so a crashed holder never blocks for good', async () => {
    const key = `${prefix}lease`
    const lease = expiry(30_000)
    expect(await lease.store.acquireLock(key, 30_000)).not.toBeNull()
    expect(await lease.store.acquireLock(key, 30_000)).toBeNull()
    await lease.lapses(key, async () => ((await lease.store.acquireLock(key, 30_000)) === null ? 'held' : null))
    expect(await lease.store.acquireLock(key, 30_000)).not.toBeNull()
  })

  it('hands out a signer’s nonces one by one under its lock: fenced, never below the floor, given back without a gap', async () => {
    const lockKey = `${prefix}nlock`
    const nonces = { counterKey: `${prefix}nnext`, fencePrefix: `${prefix}nfence:`, fenceTtlMs: 10_000, counterTtlMs: 60_000 }
    const token = (await store.acquireLock(lockKey, 10_000))!
    const claim = (floor: number, lockToken = token, now = Date.now()) =>
      claimNextNonce(store, { ...nonces, lockKey, lockToken, floor, now })
    expect(await claim(5)).toEqual({ kind: 'claimed', nonce: 5 }) // a fresh stream starts at the node's pending count
    expect(await claim(5)).toEqual({ kind: 'claimed', nonce: 6 }) // a stale floor: the counter leads
    expect(await claim(5)).toEqual({ kind: 'claimed', nonce: 7 })
    expect(await claim(8, 'not-the-holder')).toEqual({ kind: 'lock-lost' })
    const giveBack = (nonce: number) => releaseNonce(store, { counterKey: nonces.counterKey, fencePrefix: nonces.fencePrefix, nonce })
    // The last nonce given back (the node refused it) is taken again by the next claim.
    await giveBack(7)
    expect(await claim(5)).toEqual({ kind: 'claimed', nonce: 7 })
    // One given back from the middle (a later one is out) is taken again first: the stream keeps no gap.
    await giveBack(6)
    expect(await claim(5)).toEqual({ kind: 'claimed', nonce: 6 })
    expect(await claim(5)).toEqual({ kind: 'claimed', nonce: 8 })
    // A fence someone else holds is never taken twice.
    const holdFence = defineScript<number>({
      name: 'test holds a fence',
      lua: `return redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])`,
      inProcess: (data, [key], [lapsesAt, nonce]) => {
        data.zadd(key!, Number(lapsesAt), nonce!)
        return 1
      },
    })
    await store.run(holdFence, [fencesKeyOf(nonces.fencePrefix)], [Date.now() + 10_000, 9])
    expect(await claim(5)).toEqual({ kind: 'held', nonce: 9 })
    await giveBack(9) // the other deploy gave it back
    // The node is ahead (another sender used 9-19): the floor leads, and a later stale floor never goes back there.
    expect(await claim(20)).toEqual({ kind: 'claimed', nonce: 20 })
    expect(await claim(5)).toEqual({ kind: 'claimed', nonce: 21 })
    // A nonce claimed long ago that never reached the node (its fence lapsed) is taken again, not left as a gap.
    const later = Date.now() + nonces.fenceTtlMs + 1
    expect(await claim(21, token, later)).toEqual({ kind: 'claimed', nonce: 21 })
    expect(await claim(21, token, later)).toEqual({ kind: 'claimed', nonce: 22 })
  })

  it('tells the oldest member of an index by its score', async () => {
    const indexKey = `${prefix}oldest`
    const t = Date.now()
    expect(await oldestInIndex(store, indexKey)).toBeNull()
    for (const [member, score] of [
      ['b', 2_000],
      ['a', 1_000],
      ['c', 3_000],
    ] as const)
      await putIndexed(store, {
        recordKey: `${prefix}rec:${member}`,
        value: member,
        ttlMs: 60_000,
        member,
        score: t + score,
        indexKeys: [indexKey],
        maxEntries: 10,
      })
    expect(await oldestInIndex(store, indexKey)).toBe(t + 1_000)
    await removeFromIndex(store, indexKey, 'a')
    expect(await oldestInIndex(store, indexKey)).toBe(t + 2_000)
  })

  it('sets only when absent, and deletes', async () => {
    expect(await store.setIfAbsent(`${prefix}nx`, 'a', 5_000)).toBe(true)
    expect(await store.setIfAbsent(`${prefix}nx`, 'b', 5_000)).toBe(false)
    expect(await store.get(`${prefix}nx`)).toBe('a')
    await store.delete(`${prefix}nx`)
    expect(await store.get(`${prefix}nx`)).toBeNull()
  })

  it('writes several keys in one step, some only when absent, and releases a lock only for its owner', async () => {
    const lock = `${prefix}wm:lock`
    const token = await store.acquireLock(lock, 5_000)
    await store.set(`${prefix}wm:kept`, 'first', 5_000)
    await store.writeMany({
      entries: [
        { key: `${prefix}wm:a`, value: '{"json":"as text"}', ttlMs: 5_000 },
        { key: `${prefix}wm:kept`, value: 'second', ttlMs: 5_000, ifAbsent: true },
        { key: `${prefix}wm:new`, value: 'n', ttlMs: 5_000, ifAbsent: true },
      ],
      releaseLock: { key: lock, token: token! },
    })
    expect(await store.getMany([`${prefix}wm:a`, `${prefix}wm:kept`, `${prefix}wm:new`])).toEqual(['{"json":"as text"}', 'first', 'n'])
    expect(await store.acquireLock(lock, 5_000)).not.toBeNull() // released
    const other = await store.acquireLock(`${prefix}wm:lock2`, 5_000)
    await store.writeMany({ entries: [], releaseLock: { key: `${prefix}wm:lock2`, token: 'not-the-owner' } })
    expect(await store.acquireLock(`${prefix}wm:lock2`, 5_000)).toBeNull() // still held by `other`
    expect(other).not.toBeNull()
  })

  it('keeps a strict rolling window: exactly the limit under concurrency, and says when a slot frees', async () => {
    const key = `${prefix}window`
    const t0 = 1_000_000
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => reserveCapSlot(store, { key, member: `m${i}`, limit: 3, windowMs: 10_000, now: t0 + i })),
    )
    expect(results.filter((r) => r.ok)).toHaveLength(3)
    const refused = results.find((r) => !r.ok)!
    expect(refused).toMatchObject({ ok: false, used: 3 })
    const freesAt = (refused as { freesAt: number }).freesAt
    expect(freesAt).toBeGreaterThanOrEqual(t0 + 10_000)
    expect(freesAt).toBeLessThanOrEqual(t0 + 10_007)
    // Just before the oldest entry leaves the window: still full. At that instant: a slot.
    expect((await reserveCapSlot(store, { key, member: 'late', limit: 3, windowMs: 10_000, now: freesAt - 1 })).ok).toBe(false)
    expect((await reserveCapSlot(store, { key, member: 'later', limit: 3, windowMs: 10_000, now: freesAt })).ok).toBe(true)
  })

  it('gives a released slot back, and a limit of 0 admits nothing', async () => {
    const key = `${prefix}window2`
    expect((await reserveCapSlot(store, { key, member: 'a', limit: 1, windowMs: 10_000, now: 5 })).ok).toBe(true)
    expect((await reserveCapSlot(store, { key, member: 'b', limit: 1, windowMs: 10_000, now: 6 })).ok).toBe(false)
    await releaseCapSlot(store, key, 'a')
    expect((await reserveCapSlot(store, { key, member: 'b', limit: 1, windowMs: 10_000, now: 7 })).ok).toBe(true)
    expect((await reserveCapSlot(store, { key: `${prefix}zero`, member: 'a', limit: 0, windowMs: 10_000, now: 7 })).ok).toBe(false)
    // A window emptied is no key at all, as in Redis.
    const exists = defineScript<number>({
      name: 'test',
      lua: `return redis.call('EXISTS', KEYS[1])`,
      inProcess: (data, [k]) => (data.exists(k!) ? 1 : 0),
    })
    expect(await store.run(exists, [key], [])).toBe(1)
    await releaseCapSlot(store, key, 'b')
    expect(await store.run(exists, [key], [])).toBe(0)
  })

  it('takes a slot of every window given or of none: a share with its whole, a service cap with an agent’s', async () => {
    const share = { key: `${prefix}log:share`, limit: 2, windowMs: 10_000 }
    const whole = { key: `${prefix}log:whole`, limit: 3, windowMs: 10_000 }
    const t = 2_000_000
    expect(await takeSlots(store, { windows: [share, whole], member: 'm1', now: t })).toEqual({
      taken: 1,
      windows: [
        { used: 1, oldestAt: t },
        { used: 1, oldestAt: t },
      ],
    })
    expect((await takeSlots(store, { windows: [share, whole], member: 'm2', now: t + 1 })).taken).toBe(1)
    // The share is full: nothing is taken of the whole either.
    expect(await takeSlots(store, { windows: [share, whole], member: 'm3', now: t + 2 })).toEqual({
      taken: 0,
      windows: [
        { used: 2, oldestAt: t },
        { used: 2, oldestAt: t },
      ],
    })
    expect((await takeSlots(store, { windows: [whole], member: 'm4', now: t + 3 })).taken).toBe(1)
    // Several at once, as many as every window still admits (the share's two, as the whole has m4 still).
    expect((await takeSlots(store, { windows: [share, whole], count: 5, member: 'm5', now: t + 10_001 })).taken).toBe(2)
    await releaseSlot(store, [share.key, whole.key], 'm5')
    expect(await countSlots(store, { ...share, now: t + 10_001 })).toBe(1) // m5:2
    expect(await countSlots(store, { ...whole, now: t + 10_001 })).toBe(2) // m4 and m5:2
    const caps = await reserveCapSlots(store, {
      caps: [
        { key: `${prefix}log:service`, limit: 5 },
        { key: `${prefix}log:agent`, limit: 1 },
      ],
      member: 'd1',
      windowMs: 10_000,
      now: t,
    })
    expect(caps).toEqual({ ok: true })
    expect(
      await reserveCapSlots(store, {
        caps: [
          { key: `${prefix}log:service`, limit: 5 },
          { key: `${prefix}log:agent`, limit: 1 },
        ],
        member: 'd2',
        windowMs: 10_000,
        now: t + 5,
      }),
    ).toEqual({ ok: false, code: 'CAP_FULL', full: 1, used: 1, freesAt: t + 10_000 })
    expect(await countSlots(store, { key: `${prefix}log:service`, windowMs: 10_000, now: t + 5 })).toBe(1)
  })

  it('files records in indexes atomically, lists the newest first, bounds each index, and forgets on request', async () => {
    const put = (member: string, score: number, indexKeys = [`${prefix}idx:a`, `${prefix}idx:b`]) =>
      putIndexed(store, {
        recordKey: `${prefix}rec:${member}`,
        value: `record ${member}`,
        ttlMs: 60_000,
        member,
        score,
        indexKeys,
        maxEntries: 3,
      })
    const t = Date.now()
    await put('m1', t)
    await put('m3', t + 2)
    await put('m2', t + 1)
    expect(await listIndexed(store, { indexKey: `${prefix}idx:a`, recordPrefix: `${prefix}rec:`, limit: 10 })).toEqual([
      'record m3',
      'record m2',
      'record m1',
    ])
    expect(await listIndexed(store, { indexKey: `${prefix}idx:b`, recordPrefix: `${prefix}rec:`, limit: 2 })).toEqual([
      'record m3',
      'record m2',
    ])
    // Bounded: a fourth entry pushes out the oldest; one older than the TTL before the newest is dropped too.
    await put('m4', t + 3, [`${prefix}idx:a`])
    expect(await listIndexed(store, { indexKey: `${prefix}idx:a`, recordPrefix: `${prefix}rec:`, limit: 10 })).toEqual([
      'record m4',
      'record m3',
      'record m2',
    ])
    await put('old', t - 120_000, [`${prefix}idx:b`])
    expect(await listIndexed(store, { indexKey: `${prefix}idx:b`, recordPrefix: `${prefix}rec:`, limit: 10 })).toEqual([
      'record m3',
      'record m2',
      'record m1',
    ])
    // Removing from one index leaves the record and the other index alone; a deleted record is skipped.
    await removeFromIndex(store, `${prefix}idx:a`, 'm3')
    expect(await store.get(`${prefix}rec:m3`)).toBe('record m3')
    await store.delete(`${prefix}rec:m2`)
    expect(await listIndexed(store, { indexKey: `${prefix}idx:a`, recordPrefix: `${prefix}rec:`, limit: 10 })).toEqual(['record m4'])
    expect(await listIndexed(store, { indexKey: `${prefix}idx:none`, recordPrefix: `${prefix}rec:`, limit: 10 })).toEqual([])
  })

  it('counts a cap window’s slots after its start, and a budget takes what is left of its minute, never more', async () => {
    const cap = `${prefix}count`
    for (const [member, now] of [
      ['a', 1_000],
      ['b', 2_000],
      ['c', 3_000],
    ] as const)
      await reserveCapSlot(store, { key: cap, member, limit: 10, windowMs: 10_000, now })
    expect(await countCapSlots(store, { key: cap, windowMs: 10_000, now: 11_000 })).toBe(2) // a's slot left at 11,000
    expect(await countCapSlots(store, { key: `${prefix}count-none`, windowMs: 10_000, now: 11_000 })).toBe(0)
    const budget = `${prefix}budget`
    const takes = await Promise.all(
      Array.from({ length: 6 }, () => reserveSlots(store, { key: budget, count: 4, limit: 10, windowMs: 60_000, now: 5_000 })),
    )
    expect(takes.reduce((sum, n) => sum + n, 0)).toBe(10)
    expect(await reserveSlots(store, { key: budget, count: 4, limit: 10, windowMs: 60_000, now: 64_999 })).toBe(0)
    expect(await reserveSlots(store, { key: budget, count: 4, limit: 10, windowMs: 60_000, now: 65_000 })).toBe(4)
  })

  it('leases due members earliest first, each to one caller, until the lease ends', async () => {
    const index = `${prefix}due`
    const put = (member: string, score: number) =>
      putIndexed(store, {
        recordKey: `${prefix}ev:${member}`,
        value: member,
        ttlMs: 600_000,
        member,
        score,
        indexKeys: [index],
        maxEntries: 100,
      })
    const t = Date.now()
    await put('later', t + 60_000)
    await put('second', t - 1_000)
    await put('first', t - 2_000)
    await put('third', t)
    const claims = await Promise.all(
      Array.from({ length: 4 }, () => claimDue(store, { indexKey: index, now: t, until: t + 30_000, limit: 2 })),
    )
    expect(claims.flat().sort()).toEqual(['first', 'second', 'third'])
    expect(claims.find((c) => c.length === 2)).toEqual(['first', 'second'])
    expect(await claimDue(store, { indexKey: index, now: t + 29_999, until: t + 60_000, limit: 10 })).toEqual([])
    expect(await claimDue(store, { indexKey: index, now: t + 30_000, until: t + 90_000, limit: 10 })).toEqual(['first', 'second', 'third'])
    expect(await oldestInIndex(store, index)).toBe(t + 60_000)
  })

  it('signals each confirmed launch once (written, then published), keeps the newest 20, and answers those seen since a time', async () => {
    const key = `${prefix}launches`
    const channel = `${prefix}launch-events`
    const heard = listen(channel)
    await heard.opened
    const launch = (n: number): Launch => ({
      address: `0x${n.toString(16).padStart(40, '0')}`,
      name: `Launch “${n}”`,
      symbol: `L${n}`,
      variant: 'asset',
      decimals: 18,
      initialSupply: null,
      supplyCap: null,
      createdAt: new Date(1_800_000_000_000 + n).toISOString(),
      txHash: `0x${n.toString(16).padStart(64, 'a')}`,
      roles: { admin: null, minter: null },
      status: 'confirmed',
      pool: null,
      powers: null,
      market: null,
      metadata: { description: 'with a | pipe and ] brackets' },
    })
    const t = 1_800_000_000_000
    expect(await announceLaunch({ store, key, channel, launch: launch(1), now: t })).toBe(true)
    // The receipt and the tick may both see one deploy mined: announced once, published once.
    expect(await announceLaunch({ store, key, channel, launch: { ...launch(1), name: 'again' }, now: t + 5 })).toBe(false)
    for (let n = 2; n <= 25; n++) await announceLaunch({ store, key, channel, launch: launch(n), now: t + n * 10 })
    await expect.poll(() => heard.messages.length).toBe(25)
    expect(heard.messages.map(readChainEvent)[0]).toEqual({ kind: 'launch', at: t, launch: launch(1) })
    // Each message says when it was seen, the time the signal keeps it under: a catch-up read and a message agree.
    expect(heard.messages.map((m) => readChainEvent(m)?.at)).toEqual([t, ...Array.from({ length: 24 }, (_, i) => t + (i + 2) * 10)])
    heard.subscription.close()
    const all = await launchesSince(store, key, 0)
    expect(all.map((s) => s.launch.symbol)).toEqual(Array.from({ length: 20 }, (_, i) => `L${i + 6}`))
    expect(all[0]).toEqual({ launch: launch(6), seenAt: t + 60 })
    expect((await launchesSince(store, key, t + 250)).map((s) => s.launch.symbol)).toEqual(['L25'])
    expect(await launchesSince(store, key, t + 251)).toEqual([])
    expect(await launchesSince(store, `${prefix}no-launches`, 0)).toEqual([])
  })
})

describe('scripts on Upstash', () => {
  it('are sent whole once per instance, then called by their SHA-1, and sent again once when Redis forgot them', async () => {
    const server = await startUpstashRestServer({ redisSocket: inject('redisSocket') })
    const store = createUpstashStore({ url: server.url, token: server.token })
    try {
      // A script no test has sent before (its text differs by a comment), so this Redis does not know it.
      const script = defineScript<number>({
        name: 'test',
        lua: `-- ${process.pid} ${Date.now()}\nreturn redis.call('ZCARD', KEYS[1])`,
        inProcess: (data, [key]) => data.zcard(key!),
      })
      const key = `sha-${process.pid}-${Date.now()}`
      expect(await store.run(script, [key], [])).toBe(0)
      expect(await store.run(script, [key], [])).toBe(0)
      expect(server.commands.filter((c) => c.startsWith('EVAL'))).toEqual(['EVAL', 'EVALSHA'])
      // Another instance (a new store) over the same Redis sends it whole once too.
      const other = createUpstashStore({ url: server.url, token: server.token })
      expect(await other.run(script, [key], [])).toBe(0)
      expect(server.commands.filter((c) => c.startsWith('EVAL'))).toEqual(['EVAL', 'EVALSHA', 'EVAL'])
      // Redis lost its scripts (a restart, SCRIPT FLUSH): the call by hash fails once, and the script goes whole again.
      await new Redis({ url: server.url, token: server.token }).scriptFlush()
      expect(await store.run(script, [key], [])).toBe(0)
      expect(await store.run(script, [key], [])).toBe(0)
      expect(server.commands.filter((c) => c.startsWith('EVAL'))).toEqual(['EVAL', 'EVALSHA', 'EVAL', 'EVALSHA', 'EVAL', 'EVALSHA'])
    } finally {
      await server.close()
    }
  })
})

describe('the Upstash-compatible test server', () => {
  it('answers @upstash/redis unmodified: single commands, /pipeline and /multi-exec, base64-encoded', async () => {
    const server = await startUpstashRestServer({ redisSocket: inject('redisSocket') })
    const redis = new Redis({ url: server.url, token: server.token, automaticDeserialization: false, enableAutoPipelining: false })
    const key = `rest-${process.pid}-${Date.now()}`
    try {
      expect(await redis.set(`${key}:a`, 'héllo ✓')).toBe('OK')
      expect(await redis.get(`${key}:a`)).toBe('héllo ✓')
      const pipeline = redis.pipeline()
      pipeline.set(`${key}:b`, 'T0s=')
      pipeline.incr(`${key}:n`)
      pipeline.get(`${key}:b`)
      expect(await pipeline.exec()).toEqual(['OK', 1, 'T0s='])
      const tx = redis.multi()
      tx.incr(`${key}:n`)
      tx.zadd(`${key}:z`, { score: 1, member: 'm' })
      tx.zrange(`${key}:z`, 0, -1)
      expect(await tx.exec()).toEqual([2, 1, ['m']])
      expect(server.commands).toEqual(expect.arrayContaining(['SET', 'GET', 'INCR', 'ZADD', 'ZRANGE']))
      const withFlag = '#!lua flags=allow-key-locking\nreturn 7'
      expect(await redis.eval(withFlag, [], [])).toBe(7)
    } finally {
      await server.close()
    }
  })

  it('serves @upstash/redis’s subscribe unmodified: the frames it reads, one redis connection per subscription, PUBLISH', async () => {
    const server = await startUpstashRestServer({ redisSocket: inject('redisSocket') })
    const redis = new Redis({ url: server.url, token: server.token, automaticDeserialization: false })
    const channel = `rest-channel-${process.pid}-${Date.now()}`
    try {
      const counts: number[] = []
      const heard: { channel: string; message: unknown }[] = []
      const [one, two] = [redis.subscribe<string>([channel]), redis.subscribe<string>([channel])]
      for (const subscriber of [one, two]) subscriber.on('subscribe', (count) => counts.push(count))
      one.on('message', (data) => heard.push(data))
      // Upstash serves each subscription on a connection of its own: each is that connection's first (count 1).
      await expect.poll(() => counts).toEqual([1, 1])
      expect(server.subscriptions).toBe(2)
      expect(await redis.publish(channel, '{"kind":"launch","at":1,"data":{"a":[1,2]}}')).toBe(2)
      await expect.poll(() => heard).toEqual([{ channel, message: '{"kind":"launch","at":1,"data":{"a":[1,2]}}' }])
      expect(server.commands.filter((c) => c === 'SUBSCRIBE' || c === 'PUBLISH')).toEqual(['SUBSCRIBE', 'SUBSCRIBE', 'PUBLISH'])
      await one.unsubscribe()
      await expect.poll(() => server.subscriptions).toBe(1)
      server.dropSubscriptions()
      await expect.poll(() => server.subscriptions).toBe(0)
      expect(await redis.publish(channel, 'nobody')).toBe(0)
    } finally {
      await server.close()
    }
  })

  it('drops a subscription Upstash refuses; a stream it ends later the library does not report (hence the watch’s echo)', async () => {
    const server = await startUpstashRestServer({ redisSocket: inject('redisSocket') })
    const store = createUpstashStore({ url: server.url, token: server.token })
    const channel = `drop-${process.pid}-${Date.now()}`
    const events: string[] = []
    const listener = {
      onOpen: () => events.push('open'),
      onMessage: (message: string) => events.push(message),
      onDrop: (error: StoreError) => events.push(`drop: ${error.shortMessage}`),
    }
    try {
      server.setUnreachable(true)
      const refused = store.subscribe(channel, listener)
      await expect.poll(() => events).toEqual(['drop: store subscribe failed'])
      refused.close()
      server.setUnreachable(false)
      const subscription = store.subscribe(channel, listener)
      await expect.poll(() => events.at(-1)).toBe('open')
      server.dropSubscriptions()
      await expect.poll(() => server.subscriptions).toBe(0)
      await store.publish(channel, 'unheard')
      await new Redis({ url: server.url, token: server.token }).ping() // one more round trip: any drop would have come
      expect(events).toEqual(['drop: store subscribe failed', 'open'])
      subscription.close()
    } finally {
      await server.close()
    }
  })

  it('refuses a wrong token, like Upstash', async () => {
    const server = await startUpstashRestServer({ redisSocket: inject('redisSocket') })
    try {
      const response = await fetch(server.url, { method: 'POST', headers: { authorization: 'Bearer wrong' }, body: '["PING"]' })
      expect(response.status).toBe(401)
    } finally {
      await server.close()
    }
  })
})

describe('the in-process store forgets what has expired, with bounded work per call', () => {
  it('keeps its size flat under a stream of distinct keys, and empties after a quiet spell', async () => {
    const clock = { now: 1_800_000_000_000 }
    const store = createMemoryStore({ now: () => clock.now })
    let largest = 0
    // 100,000 distinct search terms, one every 20 ms (about 33 minutes), each cached for 30 s: about 1,500 alive at once.
    for (let i = 0; i < 100_000; i++) {
      await store.set(`bcr:v2:token-search:term${i}`, 'x'.repeat(200), 30_000)
      clock.now += 20
      largest = Math.max(largest, store.size())
    }
    expect(largest).toBeLessThan(3_000)
    // Two quiet hours, then a few calls (a tick, a read): the expired entries go, a few per call.
    clock.now += 2 * 3_600_000
    for (let i = 0; i < 1_000; i++) await store.get('bcr:v2:control-room')
    expect(store.size()).toBe(0)
  })

  it('holds at most maxEntries values, dropping the least recently written first', async () => {
    const store = createMemoryStore({ maxEntries: 100 })
    await store.set('first', 'kept', 3_600_000)
    for (let i = 0; i < 500; i++) {
      await store.set(`k${i}`, 'v', 3_600_000)
      if (i % 50 === 0) await store.set('first', 'kept', 3_600_000) // rewritten: the most recent again
    }
    expect(store.size()).toBeLessThanOrEqual(100)
    expect(await store.get('k499')).toBe('v')
    expect(await store.get('k0')).toBeNull()
  })
})
