import { errorName, type Logger } from '../log.js'
import type { Store } from '../store/types.js'
import { HISTORY_WINDOW_MS, parseSnapshot, SNAPSHOT_INTERVAL_MS, SNAPSHOTS_IN_WINDOW, snapshotTime, type Snapshot } from './history.js'

/** Store key of the snapshot taken at `t` (under the service prefix). */
export const snapshotKey = (keyPrefix: string, t: number) => `${keyPrefix}history:v1:${t}`

/** Parameters of {@link recordSnapshot}. */
export type RecordSnapshotParameters = { store: Store; keyPrefix: string; snapshot: Snapshot; logger: Logger }

/**
 * Keeps a snapshot for its 5-minute mark, once across instances (the first refresh of the interval writes it), for
 * 24 hours: at most 288 snapshots of the top 100 are ever stored. A store failure costs the point, never the refresh.
 */
export async function recordSnapshot({ store, keyPrefix, snapshot, logger }: RecordSnapshotParameters): Promise<void> {
  try {
    await store.setIfAbsent(snapshotKey(keyPrefix, snapshot.t), JSON.stringify(snapshot), HISTORY_WINDOW_MS + SNAPSHOT_INTERVAL_MS)
  } catch (error) {
    logger.warn('store_unavailable', { operation: 'history_snapshot', error: errorName(error), effect: 'one history point missing' })
  }
}

/** Every snapshot of the last 24 hours, oldest first (one store round trip). */
export async function loadSnapshots(store: Store, keyPrefix: string, now: number): Promise<Snapshot[]> {
  const latest = snapshotTime(now)
  const keys = Array.from({ length: SNAPSHOTS_IN_WINDOW }, (_, i) => snapshotKey(keyPrefix, latest - (SNAPSHOTS_IN_WINDOW - 1 - i) * SNAPSHOT_INTERVAL_MS))
  const values = await store.getMany(keys)
  return values.map(parseSnapshot).filter((s): s is Snapshot => s !== null)
}

/** The snapshot of about an hour before `now` (the 5-minute mark 60 minutes back), or null. */
export async function loadSnapshotHourAgo(store: Store, keyPrefix: string, now: number, logger: Logger): Promise<Snapshot | null> {
  try {
    return parseSnapshot(await store.get(snapshotKey(keyPrefix, snapshotTime(now) - 60 * 60_000)))
  } catch (error) {
    logger.warn('store_unavailable', { operation: 'history_read', error: errorName(error), effect: 'no hourly changes in the commentary' })
    return null
  }
}
