import type { ReadServices } from '../readServices.js'
import { buildControlRoom } from './controlRoom.js'
import { backOffGeckoAfter429, claimGeckoDiscovery } from './discovery.js'
import { loadUniverse, mergeSightings, saveUniverse } from './universe.js'

/** Store key of the token universe (under the service prefix). */
export const universeKey = (keyPrefix: string) => `${keyPrefix}v1:universe`

/**
 * One control-room refresh as the cache runs it (single-flight across instances): loads the universe, claims the
 * GeckoTerminal discovery when it is due, builds the room, and saves what it learned. Answers the JSON body.
 */
export async function refreshControlRoom(services: ReadServices): Promise<string> {
  const { store, keyPrefix, logger, upstream, gecko, now } = services
  const universe = await loadUniverse(store, universeKey(keyPrefix), logger)
  const pages = gecko ? await claimGeckoDiscovery({ store, keyPrefix, now: now(), logger }) : 0
  const built = await buildControlRoom({ upstream, universe, discovery: gecko && pages > 0 ? { gecko, pages } : undefined, now })
  await backOffGeckoAfter429(built.discoveryErrors, { store, keyPrefix, logger })
  const next = mergeSightings(universe, built.sightings, now())
  await saveUniverse(store, universeKey(keyPrefix), next, logger)
  logger.info('control_room_refreshed', {
    source: 'dexscreener',
    tokens: built.room.liveActivity.length,
    dexscreenerRequests: built.requests,
    waves: built.waves,
    discoveryPages: pages,
    discoveryFailed: built.discoveryErrors.length,
    universe: next.length,
  })
  return JSON.stringify(built.room)
}
