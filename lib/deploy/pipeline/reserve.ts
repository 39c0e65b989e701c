import type { Store } from '../../store/types.js'
import { type DeployFailure, failure } from '../outcome.js'
import { releaseCapSlot, reserveCapSlot } from './capWindow.js'

/** One rolling cap a deploy takes a slot of: the service's, or the calling agent's own. */
export type DeployCap = { key: string; limit: number; code: 'DEPLOY_CAP_REACHED' | 'AGENT_CAP_REACHED'; who: string }

/** The cap slots of one deploy: taken together, given back together unless the deploy went out. */
export type CapReservation = {
  /** Takes a slot of every cap at once (each exact across instances); answers the first full cap's failure, or null. */
  reserve(): Promise<DeployFailure | null>
  /** Gives back every slot taken (best effort: a slot left behind expires with the window). */
  release(): Promise<void>
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
  const taken: string[] = []
  return {
    async reserve() {
      const results = await Promise.all(caps.map((cap) => reserveCapSlot(store, { key: cap.key, member, limit: cap.limit, windowMs, now })))
      results.forEach((result, i) => {
        if (result.ok) taken.push(caps[i]!.key)
      })
      const full = results.findIndex((result) => !result.ok)
      if (full < 0) return null
      const slot = results[full] as { ok: false; freesAt: number }
      const cap = caps[full]!
      const retryAt = new Date(slot.freesAt).toISOString()
      return failure(
        cap.code,
        `The rolling deploy cap of ${cap.limit} per ${Math.round(windowMs / 1000)} s for ${cap.who} is reached; a slot frees up at ${retryAt}.`,
        { retryAt, retryAfterSeconds: Math.max(1, Math.ceil((slot.freesAt - now) / 1000)) },
      )
    },
    async release() {
      for (const key of taken.splice(0)) await releaseCapSlot(store, key, member).catch(() => undefined)
    },
  }
}
