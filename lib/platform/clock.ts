// One clock, injected: what stamps data (`now`) also drives every wait (`sleep`) and every request's deadline
// (`deadline`), so a test that owns the clock owns all three. No other module of lib/ reads the time (`Date.now`,
// `new Date()`), starts a timer (`setTimeout`, `setInterval`) or sets a deadline of its own (`AbortSignal.timeout`).
// This file holds the real clock, named only where services are built and as the
// default of a few factories (tests/clock.test.ts greps for all of it and lists each with its reason). The deploy
// side and the paid door take a `Clock`; the read side takes its `now` and its `sleep` side by side.

/** What a wait may be told: a signal that ends it early, and whether it keeps the process alive (the default). */
export type SleepOptions = {
  /** Ends the wait at once when aborted (a hand-off that comes first, an answer that beats its timeout). */
  signal?: AbortSignal
  /** False: the wait does not hold a process open on its own (a ticker, a lease's lapse). Default true. */
  holdsProcess?: boolean
}

/** Waits `ms` milliseconds on the clock it belongs to, or less when its signal aborts first; never rejects. */
export type Sleep = (ms: number, options?: SleepOptions) => Promise<void>

/**
 * A deadline of `ms` milliseconds on the clock it belongs to: a signal that aborts once they have passed, with a
 * `TimeoutError` as its reason (as `AbortSignal.timeout`'s), to hand to a request. It holds no process open.
 */
export type Deadline = (ms: number) => AbortSignal

/** The time a service runs on: the current epoch ms, a wait and a request's deadline measured on the same clock. */
export type Clock = { now(): number; sleep: Sleep; deadline: Deadline }

/** The real clock's wait: a timer, cleared when its signal aborts. */
export const realSleep: Sleep = (ms, { signal, holdsProcess = true } = {}) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve()
    const end = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', end)
      resolve()
    }
    const timer = setTimeout(end, Math.max(0, ms))
    if (!holdsProcess) timer.unref?.()
    signal?.addEventListener('abort', end, { once: true })
  })

/** The real clock: `Date.now`, timers and `AbortSignal.timeout`. Only where services are built for an instance (or a script) is it named. */
export const systemClock: Clock = { now: () => Date.now(), sleep: realSleep, deadline: (ms) => AbortSignal.timeout(Math.max(0, ms)) }
