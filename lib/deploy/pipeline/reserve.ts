import type { Store } from '../../store/types.js'
import { type DeployFailure, failure } from '../outcome.js'
import { releaseCapSlot, reserveCapSlots } from './capWindow.js'

/** One rolling cap a deploy takes a slot of: the service's, or the calling agent's own. */
export type DeployCap = { key: string; limit: number; code: 'DEPLOY_CAP_REACHED' | 'AGENT_CAP_REACHED'; who: string }

/** The cap slots of one deploy: taken together, given back together unless the deploy went out. */
export type CapReservation = {
  /** Takes a slot of every cap at once, or of none (exact across instances); answers the first full cap's failure, or null. */
  reserve(): Promise<DeployFailure | null>
  /** Gives back every slot taken (best effort: a slot left behind expires with the window). */
  release(): Promise<void>
  /** Keeps the slots whatever happens next (something was spent for this deploy: a payment); `release` then does nothing. */
  keep(): void
}

/** Parameters of {@link createCapReservation}. */
export type CreateCapReservationParameters = {
  store: Store
  caps: readonly DeployCap[]
  /** The deploy's member in every window (unique). */
  member: string
  windowMs: number
  now: number
}

/** The cap slots of one deploy, as {@link CapReservation}. */
export function createCapReservation({ store, caps, member, windowMs, now }: CreateCapReservationParameters): CapReservation {
  // 'unknown' while the store call is on its way, and after it failed: the slots may have been taken before it did.
  let held: 'none' | 'taken' | 'unknown' = 'none'
  let kept = false
  let settled: Promise<void> = Promise.resolve()
  return {
    async reserve() {
      if (caps.length === 0) return null
      const reserving = reserveCapSlots(store, { caps, member, windowMs, now })
      held = 'unknown'
      settled = reserving.then(
        (result) => {
          held = result.ok ? 'taken' : 'none'
        },
        () => undefined,
      )
      const result = await reserving
      if (result.ok) return null
      const cap = caps[result.full]!
      const retryAt = new Date(result.freesAt).toISOString()
      return failure(
        cap.code,
        `The rolling deploy cap of ${cap.limit} per ${Math.round(windowMs / 1000)} s for ${cap.who} is reached; a slot frees up at ${retryAt}.`,
        { retryAt, retryAfterSeconds: Math.max(1, Math.ceil((result.freesAt - now) / 1000)) },
      )
    },
    async release() {
      // A release while the reserve is on its way (another step failed first) waits for it, or it would run ahead of it.
      await settled
      if (held === 'none' || kept) return
      held = 'none'
      await releaseCapSlot(
        store,
        caps.map((cap) => cap.key),
        member,
      ).catch(() => undefined)
    },
    keep() {
      kept = true
    },
  }
}
