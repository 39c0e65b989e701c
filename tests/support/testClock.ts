import type { Clock } from '../../lib/platform/clock.js'

/**
 * A clock a test moves by hand: `now` is a number it reads and sets, and a wait on {@link TestClock.clock} resolves
 * (a deadline of it aborts) once `now` has been moved past its end. Services built over it stamp their records, time
 * their waits and give up their requests with it.
 */
export type TestClock = {
  /** Epoch ms; setting it wakes every wait whose time has come. */
  now: number
  /** Waits not yet over (deadlines are not waits: they are not counted). */
  readonly sleeping: number
  /** Deadlines not yet passed. */
  readonly deadlines: number
  /** The clock services take. */
  readonly clock: Clock
}

/** Options of {@link createTestClock}. */
export type TestClockOptions = {
  /**
   * Waits end in real time too (or sooner, when the test moves the clock past them): for services that queue and poll
   * between instances, or wait on a node, in real time while the test stamps their records by hand.
   */
  realWaits?: boolean
}

/** A {@link TestClock} starting at `start`. */
export function createTestClock(start = Date.now(), { realWaits = false }: TestClockOptions = {}): TestClock {
  let now = start
  const waits = new Set<{ until: number; wake: () => void }>()
  const deadlines = new Set<{ until: number; wake: () => void }>()
  const wakeDue = () => {
    for (const set of [waits, deadlines])
      for (const wait of set) {
        if (wait.until > now) continue
        set.delete(wait)
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
    get deadlines() {
      return deadlines.size
    },
    clock: {
      now: () => now,
      sleep: (ms, { signal, holdsProcess = true } = {}) =>
        new Promise<void>((wake) => {
          if (signal?.aborted) return wake()
          const wait = { until: now + Math.max(0, ms), wake }
          waits.add(wait)
          // An abort ends the wait before its time, as the real clock's does.
          signal?.addEventListener('abort', () => waits.delete(wait) && wake(), { once: true })
          if (realWaits) {
            const timer = setTimeout(() => waits.delete(wait) && wake(), Math.max(0, ms))
            if (!holdsProcess) timer.unref()
            signal?.addEventListener('abort', () => clearTimeout(timer), { once: true })
          }
          wakeDue()
        }),
      deadline: (ms) => {
        const controller = new AbortController()
        // The reason AbortSignal.timeout gives, so code that tells a timeout by it reads this one the same.
        const wake = () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))
        deadlines.add({ until: now + Math.max(0, ms), wake })
        wakeDue()
        return controller.signal
      },
    },
  }
}
