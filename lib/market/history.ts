import type { Token } from './types.js'

// The service's own memory of the market: a compact snapshot of the top 100 every 5 minutes, kept 24 hours.
// DexScreener has no history endpoint; these snapshots are what token-history and the hourly commentary read.

/** Snapshot resolution. */
export const SNAPSHOT_INTERVAL_MS = 5 * 60_000
/** How far back snapshots are kept and read. */
export const HISTORY_WINDOW_MS = 24 * 60 * 60_000
/** Snapshots in the window. */
export const SNAPSHOTS_IN_WINDOW = HISTORY_WINDOW_MS / SNAPSHOT_INTERVAL_MS

/** One token in a snapshot: address, price (USD), 24h volume, liquidity, rank. */
export type SnapshotRow = [address: string, priceUsd: number | null, volume24h: number, liquidityUsd: number, rank: number]

/** The top 100 at one 5-minute mark (`t`, epoch ms, the start of its interval). */
export type Snapshot = { t: number; rows: SnapshotRow[] }

/** One point of a token's series, as `token-history` answers it. */
export type HistoryPoint = { t: string; priceUsd: number | null; volume24h: number; liquidityUsd: number; rank: number }

/** The start of the 5-minute interval `now` falls in. */
export const snapshotTime = (now: number) => Math.floor(now / SNAPSHOT_INTERVAL_MS) * SNAPSHOT_INTERVAL_MS

/** A compact snapshot of the listed tokens, ranked as listed. */
export function takeSnapshot(tokens: readonly Token[], now: number): Snapshot {
  const price = (t: Token) => {
    const n = Number(t.priceUsd)
    return t.priceUsd !== null && Number.isFinite(n) ? n : null
  }
  return { t: snapshotTime(now), rows: tokens.map((t) => [t.address.toLowerCase(), price(t), t.volume24h, t.liquidity, t.rank]) }
}

/** Parses a stored snapshot; null when it is not one (a stray or truncated value is skipped, never trusted). */
export function parseSnapshot(value: string | null): Snapshot | null {
  if (value === null) return null
  try {
    const parsed = JSON.parse(value) as Snapshot
    if (typeof parsed?.t !== 'number' || !Array.isArray(parsed.rows)) return null
    const rows = parsed.rows.filter(
      (r): r is SnapshotRow =>
        Array.isArray(r) && typeof r[0] === 'string' && (r[1] === null || typeof r[1] === 'number') && typeof r[2] === 'number' && typeof r[3] === 'number' && typeof r[4] === 'number',
    )
    return { t: parsed.t, rows }
  } catch {
    return null
  }
}

/** A token's series over the snapshots (oldest first), or null when no snapshot holds it. */
export function tokenSeries(snapshots: readonly Snapshot[], address: string): HistoryPoint[] | null {
  const wanted = address.toLowerCase()
  const points: HistoryPoint[] = []
  for (const snapshot of [...snapshots].sort((a, b) => a.t - b.t)) {
    const row = snapshot.rows.find((r) => r[0] === wanted)
    if (row) points.push({ t: new Date(snapshot.t).toISOString(), priceUsd: row[1], volume24h: row[2], liquidityUsd: row[3], rank: row[4] })
  }
  return points.length > 0 ? points : null
}

/** What changed in the top 100 since an earlier snapshot: new entrants and the biggest rank climbers. */
export type HourChanges = { newEntrants: string[]; climbers: { symbol: string; from: number; to: number }[] }

/** Compares the listed tokens with the snapshot of about an hour ago; only what both show. */
export function hourChanges(tokens: readonly Token[], earlier: Snapshot): HourChanges {
  const before = new Map(earlier.rows.map((r) => [r[0], r[4]]))
  const newEntrants: string[] = []
  const climbers: HourChanges['climbers'] = []
  for (const token of tokens) {
    const was = before.get(token.address.toLowerCase())
    if (was === undefined) newEntrants.push(token.symbol)
    else if (was - token.rank >= 5) climbers.push({ symbol: token.symbol, from: was, to: token.rank })
  }
  climbers.sort((a, b) => b.from - b.to - (a.from - a.to) || a.to - b.to)
  return { newEntrants, climbers: climbers.slice(0, 3) }
}

/** One sentence on the last hour's changes, or null when nothing worth saying changed. */
export function describeHourChanges({ newEntrants, climbers }: HourChanges): string | null {
  const parts: string[] = []
  if (newEntrants.length > 0) {
    const named = newEntrants.slice(0, 3).join(', ')
    parts.push(`${newEntrants.length} new ${newEntrants.length === 1 ? 'entrant' : 'entrants'} to the top 100 (${named}${newEntrants.length > 3 ? ', …' : ''})`)
  }
  if (climbers.length > 0) parts.push(`the biggest climb is ${climbers[0]!.symbol}, from #${climbers[0]!.from} to #${climbers[0]!.to}`)
  if (parts.length === 0) return null
  const sentence = `In the last hour: ${parts.join('; ')}.`
  return sentence.charAt(0).toUpperCase() + sentence.slice(1)
}
