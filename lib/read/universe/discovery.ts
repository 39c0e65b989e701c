import { isHexAddress } from '../../market/normalize.js'
import { mergeSightings, type Sighting } from '../../market/universe.js'
import { errorName, type Logger } from '../../platform/log.js'
import type { Store } from '../../store/types.js'
import { GECKO_MAX_PAGES } from '../../upstream/geckoterminal.js'
import { UpstreamError } from '../../upstream/jsonGetter.js'
import { reserveSlots } from '../../upstream/sharedBudget.js'
import { GECKO_CALLS_PER_MINUTE } from '../geckoShares.js'
import { type ReadKeys, readKeys } from '../keys.js'
import type { ReadServices } from '../services.js'
import { changeUniverse } from './universeStore.js'

/** How often the universe is fed from GeckoTerminal, across all instances. */
export const DISCOVERY_INTERVAL_MS = 5 * 60_000
/** How long to leave GeckoTerminal alone after a 429 that named no `Retry-After`. */
const DEFAULT_BACKOFF_MS = 60_000

/** Parameters of {@link claimGeckoDiscovery}. */
export type ClaimGeckoDiscoveryParameters = {
  store: Store
  keyPrefix: string
  now: number
  logger: Logger
  /** {@link geckoStateKeys} as the caller already read them (in its own round trip); absent: read here. */
  seen?: readonly (string | null)[]
}

/** The keys {@link claimGeckoDiscovery} reads first (back-off, last outcome, last claim), for a caller that reads them with its own. */
export const geckoStateKeys = (keys: ReadKeys) => [keys.geckoBackoff, keys.geckoFailing, keys.geckoDiscovery] as const

/** What {@link claimGeckoDiscovery} answers: pages to fetch now, and whether GeckoTerminal's ranking is out of reach. */
export type ClaimGeckoDiscoveryReturnType = {
  /** Ranked pages to fetch in this refresh (0: skip). */
  pages: number
  /** GeckoTerminal is backing off after a 429, or its last discovery failed: the refresh discovers wide on DexScreener. */
  unavailable: boolean
}

/**
 * Claims this period's GeckoTerminal discovery for the calling refresh: none while backing off after a 429 or when
 * another instance already ran it in the last 5 minutes; otherwise as many pages (up to 10) as the shared budget of
 * 30 calls a minute still allows.
 */
export async function claimGeckoDiscovery({
  store,
  keyPrefix,
  now,
  logger,
  seen,
}: ClaimGeckoDiscoveryParameters): Promise<ClaimGeckoDiscoveryReturnType> {
  try {
    const [backoff, failing, claimed] = seen ?? (await store.getMany(geckoStateKeys(readKeys(keyPrefix))))
    if (backoff !== null && backoff !== undefined) return { pages: 0, unavailable: true }
    const unavailable = failing !== null && failing !== undefined
    // Claimed in the last 5 minutes (as read): not due, and no claim to attempt.
    if (claimed !== null && claimed !== undefined) return { pages: 0, unavailable }
    if (!(await store.setIfAbsent(readKeys(keyPrefix).geckoDiscovery, String(now), DISCOVERY_INTERVAL_MS))) return { pages: 0, unavailable }
    return { pages: await reserveGeckoCalls({ store, keyPrefix, count: GECKO_MAX_PAGES, now, limit: GECKO_CALLS_PER_MINUTE }), unavailable }
  } catch (error) {
    // Without the store, instances cannot share GeckoTerminal's small budget: leave it alone this time.
    logger.warn('store_unavailable', { operation: 'discovery_claim', error: errorName(error), effect: 'no discovery this refresh' })
    return { pages: 0, unavailable: false }
  }
}

/**
 * Remembers how the last discovery went, for every instance until the next one is due: after a discovery whose pages
 * all failed, refreshes discover wide on DexScreener instead; a discovery that worked clears that.
 */
export async function noteDiscoveryOutcome(
  failed: boolean,
  { store, keyPrefix, logger }: Omit<ClaimGeckoDiscoveryParameters, 'now'>,
): Promise<void> {
  try {
    if (failed) await store.set(readKeys(keyPrefix).geckoFailing, '1', DISCOVERY_INTERVAL_MS)
    else await store.delete(readKeys(keyPrefix).geckoFailing)
  } catch (error) {
    logger.warn('store_unavailable', { operation: 'discovery_outcome', error: errorName(error) })
  }
}

/** Parameters of {@link reserveGeckoCalls}. */
export type ReserveGeckoCallsParameters = { store: Store; keyPrefix: string; count: number; now: number; limit: number }

