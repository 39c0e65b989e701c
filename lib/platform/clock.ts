// One clock per service: what stamps its data (`now`) also drives its waits (`sleep`), so a test that moves time
// moves both, and no wait depends on the wall clock behind the service's back.

/** The time a service runs on: the current epoch ms, and a wait measured on the same clock. */
export type Clock = {
  now(): number
  /** Resolves once `ms` have passed on this clock. */
  sleep(ms: number): Promise<void>
}

/** The real clock: `Date.now` and timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
}
