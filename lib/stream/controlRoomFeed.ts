import { AsyncResource } from 'node:async_hooks'
import type { Sleep } from '../platform/clock.js'
import { errorName } from '../platform/log.js'
import { eventIdOf, type FeedSource, type Schedule, sseComment, sseEvent, sseRetry } from '../platform/sse.js'
import type { LocalCachedBody } from '../read/cache/cachedBody.js'
import { lookAtControlRoom, onControlRoomChange, READ_CACHE_TTL_MS, readControlRoom } from '../read/readers.js'
import type { ReadServices } from '../read/services.js'
import type { BoundedSink } from './boundedSink.js'

export type { FeedSource, Schedule }

/**
 * A {@link Schedule} over a clock's wait (the read services' `sleep`): `holdsProcess` says whether a pending run keeps
 * the process alive on its own.
 */
export function scheduleOn(sleep: Sleep, holdsProcess: boolean): Schedule {
  return (run, ms) => {
    const cancelled = new AbortController()
    void sleep(ms, { signal: cancelled.signal, holdsProcess }).then(() => {
      if (!cancelled.signal.aborted) run()
    })
    return () => cancelled.abort()
  }
}

/** How long after the shared body's window ends the instance looks at it: another instance's refresh has begun by then. */
const LOOK_AFTER_WINDOW_MS = 250

/** Parameters of {@link createControlRoomFeed}. */
export type CreateControlRoomFeedParameters = {
  services: ReadServices
  /** Seconds between heartbeat comments while nothing changes (default 15). */
  heartbeatSeconds?: number
  schedule?: Schedule
  /** Other events, each started and stopped with the watch (the quiet instance runs none of them). */
  sources?: readonly FeedSource[]
}

/** The body the feed's streams have: its event id, when it was made, until when it is fresh, and its frame. */
type Current = { id: string; fetchedAt: number; expiresAt: number; frame: Uint8Array }

/** An instance's feed of the control room to its open streams. */
export type ControlRoomFeed = {
  /**
   * Adds a stream's sink and sends it what it is owed: the current body as a `control-room` event, or, when `lastEventId`
   * is the current id, nothing but heartbeats until the next change. Rejects when no body can be had.
   */
  add(sink: BoundedSink, lastEventId: string | null): Promise<void>
  remove(sink: BoundedSink): void
  /** Open streams on this instance. */
  readonly size: number
}

/**
 * Feeds every open stream of the instance from the instance's own copy of the control room, so streams cost nothing
 * each: a change of that copy (a read, the tick, a refresh read back from another instance) goes to every stream as it
 * happens, encoded once. While a stream is open the feed looks at the shared body once when its window ends, and
 * refreshes it there if nobody has (`lookAtControlRoom`): one store read per window however many streams are open, and
 * none at all with no stream open. A heartbeat comment goes out while nothing changes.
 */
export function createControlRoomFeed(parameters: CreateControlRoomFeedParameters): ControlRoomFeed {
  const { services, heartbeatSeconds = 15, schedule = scheduleOn(parameters.services.sleep, false), sources = [] } = parameters
  // Timers start outside the request that opened the first stream: their log lines are no request's.
  const detached = new AsyncResource('control-room-feed')
  const later: Schedule = (run, ms) => detached.runInAsyncScope(() => schedule(run, ms))
  /** Every open stream, and those that have had their first event and so take every later one. */
  const open = new Set<BoundedSink>()
  const fed = new Set<BoundedSink>()
  let current: Current | null = null
  let watch: Watch | null = null

  /**
   * Takes a body as the current one when it is newer (made later) than the current one; it goes to every stream,
   * encoded once. A read that began before a change may answer after it with the body it found then: the streams have
   * the newer one already and never go back. Answers the current body after it.
   */
  const take = (entry: LocalCachedBody): Current => {
    if (current && entry.fetchedAt <= current.fetchedAt) return current
    const id = eventIdOf(entry.etag)
    const changed = id !== current?.id
    const frame = current && !changed ? current.frame : sseEvent({ event: 'control-room', id, data: entry.bytes })
    current = { id, fetchedAt: entry.fetchedAt, expiresAt: entry.expiresAt, frame }
    if (changed) for (const sink of fed) sink.send(frame)
    return current
  }

  const remove = (sink: BoundedSink) => {
    open.delete(sink)
    fed.delete(sink)
    if (open.size === 0 && watch) {
      watch.stop()
      watch = null
    }
  }

  return {
    async add(sink, lastEventId) {
      open.add(sink)
      if (!watch) {
        current = null // a body kept from an earlier watch may be old: the instance's copy says what is current
        // Started outside this request too: a source's subscription outlives it, and so do its log lines.
        watch = detached.runInAsyncScope(() => startWatch({ services, later, heartbeatSeconds, fed, take, sources }))
      }
      let latest = current
      try {
        if (!latest) {
          const { entry } = await readControlRoom(services)
          latest = take(entry)
          watch?.lookAt(latest.expiresAt)
        }
      } catch (error) {
        remove(sink)
        throw error
      }
      if (!open.has(sink)) return // the client went away during the first read: its stream is gone already
      // A change during that read made a newer body current: the stream starts from it.
      const body = current ?? latest
      if (lastEventId !== body.id) sink.send(body.frame)
      fed.add(sink)
    },
    remove,
    get size() {
      return open.size
    },
  }
}

/** What runs while a stream is open: a look at the shared room when its window ends, and how to stop it all. */
type Watch = { lookAt: (expiresAt: number) => void; stop: () => void }

/** Parameters of {@link startWatch}: the feed's services, timers, fed streams, its way to take a body, its sources. */
type StartWatchParameters = {
  services: ReadServices
  later: Schedule
  heartbeatSeconds: number
  fed: ReadonlySet<BoundedSink>
  take: (entry: LocalCachedBody) => Current
  sources: readonly FeedSource[]
}

/** While a stream is open: changes as they happen, a look when the window ends, heartbeats in between, the sources. */
function startWatch({ services, later, heartbeatSeconds, fed, take, sources }: StartWatchParameters): Watch {
  let cancelLook = () => {}
  let cancelBeat = () => {}
  let stopped = false
  const heartbeat = sseComment('heartbeat')
  const lookAt = (expiresAt: number) => {
    if (stopped) return
    cancelLook()
    cancelLook = later(look, Math.max(1000, expiresAt - services.now()) + LOOK_AFTER_WINDOW_MS)
  }
  const look = () => {
    lookAtControlRoom(services).then(
      ({ entry }) => {
        lookAt(take(entry).expiresAt)
      },
      (error: unknown) => {
        services.logger.warn('stream_look_failed', { error: errorName(error) })
        lookAt(services.now() + READ_CACHE_TTL_MS)
      },
    )
  }
  const beat = () => {
    for (const sink of fed) sink.send(heartbeat)
    cancelBeat = later(beat, heartbeatSeconds * 1000)
  }
  const stopChanges = onControlRoomChange(services, (entry) => lookAt(take(entry).expiresAt))
  cancelBeat = later(beat, heartbeatSeconds * 1000)
  // Encoded once by the source, queued on every stream: nothing per listener.
  const toEveryStream = (frame: Uint8Array) => {
    for (const sink of fed) sink.send(frame)
  }
  const running = sources.map((source) => source(toEveryStream, later))
  return {
    lookAt,
    stop: () => {
      stopped = true
      stopChanges()
      cancelLook()
      cancelBeat()
      for (const source of running) source.stop()
    },
  }
}

/** The first bytes of every stream: how long `EventSource` waits before it reconnects. */
export const RETRY_FRAME = sseRetry(3000)
