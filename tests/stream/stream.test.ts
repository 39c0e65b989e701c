import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { eventIdOf, sseComment, sseEvent, sseRetry } from '../../lib/platform/sse.js'
import { readKeys } from '../../lib/read/keys.js'
import { openBoundedSink } from '../../lib/stream/boundedSink.js'
import { loadStreamConfig, type StreamConfig } from '../../lib/stream/config.js'
import { createStreamEndpoint } from '../../lib/stream/endpoint.js'
import { runTick } from '../../lib/tick/runTick.js'
import { holdReads } from '../support/heldReads.js'
import { type ReadInstance, type ReadStack, readUntilFresh, startReadStack } from '../support/readStack.js'
import { manualTimers, readFrames } from '../support/sseFrames.js'

const HEARTBEAT_MS = 15_000
const DEADLINE_MS = 60_000
const isLook = (ms: number) => ms !== HEARTBEAT_MS && ms !== DEADLINE_MS

describe('GET /api/stream (Upstash over redis-server, the DexScreener-shaped upstream)', () => {
  let stack: ReadStack
  beforeAll(async () => {
    stack = await startReadStack({ storeKind: 'upstash', redisSocket: inject('redisSocket') })
  })
  afterAll(() => stack?.close())

  /** A stream endpoint on `instance` with its own timers and limits (the room alone: launches are tests/stream/launches.test.ts's). */
  function streamOn(instance: ReadInstance, limits: Partial<StreamConfig> = {}) {
    const timers = manualTimers()
    const config = { ...loadStreamConfig({}), maxSeconds: DEADLINE_MS / 1000, ...limits }
    const launches = () => ({ publicLaunches: false, chainId: 8453 as const })
    const endpoint = createStreamEndpoint({ read: () => instance.services, config: () => config, launches, schedule: timers.schedule })
    const open = (headers: Record<string, string> = {}, signal?: AbortSignal) =>
      endpoint.fetch(new Request('https://svc.test/api/stream', { headers: { 'x-real-ip': '198.51.100.7', ...headers }, signal }))
    return { timers, open }
  }
  const controlRoomBody = async (instance: ReadInstance) => {
    const response = await instance.controlRoom(new Request('https://svc.test/api/control-room'))
    return { body: await response.text(), etag: response.headers.get('etag')! }
  }

  it('sends retry, then at once the exact body GET /api/control-room serves, with its ETag as the id', async () => {
    const instance = stack.newInstance()
    const { open } = streamOn(instance)
    const response = await open()
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform')
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('ratelimit-policy')).toBe('"stream";q=10')
    expect(response.headers.get('ratelimit')).toBe('"stream";r=9;t=0')
    const stream = readFrames(response)
    await expect.poll(() => stream.events().length).toBe(1)
    expect(stream.frames[0]).toEqual({ retry: '3000' })
    const served = await controlRoomBody(instance)
    expect(stream.events()[0]).toEqual({ event: 'control-room', id: served.etag.replaceAll('"', ''), data: served.body })
    await stream.cancel()
  })

  it('sends every open stream the new body when a read on the instance refreshes it, and a heartbeat while nothing changes', async () => {
    const instance = stack.newInstance()
    const { open, timers } = streamOn(instance)
    const streams = await Promise.all([open(), open({ 'x-real-ip': '203.0.113.9' })]).then((r) => r.map(readFrames))
    for (const stream of streams) await expect.poll(() => stream.events().length).toBe(1)
    timers.fire((ms) => ms === HEARTBEAT_MS)
    for (const stream of streams) await expect.poll(() => stream.frames.at(-1)).toEqual({ comment: 'heartbeat' })
    stack.clock.now += 31_000
    const fresh = await readUntilFresh(instance)
    for (const stream of streams) await expect.poll(() => stream.events().length).toBe(2)
    const [first, second] = streams[0]!.events()
    expect(second!.id).not.toBe(first!.id)
    expect(JSON.parse(second!.data!)).toEqual(fresh)
    for (const stream of streams) await stream.cancel()
  })

  it('sends the body the scheduled tick refreshed on the instance, as it lands', async () => {
    const instance = stack.newInstance()
    const { open } = streamOn(instance)
    const stream = readFrames(await open())
    await expect.poll(() => stream.events().length).toBe(1)
    stack.clock.now += 31_000
    const noDeploys = async () => {
      throw new Error('no deploys in this test')
    }
    const summary = await runTick({ read: instance.services, deploy: noDeploys, caller: 'test', intervalSeconds: 60 })
    expect(summary.parts?.controlRoom).toMatchObject({ ok: true, refreshed: true })
    await expect.poll(() => stream.events().length).toBe(2)
    await stream.cancel()
  })

  it('learns at the end of the window of a refresh another instance made, with one store read for all its streams', async () => {
    const listening = stack.newInstance()
    const { open, timers } = streamOn(listening)
    const streams = await Promise.all(Array.from({ length: 50 }, (_, i) => open({ 'x-real-ip': `198.51.100.${i}` }))).then((r) =>
      r.map(readFrames),
    )
    for (const stream of streams) await expect.poll(() => stream.events().length).toBe(1)
    // Another instance refreshes once the window is over; the listening one looks when its window ends.
    stack.clock.now += 31_000
    await readUntilFresh(stack.newInstance())
    const commands = stack.upstash!.commands.length
    const upstreamCalls = stack.upstream.requests.length
    expect(timers.pending().filter(isLook)).toHaveLength(1)
    timers.fire(isLook)
    for (const stream of streams) await expect.poll(() => stream.events().length).toBe(2)
    // Fifty streams cost what one does: a single GET of the shared body, and no upstream call (it was fresh).
    expect(stack.upstash!.commands.slice(commands)).toEqual(['GET'])
    expect(stack.upstream.requests.length).toBe(upstreamCalls)
    expect(timers.pending().filter(isLook)).toHaveLength(1) // the next look, at the end of the new window
    for (const stream of streams) await stream.cancel()
  })

  it('refreshes the body itself at the end of the window when no other instance has', async () => {
    const instance = stack.newInstance()
    const { open, timers } = streamOn(instance)
    const stream = readFrames(await open())
    await expect.poll(() => stream.events().length).toBe(1)
    stack.clock.now += 31_000
    timers.fire(isLook)
    await expect.poll(() => stream.events().length).toBe(2)
    await stream.cancel()
  })

  it('only ever moves forward: a first read that answers late with an older body is not sent after a newer one', async () => {
    const held = holdReads(stack.store)
    const instance = stack.newInstance({ store: held.store })
    const { open, timers } = streamOn(instance)
    const old = await controlRoomBody(instance)
    stack.clock.now += 31_000
    // Two clients open at once just past the window. The first one's read of the shared body is answered late...
    const roomKey = readKeys(instance.services.keyPrefix).controlRoom
    const late = held.hold((key) => key === roomKey)
    const first = open({ 'x-real-ip': '198.51.100.20' })
    await late.reached
    // ...while the second gets the stale body at once, and then the body its background refresh made.
    const second = readFrames(await open({ 'x-real-ip': '198.51.100.21' }))
    await instance.drain()
    await expect.poll(() => second.events().length).toBe(2)
    const [stale, fresh] = second.events().map((e) => e.id)
    expect(stale).toBe(eventIdOf(old.etag))
    expect(fresh).not.toBe(stale)
    // The late read now answers with the body it read before the refresh: nobody goes back to it.
    late.release()
    const firstStream = readFrames(await first)
    await expect.poll(() => firstStream.events().length).toBe(1)
    expect(firstStream.events()[0]!.id).toBe(fresh)
    timers.fire((ms) => ms === HEARTBEAT_MS)
    await expect.poll(() => second.frames.at(-1)).toEqual({ comment: 'heartbeat' })
    expect(second.events().map((e) => e.id)).toEqual([stale, fresh])
    await Promise.all([firstStream.cancel(), second.cancel()])
  })

  it('frees the place of a client that went away during a cold first read, and stops listening', async () => {
    const held = holdReads(stack.store)
    const instance = stack.newInstance({ store: held.store })
    const { open, timers } = streamOn(instance, { maxPerClient: 1 })
    const slow = held.hold((key) => key === readKeys(instance.services.keyPrefix).controlRoom)
    const client = new AbortController()
    const answer = open({}, client.signal)
    await slow.reached
    client.abort()
    slow.release()
    await answer
    // Nothing is left of it: no timer of the feed or of a deadline, and the client may open its one stream again.
    expect(timers.pending()).toEqual([])
    const again = await open()
    expect(again.status).toBe(200)
    await readFrames(again).cancel()
  })

  it('resumes: the current Last-Event-ID gets heartbeats only, an old or unknown one the body at once', async () => {
    const instance = stack.newInstance()
    const { open, timers } = streamOn(instance)
    const { etag } = await controlRoomBody(instance)
    const current = readFrames(await open({ 'last-event-id': eventIdOf(etag) }))
    timers.fire((ms) => ms === HEARTBEAT_MS)
    await expect.poll(() => current.frames.at(-1)).toEqual({ comment: 'heartbeat' })
    expect(current.events()).toEqual([])
    const old = readFrames(await open({ 'last-event-id': 'an-id-from-yesterday' }))
    await expect.poll(() => old.events().map((e) => e.id)).toEqual([eventIdOf(etag)])
    await Promise.all([current.cancel(), old.cancel()])
  })

  it('ends each stream cleanly at STREAM_MAX_SECONDS, so that EventSource reconnects', async () => {
    const { open, timers } = streamOn(stack.newInstance())
    const stream = readFrames(await open())
    await expect.poll(() => stream.events().length).toBe(1)
    timers.fire((ms) => ms === DEADLINE_MS)
    await stream.done
    expect(stream.ended()).toBe(true)
    // With no stream open the feed stops: no look, no heartbeat, nothing spent while nobody listens.
    expect(timers.pending()).toEqual([])
  })

  it('holds a client to STREAM_MAX_PER_CLIENT (429) and the instance to STREAM_MAX_PER_INSTANCE (503), each with Retry-After', async () => {
    const { open } = streamOn(stack.newInstance(), { maxPerClient: 2, maxPerInstance: 3 })
    const held = [await open(), await open()].map(readFrames)
    const refused = await open()
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('30')
    expect(refused.headers.get('ratelimit-policy')).toBe('"stream";q=2')
    expect(refused.headers.get('ratelimit')).toBe('"stream";r=0;t=30')
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED' })
    const other = readFrames(await open({ 'x-real-ip': '203.0.113.50' }))
    const full = await open({ 'x-real-ip': '203.0.113.51' })
    expect(full.status).toBe(503)
    expect(full.headers.get('retry-after')).toBe('30')
    expect(await full.json()).toMatchObject({ code: 'STREAMS_FULL' })
    // A closed stream gives its place back.
    await held[0]!.cancel()
    await expect.poll(async () => (await open()).status).toBe(200)
    await Promise.all([held[1]!.cancel(), other.cancel()])
  })
})

