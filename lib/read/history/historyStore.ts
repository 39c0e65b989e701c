import {
  HISTORY_WEEK_MS,
  HISTORY_WINDOW_MS,
  type HistoryRange,
  historyMarks,
  type PriceLine,
  priceLineSchema,
  type Snapshot,
  snapshotSchema,
  snapshotTime,
  snapshotTtlMs,
  THINNED_INTERVAL_MS,
} from '../../market/snapshots.js'
import { errorName, type Logger } from '../../platform/log.js'
import { parseRecord } from '../../store/records.js'
import type { Store, WriteEntry } from '../../store/types.js'
import { readKeys } from '../keys.js'
import type { ReadMemory } from '../readMemory.js'

/** How long a price line is kept: a day, which is also how often a token is backfilled at most. */
export const PRICE_LINE_TTL_MS = HISTORY_WINDOW_MS

/** Keeps a token's price line for a day. */
export async function savePriceLine(store: Store, keyPrefix: string, address: string, line: PriceLine): Promise<void> {
  await store.set(readKeys(keyPrefix).priceLine(address), JSON.stringify(line), PRICE_LINE_TTL_MS)
}

/** Where history is read from, and what the reader already holds of it (the read services' memory). */
export type HistorySource = { store: Store; keyPrefix: string; memory: Pick<ReadMemory, 'priceLines' | 'snapshots'> }

/**
 * The price lines of `addresses` that exist (lower-case address -> line), in at most one store round trip. A line never
 * changes until the next day's backfill, so an instance reads it once; addresses with no line yet are asked again.
 */
export async function loadPriceLines(
  { store, keyPrefix, memory }: HistorySource,
  addresses: readonly string[],
  now: number,
): Promise<Map<string, PriceLine>> {
  const byAddress = memory.priceLines
  for (const [address, line] of byAddress) if (line.fetchedAt + PRICE_LINE_TTL_MS <= now) byAddress.delete(address)
  const wanted = [...new Set(addresses.map((a) => a.toLowerCase()))]
  const missing = wanted.filter((a) => !byAddress.has(a))
  if (missing.length > 0) {
    const values = await store.getMany(missing.map(readKeys(keyPrefix).priceLine))
    missing.forEach((address, i) => {
      const line = parseRecord(priceLineSchema, values[i] ?? null)
      if (line) byAddress.set(address, line)
    })
  }
  const found = new Map<string, PriceLine>()
  for (const address of wanted) {
    const line = byAddress.get(address)
    if (line) found.set(address, line)
  }
  return found
}

/**
 * A snapshot as a write of {@link Store.writeMany}: only where its mark has none yet (a written mark never changes),
 * kept as long as its mark is (`snapshotTtlMs`: a week on a 30-minute mark, a day on the others).
 */
export function snapshotWrite(keyPrefix: string, snapshot: Snapshot): WriteEntry {
  return {
    key: readKeys(keyPrefix).snapshot(snapshot.t),
    value: JSON.stringify(snapshot),
    ttlMs: snapshotTtlMs(snapshot.t),
    ifAbsent: true,
  }
}

/** Parameters of {@link recordSnapshot}. */
export type RecordSnapshotParameters = { store: Store; keyPrefix: string; snapshot: Snapshot; logger: Logger }

/**
 * Keeps a snapshot for its 5-minute mark, once across instances (the first refresh of the interval writes it), for
 * 24 hours, or 7 days on a 30-minute mark: at most 288 + 288 snapshots of the top 100 are ever stored. A store failure
 * costs the point, never the refresh. Answers whether this call wrote it.
 */
export async function recordSnapshot({ store, keyPrefix, snapshot, logger }: RecordSnapshotParameters): Promise<boolean> {
  try {
    return await store.setIfAbsent(readKeys(keyPrefix).snapshot(snapshot.t), JSON.stringify(snapshot), snapshotTtlMs(snapshot.t))
  } catch (error) {
    logger.warn('store_unavailable', { operation: 'history_snapshot', error: errorName(error), effect: 'one history point missing' })
    return false
  }
}

/**
 * Every snapshot a range reads (`historyMarks`: the last 24 hours by default; for 7 d, the 30-minute marks of the week
 * before them), oldest first: at most one store round trip, for the marks not yet known (a snapshot already read is
 * kept in the reader's memory, so only the current mark and marks never read go to the store).
 */
export async function loadSnapshots(
  { store, keyPrefix, memory }: HistorySource,
  now: number,
  range: HistoryRange = '24h',
): Promise<Snapshot[]> {
  const latest = snapshotTime(now)
  const marks = historyMarks(now, range)
  const byMark = memory.snapshots
  // What the store no longer keeps leaves the memory too: the thinned marks after a day, every mark after a week.
  for (const t of byMark.keys())
    if (t <= latest - HISTORY_WEEK_MS || (t % THINNED_INTERVAL_MS !== 0 && t <= latest - HISTORY_WINDOW_MS)) byMark.delete(t)
  const missing = marks.filter((t) => !byMark.has(t))
  if (missing.length > 0) {
    const values = await store.getMany(missing.map(readKeys(keyPrefix).snapshot))
    missing.forEach((t, i) => {
      const snapshot = parseRecord(snapshotSchema, values[i] ?? null)
      // The current mark may still be written: its absence is not remembered.
      if (snapshot !== null || t !== latest) byMark.set(t, snapshot)
    })
  }
  return marks.map((t) => byMark.get(t)).filter((snapshot): snapshot is Snapshot => snapshot !== null && snapshot !== undefined)
}
