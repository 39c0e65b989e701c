import { describeHourChanges, hourChanges, snapshotSchema, snapshotTime, takeSnapshot } from '../../market/snapshots.js'
import { CONTROL_ROOM_LIMIT, type ControlRoom } from '../../market/types.js'
import { mergeSightings, parseUniverse } from '../../market/universe.js'
import { errorName, publicErrorMessage } from '../../platform/log.js'
import { parseRecord } from '../../store/records.js'
import type { WriteEntry } from '../../store/types.js'
import { droppedLogFields } from '../../upstream/fields.js'
import { UpstreamError } from '../../upstream/jsonGetter.js'
import type { RefreshResult } from '../cache/cachedBody.js'
import { snapshotWrite } from '../history/historyStore.js'
import { readKeys } from '../keys.js'
import type { ReadServices } from '../services.js'
import {
  backOffGeckoAfter429,
  claimGeckoDiscovery,
  claimGeckoFailover,
  geckoStateKeys,
  noteDiscoveryOutcome,
} from '../universe/discovery.js'
import { universeWrite } from '../universe/universeStore.js'
import { type BuildControlRoomReturnType, buildControlRoom } from './build.js'
import { buildFailoverControlRoom, FAILOVER_PAGES } from './failover.js'
import { MAX_REQUESTS_PER_REFRESH } from './wavePlan.js'

/**
 * One control-room refresh as the cache runs it (single-flight across instances): loads the universe, claims the
 * GeckoTerminal discovery when it is due, builds the room, and saves what it learned. When DexScreener fails, the room
 * is built from GeckoTerminal's ranked pools instead (a log line says which source served). Answers the JSON body.
 */
export async function refreshControlRoom(services: ReadServices): Promise<RefreshResult> {
  const { store, keyPrefix, logger, upstream, gecko, now, deadline } = services
  const keys = readKeys(keyPrefix)
  // One read for everything the refresh needs from the store (universe, the snapshot of an hour ago, GeckoTerminal's
  // state), beside the one script that reserves its share of the DexScreener minute.
  const [state, reserved] = await Promise.all([
    store.getMany([keys.universe, keys.snapshot(snapshotTime(now()) - 60 * 60_000), ...geckoStateKeys(keys)]).catch((error: unknown) => {
      logger.warn('store_unavailable', { operation: 'refresh_state', error: errorName(error), effect: 'refreshing without the universe' })
      return null
    }),
    services.reserveUpstream(MAX_REQUESTS_PER_REFRESH),
  ])
  const universe = parseUniverse(state?.[0] ?? null)
  const hourAgo = parseRecord(snapshotSchema, state?.[1] ?? null)
  const claim = gecko
    ? await claimGeckoDiscovery({ store, keyPrefix, now: now(), logger, seen: state?.slice(2) })
    : { pages: 0, unavailable: true }
  const { pages } = claim
  /** The room as served, with what the refresh learned written beside it: the last hour's changes in the commentary. */
  const finish = (room: ControlRoom, writes: WriteEntry[]): RefreshResult & { body: string } => {
    const changes = hourAgo ? describeHourChanges(hourChanges(room.liveActivity, hourAgo)) : null
    const served = changes ? { ...room, commentary: `${room.commentary} ${changes}` } : room
    return { body: JSON.stringify(served), writes: [...writes, snapshotWrite(keyPrefix, takeSnapshot(room.liveActivity, now()))] }
  }
  let built: BuildControlRoomReturnType
  try {
    built = await buildControlRoom({
      upstream,
      universe,
      discovery: gecko && pages > 0 ? { gecko, pages } : undefined,
      // A cold universe (a fresh deployment) discovers wide too: GeckoTerminal may yet fail, and the first room counts.
      wideDiscovery: claim.unavailable || universe.length < CONTROL_ROOM_LIMIT,
      now,
      deadline,
      preAdmitted: { remaining: reserved },
    })
  } catch (error) {
    if (!gecko || !(error instanceof UpstreamError)) throw error
    logger.warn('control_room_upstream_failed', {
      source: 'dexscreener',
      kind: error.kind,
      status: error.status,
      message: error.shortMessage,
    })
    const allowed = await claimGeckoFailover({ store, keyPrefix, now: now(), logger }, FAILOVER_PAGES)
    try {
      const { room, dropped } = await buildFailoverControlRoom({ gecko, pages: allowed, now, deadline })
      logger.info('control_room_refreshed', {
        source: 'geckoterminal',
        tokens: room.liveActivity.length,
        geckoterminalRequests: allowed,
        ...droppedLogFields(dropped),
      })
      return { ...finish(room, []), source: 'geckoterminal' }
    } catch (failoverError) {
      await backOffGeckoAfter429([failoverError], { store, keyPrefix, logger })
      logger.warn('control_room_failover_failed', {
        error: errorName(failoverError),
        message: publicErrorMessage(failoverError),
      })
      throw error
    }
  }
  await backOffGeckoAfter429(built.discoveryErrors, { store, keyPrefix, logger })
  if (pages > 0) await noteDiscoveryOutcome(built.discoveryErrors.length === pages, { store, keyPrefix, logger })
  const next = mergeSightings(universe, built.sightings, now())
  logger.info('control_room_refreshed', {
    source: 'dexscreener',
    tokens: built.room.liveActivity.length,
    dexscreenerRequests: built.requests,
    waves: built.waves,
    discoveryPages: pages,
    wideDiscovery: claim.unavailable || universe.length < CONTROL_ROOM_LIMIT,
    discoveryFailed: built.discoveryErrors.length,
    ...droppedLogFields(built.dropped),
    universe: next.length,
  })
  return { ...finish(built.room, [universeWrite(keys.universe, next)]), source: 'dexscreener' }
}