describe('a stream’s buffer', () => {
  it('drops a reader that stopped reading once its buffer is full, and never holds the others back', async () => {
    let closed = 0
    const slow = openBoundedSink({ client: 'a', onClose: () => closed++, maxBufferedBytes: 1000 })
    const quick = openBoundedSink({ client: 'b', onClose: () => closed++, maxBufferedBytes: 1000 })
    const reader = quick.body.getReader()
    const chunk = new Uint8Array(400)
    const sent: boolean[] = []
    for (let i = 0; i < 4; i++) {
      sent.push(slow.sink.send(chunk))
      expect(quick.sink.send(chunk)).toBe(true)
      expect((await reader.read()).value).toBe(chunk) // the bytes are shared, never copied per stream
    }
    expect(sent).toEqual([true, true, false, false])
    expect(closed).toBe(1)
    await expect(slow.body.getReader().read()).rejects.toThrow(/too far behind/)
  })
})

describe('event-stream frames', () => {
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
  it('writes an event as event, id and one data line, and keeps any line break out of every field', () => {
    expect(text(sseEvent({ event: 'control-room', id: 'abc', data: '{"a":1}' }))).toBe('event: control-room\nid: abc\ndata: {"a":1}\n\n')
    expect(text(sseEvent({ event: 'x\ny', id: 'a\r\nid: forged', data: 'one\ntwo' }))).toBe(
      'event: x y\nid: a id: forged\ndata: one two\n\n',
    )
    expect(text(sseComment('heartbeat'))).toBe(': heartbeat\n\n')
    expect(text(sseRetry(3000))).toBe('retry: 3000\n\n')
  })

  it('makes the event id from the ETag, the same on every instance', () => {
    expect(eventIdOf('"5f2c"')).toBe('5f2c')
    expect(eventIdOf('W/"5f2c"')).toBe('5f2c')
  })
})
