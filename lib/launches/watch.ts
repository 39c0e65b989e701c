import { launchSignalKey } from '../deploy/keys.js'
import { launchesSince } from '../deploy/records/launches/signal.js'
import { errorName } from '../platform/log.js'
import { type FeedSource, sseEvent } from '../platform/sse.js'
import type { ReadServices } from '../read/services.js'

/** How often an instance with open streams looks for launches seen confirmed: each reaches its streams within 5 s. */
export const LAUNCH_LOOK_MS = 4000

/** How far before the last launch it sent the instance looks again: another instance's clock may be a little behind. */
const LOOK_BACK_MS = 10_000

/** Parameters of {@link launchWatch}. */
export type LaunchWatchParameters = { services: ReadServices; chainId: number }

/**
 * The stream's `launch` events, as a source of the instance's feed: while any stream is open, one store read every
 * {@link LAUNCH_LOOK_MS} (usually answering nothing) for the launches seen confirmed since the last look, on any
 * instance, by a receipt or the tick's follow-up; each new one goes to every stream once, as the feed lists it, with
 * no `id` (a stream's id stays the room's). With no stream open it never runs.
 */
export function launchWatch({ services, chainId }: LaunchWatchParameters): FeedSource {
  const key = launchSignalKey(services.keyPrefix, chainId)
  return (send, schedule) => {
    // The launches seen from now on (a little before: the look back) are news to these streams.
    let since = services.now()
    /** What was sent, by deploy: a launch is in the signal for a while, and the look back sees it again. */
    const sent = new Map<string, number>()
    let stopped = false
    let cancel = () => {}
    const look = () => {
      launchesSince(services.store, key, since - LOOK_BACK_MS)
        .then(
          (found) => {
            for (const { launch, seenAt } of found) {
              since = Math.max(since, seenAt)
              if (sent.has(launch.txHash)) continue
              sent.set(launch.txHash, seenAt)
              send(sseEvent({ event: 'launch', data: JSON.stringify(launch) }))
            }
            for (const [txHash, seenAt] of sent) if (seenAt < since - LOOK_BACK_MS) sent.delete(txHash)
          },
          (error: unknown) => services.logger.warn('stream_launch_look_failed', { error: errorName(error) }),
        )
        .finally(() => {
          if (!stopped) cancel = schedule(look, LAUNCH_LOOK_MS)
        })
    }
    cancel = schedule(look, LAUNCH_LOOK_MS)
    return {
      stop: () => {
        stopped = true
        cancel()
      },
    }
  }
}