/** Takes up to `count` calls of GeckoTerminal's shared rolling minute while fewer than `limit` are taken (one round trip). */
export async function reserveGeckoCalls({ store, keyPrefix, count, now, limit }: ReserveGeckoCallsParameters): Promise<number> {
  if (count <= 0) return 0
  return reserveSlots(store, { key: readKeys(keyPrefix).geckoCalls, count, limit, windowMs: 60_000, now })
}

/** Whether every instance is leaving GeckoTerminal alone after a 429. */
export async function isGeckoBackingOff(store: Store, keyPrefix: string): Promise<boolean> {
  return (await store.get(readKeys(keyPrefix).geckoBackoff)) !== null
}

/**
 * Claims GeckoTerminal calls for a failover (DexScreener is down): up to `pages`, none while backing off after a 429.
 * With the store down too, the failover may still make its calls: it is the last resort, and rare.
 */
export async function claimGeckoFailover({ store, keyPrefix, now, logger }: ClaimGeckoDiscoveryParameters, pages: number): Promise<number> {
  try {
    if ((await store.get(readKeys(keyPrefix).geckoBackoff)) !== null) return 0
    return await reserveGeckoCalls({ store, keyPrefix, count: pages, now, limit: GECKO_CALLS_PER_MINUTE })
  } catch (error) {
    logger.warn('store_unavailable', { operation: 'failover_claim', error: errorName(error), effect: 'failover without the shared budget' })
    return pages
  }
}

/** After a discovery whose calls met a 429, stops every instance from calling GeckoTerminal for its `Retry-After`. */
export async function backOffGeckoAfter429(
  errors: readonly unknown[],
  { store, keyPrefix, logger }: Omit<ClaimGeckoDiscoveryParameters, 'now'>,
): Promise<void> {
  const limited = errors.find((e): e is UpstreamError => e instanceof UpstreamError && e.status === 429)
  if (!limited) return
  const ms = Math.max(1000, limited.retryAfterMs ?? DEFAULT_BACKOFF_MS)
  logger.warn('geckoterminal_rate_limited', { backoffMs: ms })
  try {
    await store.set(readKeys(keyPrefix).geckoBackoff, '1', ms)
  } catch (error) {
    logger.warn('store_unavailable', { operation: 'discovery_backoff', error: errorName(error) })
  }
}

/** What {@link discoverIfDue} did. */
export type DiscoverIfDueReturnType = { due: boolean; pages: number; failedPages: number; learned: number }

/**
 * GeckoTerminal discovery on its own, for a tick whose control room was already fresh: when it is due (claimed once in
 * 5 minutes across instances, inside the shared budget), reads the ranked pools and adds their base tokens to the
 * universe where they are new or bigger than remembered, so the next refresh enriches them. Never lowers a volume. The
 * universe is changed under the control room's refresh lock, as the refresh writes it: neither loses the other's.
 */
export async function discoverIfDue(
  services: Pick<ReadServices, 'store' | 'keyPrefix' | 'logger' | 'gecko' | 'now' | 'sleep' | 'deadline'>,
): Promise<DiscoverIfDueReturnType> {
  const { store, keyPrefix, logger, gecko, now, sleep, deadline } = services
  if (!gecko) return { due: false, pages: 0, failedPages: 0, learned: 0 }
  const { pages } = await claimGeckoDiscovery({ store, keyPrefix, now: now(), logger })
  if (pages === 0) return { due: false, pages: 0, failedPages: 0, learned: 0 }
  const signal = deadline(10_000)
  const results = await Promise.allSettled(Array.from({ length: pages }, (_, i) => gecko.rankedPools(i + 1, { signal })))
  const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []))
  await backOffGeckoAfter429(errors, { store, keyPrefix, logger })
  await noteDiscoveryOutcome(errors.length === pages, { store, keyPrefix, logger })
  const pairs = results.flatMap((r) => (r.status === 'fulfilled' ? r.value : []))
  const keys = readKeys(keyPrefix)
  let learned = 0
  await changeUniverse({ store, key: keys.universe, refreshedWith: keys.controlRoom, logger, now, sleep }, (universe) => {
    const remembered = new Map(universe.map((e) => [e.address, e.volume24h]))
    const sightings = new Map<string, Sighting>()
    for (const pair of pairs) {
      if (!isHexAddress(pair.baseToken.address)) continue
      const address = pair.baseToken.address.toLowerCase()
      const volume24h = pair.volume.h24 ?? 0
      if (volume24h > Math.max(remembered.get(address) ?? -1, sightings.get(address)?.volume24h ?? -1))
        sightings.set(address, { volume24h, authoritative: false })
    }
    learned = sightings.size
    return sightings.size > 0 ? mergeSightings(universe, sightings, now()) : null
  })
  return { due: true, pages, failedPages: errors.length, learned }
}
