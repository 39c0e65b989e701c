// One clock, injected: what stamps data (`now`) also drives every wait (`sleep`), so a test that owns the clock owns
// both, and no wait of the service runs on a clock of its own. The deploy side takes a `Clock`; the read side takes
// its `now` and its `sleep` side by side.

/** Waits `ms` milliseconds on the clock it belongs to. */
export type Sleep = (ms: number) => Promise<void>

/** The time a service runs on: the current epoch ms, and a wait measured on the same clock. */
export type Clock = { now(): number; sleep: Sleep }

/** The real clock's wait: a timer. The real clock's `now` is `Date.now`. */
export const realSleep: Sleep = (ms) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)))

/** The real clock: `Date.now` and timers. */
export const systemClock: Clock = { now: () => Date.now(), sleep: realSleep }
