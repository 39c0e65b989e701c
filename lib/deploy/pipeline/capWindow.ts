import { type Accepted, accepted, type Refused, type Result, refused } from '../../platform/result.js'
import { countSlots, releaseSlot, type SlidingWindow, takeSlots } from '../../store/slidingLog.js'
import type { Store } from '../../store/types.js'

/**
 * The rolling deploy caps: a strict rolling window per cap, kept by the service's one sliding log
 * (`lib/store/slidingLog.ts`), exact across instances because one script trims, counts and adds. A deploy takes a
 * slot of every cap that applies to it in that one step, or of none.
 */

/** Parameters of {@link reserveCapSlots}: the caps (each a window of `windowMs`), and the deploy's member in each. */
export type ReserveCapSlotsParameters = { caps: readonly Omit<SlidingWindow, 'windowMs'>[]; member: string; windowMs: number; now: number }

/** Result of {@link reserveCapSlots}: the slots, or the first full cap and when a slot of it frees up (epoch ms). */
export type ReserveCapSlotsReturnType = Accepted | Refused<'CAP_FULL', { full: number; used: number; freesAt: number }>

/**
 * Takes a slot of every cap at once, atomically: drops entries at or before `now - windowMs`, and adds `member` at
 * `now` to every window only while each holds fewer than its limit. When one is full, nothing is taken, and the
 * answer names the first full cap (its index) and when its oldest entry leaves.
 */
export async function reserveCapSlots(store: Store, parameters: ReserveCapSlotsParameters): Promise<ReserveCapSlotsReturnType> {
  const { caps, member, windowMs, now } = parameters
  const { taken, windows } = await takeSlots(store, { windows: caps.map((cap) => ({ ...cap, windowMs })), member, now })
  if (taken === 1) return accepted({})
  const full = Math.max(
    0,
    windows.findIndex((state, i) => state.used >= caps[i]!.limit),
  )
  const { used, oldestAt } = windows[full]!
  return refused('CAP_FULL', { full, used, freesAt: oldestAt + windowMs })
}

/** Parameters of {@link reserveCapSlot}. */
export type ReserveCapSlotParameters = { key: string; member: string; limit: number; windowMs: number; now: number }

/** Result of {@link reserveCapSlot}: the slot, or when one frees up (epoch ms). */
export type ReserveCapSlotReturnType = Result<{ used: number }, 'CAP_FULL', { used: number; freesAt: number }>

/**
 * Takes a slot in a strict rolling window, atomically: drops entries at or before `now - windowMs`, and adds `member`
 * at `now` only while fewer than `limit` remain. When full, answers when the oldest entry leaves.
 */
export async function reserveCapSlot(store: Store, parameters: ReserveCapSlotParameters): Promise<ReserveCapSlotReturnType> {
  const { key, member, limit, windowMs, now } = parameters
  const { taken, windows } = await takeSlots(store, { windows: [{ key, limit, windowMs }], member, now })
  const { used, oldestAt } = windows[0]!
  return taken === 1 ? accepted({ used }) : refused('CAP_FULL', { used, freesAt: oldestAt + windowMs })
}

/** Gives a reserved slot back (the deploy it was for did not go out), in every window of `keys` at once. */
export async function releaseCapSlot(store: Store, keys: string | readonly string[], member: string): Promise<void> {
  await releaseSlot(store, typeof keys === 'string' ? [keys] : keys, member)
}

/** How many slots of a rolling window are taken at `now` (entries after `now - windowMs`). */
export async function countCapSlots(store: Store, { key, windowMs, now }: { key: string; windowMs: number; now: number }): Promise<number> {
  return countSlots(store, { key, windowMs, now })
}
