import type { Schedule } from '../../lib/stream/controlRoomFeed.js'

// Reading Server-Sent Events as a browser would, and timers a test fires itself: what the stream tests share.

/** One frame of an event stream: its fields, or a comment. */
export type Frame = { event?: string; id?: string; data?: string; retry?: string; comment?: string }

/** Reads an event stream in the background into frames, as `EventSource` would parse them. */
export function readFrames(response: Response) {
  const frames: Frame[] = []
  let ended = false
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  const done = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        buffer += value
        let end = buffer.indexOf('\n\n')
        while (end >= 0) {
          const frame: Frame = {}
          for (const line of buffer.slice(0, end).split('\n')) {
            if (line.startsWith(':')) frame.comment = line.slice(1).trim()
            else {
              const colon = line.indexOf(':')
              ;(frame as Record<string, string>)[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '')
            }
          }
          frames.push(frame)
          buffer = buffer.slice(end + 2)
          end = buffer.indexOf('\n\n')
        }
      }
    } catch {
      // a dropped stream ends here
    }
    ended = true
  })()
  return { frames, events: () => frames.filter((f) => f.event), ended: () => ended, done, cancel: () => reader.cancel() }
}

/** Timers the test fires itself: the feed's look and heartbeat, each stream's deadline. */
export function manualTimers() {
  const timers: { run: () => void; ms: number; cancelled: boolean }[] = []
  const schedule: Schedule = (run, ms) => {
    const timer = { run, ms, cancelled: false }
    timers.push(timer)
    return () => {
      timer.cancelled = true
    }
  }
  /** Runs the pending timers `which` picks (each once). */
  const fire = (which: (ms: number) => boolean) => {
    for (const timer of timers.filter((t) => !t.cancelled && which(t.ms))) {
      timer.cancelled = true
      timer.run()
    }
  }
  return { schedule, fire, pending: () => timers.filter((t) => !t.cancelled).map((t) => t.ms) }
}
