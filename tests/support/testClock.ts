import type { Clock } from '../../lib/platform/clock.js'

/**
 * A clock a test moves by hand: `now` is a number it reads and sets, and a wait on {@link TestClock.clock} resolves
 * once `now` has been moved past its end. Services built over it stamp their records and time their waits with it.
 */
export type TestClock = {
  /** Epoch ms; setting it wakes every wait whose time has come. */
  now: number
  /** Waits not yet over. */
  readonly sleeping: number
  /** The clock services take. */
  readonly clock: Clock
}

/** A {@link TestClock} starting at `start`. */
export function createTestClock(start = Date.now()): TestClock {
  let now = start
  const waits = new Set<{ until: number; wake: () => void }>()
  const wakeDue = () => {
    for (const wait of waits) {
      if (wait.until > now) continue
      waits.delete(wait)
      wait.wake()
    }
  }
  return {
    get now() {
      return now
    },
    set now(value: number) {
      now = value
      wakeDue()
    },
    get sleeping() {
      return waits.size
    },
    clock: {
      now: () => now,
      sleep: (ms, { signal } = {}) =>
        new Promise<void>((wake) => {
          if (signal?.aborted) return wake()
          const wait = { until: now + Math.max(0, ms), wake }
          waits.add(wait)
          // An abort ends the wait before its time, as the real clock's does.
          signal?.addEventListener('abort', () => waits.delete(wait) && wake(), { once: true })
          wakeDue()
        }),
    },
  }
}
