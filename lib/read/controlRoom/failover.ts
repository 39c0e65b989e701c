import { writeCommentary } from '../../market/commentary.js'
import { rankTokens } from '../../market/rank.js'
import { computeStats } from '../../market/stats.js'
import { CONTROL_ROOM_LIMIT, type ControlRoom, TRENDING_LENGTH } from '../../market/types.js'
import type { Deadline } from '../../platform/clock.js'
import type { DroppedRows } from '../../upstream/fields.js'
import type { GeckoTerminalClient } from '../../upstream/geckoterminal.js'
import { UpstreamError } from '../../upstream/jsonGetter.js'

/** Pages of ranked pools a failover reads: 100 pools, enough for the top tokens' own best pools. */
export const FAILOVER_PAGES = 5

/** Parameters of {@link buildFailoverControlRoom}. */
export type BuildFailoverControlRoomParameters = {
  gecko: GeckoTerminalClient
  pages: number
  now: () => number
  /** The read side's clock of deadlines: the pages are given up `refreshTimeoutMs` after the failover starts. */
  deadline: Deadline
  refreshTimeoutMs?: number
}

/** The failover's room, and the pools it had to leave out (by cause). */
export type BuildFailoverControlRoomReturnType = { room: ControlRoom; dropped: DroppedRows }

/**
 * The control room from GeckoTerminal alone, for when DexScreener fails: its volume-ranked Base pools, each token
 * described by its highest-volume pool as the base token (ranked pools list a token's best pool before its others),
 * `pairUrl` the pool on GeckoTerminal (v4 pools too), `dexId` in DexScreener's vocabulary. Throws {@link UpstreamError} when no page could be read.
 */
export async function buildFailoverControlRoom({
  gecko,
  pages,
  now,
  deadline,
  refreshTimeoutMs = 10_000,
}: BuildFailoverControlRoomParameters): Promise<BuildFailoverControlRoomReturnType> {
  if (pages < 1) throw new UpstreamError('no GeckoTerminal calls left for a failover (rate budget or back-off)', 'budget')
  const signal = deadline(refreshTimeoutMs)
  const dropped: DroppedRows = {}
  const results = await Promise.allSettled(Array.from({ length: pages }, (_, i) => gecko.rankedPools(i + 1, { signal, dropped })))
  const pools = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []))
  if (results.every((r) => r.status === 'rejected')) throw (results[0] as PromiseRejectedResult).reason
  const liveActivity = rankTokens({ pairs: pools, limit: CONTROL_ROOM_LIMIT })
  const stats = computeStats({ tokens: liveActivity, ts: now() })
  return {
    room: {
      liveActivity,
      trending: liveActivity.slice(0, TRENDING_LENGTH),
      stats,
      commentary: writeCommentary({ tokens: liveActivity, stats }),
    },
    dropped,
  }
}
