// One clock, injected: what stamps data (`now`) also drives every wait (`sleep`), so a test that owns the clock owns
// both, and no wait of the service runs on a clock of its own.

/** Waits `ms` milliseconds on the clock it belongs to. */
export type Sleep = (ms: number) => Promise<void>

/** The real clock's wait: a timer. The real clock's `now` is `Date.now`. */
export const realSleep: Sleep = (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms))
