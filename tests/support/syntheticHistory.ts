import { SNAPSHOT_INTERVAL_MS, type Snapshot, type SnapshotRow, snapshotTime } from '../../lib/market/snapshots.js'
import type { Token } from '../../lib/market/types.js'
import { silentLogger } from '../../lib/platform/log.js'
import { recordSnapshot } from '../../lib/read/history/historyStore.js'
import type { Store } from '../../lib/store/types.js'
import { seededRandom } from './syntheticMarket.js'

/** Parameters of {@link syntheticHistory}. */
export type SyntheticHistoryParameters = {
  /** The current top 100 (a control room's `liveActivity`). */
  tokens: readonly Token[]
  now: number
  /** How far back, in hours (default 24). */
  hours?: number
  seed?: number
  /** Tokens left out of every snapshot (to show rows without history). */
  without?: readonly string[]
}

/**
 * Plausible past snapshots for the marks before `now`'s (which a real refresh writes): each price walks from where its
 * 24h change says it was to where it is now; volumes and liquidity drift; ranks follow the volumes; tokens outside
 * the top 70 are young and only listed for their last 1-10 hours, as on Base.
 */
export function syntheticHistory({ tokens, now, hours = 24, seed = 11, without = [] }: SyntheticHistoryParameters): Snapshot[] {
  const random = seededRandom(seed)
  const marks = (hours * 3_600_000) / SNAPSHOT_INTERVAL_MS
  const latest = snapshotTime(now)
  const skip = new Set(without.map((a) => a.toLowerCase()))
  const lines = tokens
    .filter((t) => !skip.has(t.address.toLowerCase()))
    .map((t) => {
      const price = t.priceUsd === null ? null : Number(t.priceUsd)
      const start = price === null ? null : price / (1 + (t.priceChange24h ?? 0) / 100)
      const listedMarks = t.rank > 70 ? Math.floor((1 + random() * 9) * 12) : marks
      return { t, price, start, listedMarks, wobble: 0.004 + random() * 0.02, noise: 0 }
    })
  const snapshots: Snapshot[] = []
  for (let back = 1; back < marks; back++) {
    const share = 1 - back / marks // 0 a day ago, 1 now
    const rows: SnapshotRow[] = []
    for (const line of lines) {
      if (back >= line.listedMarks) continue
      line.noise = line.noise * 0.9 + (random() - 0.5) * line.wobble
      const price =
        line.price === null || line.start === null
          ? null
          : Number(
              (Math.exp(Math.log(line.start) + (Math.log(line.price) - Math.log(line.start)) * share) * (1 + line.noise)).toPrecision(6),
            )
      const volume = Math.round(line.t.volume24h * (0.75 + 0.25 * share) * (1 + line.noise * 4))
      rows.push([line.t.address.toLowerCase(), price, Math.max(0, volume), Math.round(line.t.liquidity * (1 + line.noise)), 0])
    }
    rows
      .sort((a, b) => b[2] - a[2])
      .forEach((row, i) => {
        row[4] = i + 1
      })
    snapshots.push({ t: latest - back * SNAPSHOT_INTERVAL_MS, rows: rows.slice(0, 100) })
  }
  return snapshots
}

/** Writes snapshots into a store as the refreshes would have (absent marks only). */
export async function seedHistory(store: Store, keyPrefix: string, snapshots: readonly Snapshot[]): Promise<void> {
  for (const snapshot of snapshots) await recordSnapshot({ store, keyPrefix, snapshot, logger: silentLogger })
}
