import { z } from 'zod'
import type { Token } from './types.js'

// The service's own memory of the market: a compact snapshot of the top 100 every 5 minutes, kept 24 hours, and every
// 30 minutes kept 7 days. DexScreener has no history endpoint; these snapshots are what token-history, market-history
// and the hourly commentary read.

/** Snapshot resolution. */
export const SNAPSHOT_INTERVAL_MS = 5 * 60_000
/** How far back every snapshot is kept, and what a 24 h answer covers. */
export const HISTORY_WINDOW_MS = 24 * 60 * 60_000
/** Snapshots in the window. */
export const SNAPSHOTS_IN_WINDOW = HISTORY_WINDOW_MS / SNAPSHOT_INTERVAL_MS
/** How far back the snapshots of the 30-minute marks are kept, and what a 7 d answer covers. */
export const HISTORY_WEEK_MS = 7 * HISTORY_WINDOW_MS
/** Past 24 hours the history is thinned to this resolution: only the snapshots of these marks stay. */
export const THINNED_INTERVAL_MS = 30 * 60_000

/** The span an answer covers: the last day at 5 minutes, or the last week at 30. */
export type HistoryRange = '24h' | '7d'

/** Each range's window, the resolution of its points, and the slot of its sparklines. */
export const HISTORY_RANGES: Record<HistoryRange, { windowMs: number; pointMs: number; sparklineMs: number }> = {
  // A day's sparkline is 48 half-hour slots (a row's line is ~100 px wide); a week's, 56 slots of three hours.
  '24h': { windowMs: HISTORY_WINDOW_MS, pointMs: SNAPSHOT_INTERVAL_MS, sparklineMs: 30 * 60_000 },
  '7d': { windowMs: HISTORY_WEEK_MS, pointMs: THINNED_INTERVAL_MS, sparklineMs: 3 * 3_600_000 },
}

/**
 * The `range` query parameter of token-history and market-history: absent or `24h` (the default, today's answer) or
 * `7d`; anything else, or given twice, is wrong.
 */
export function parseHistoryRange(
  params: URLSearchParams,
): { ok: true; range: HistoryRange } | { ok: false; code: 'INVALID_PARAMETER'; problem: { field: 'range'; reason: string } } {
  const values = params.getAll('range')
  if (values.length > 1) return { ok: false, code: 'INVALID_PARAMETER', problem: { field: 'range', reason: 'is given more than once' } }
  const value = values[0] ?? '24h'
  return value === '24h' || value === '7d'
    ? { ok: true, range: value }
    : { ok: false, code: 'INVALID_PARAMETER', problem: { field: 'range', reason: 'must be 24h or 7d' } }
}

/**
 * How long the snapshot of mark `t` is kept: a week for a 30-minute mark, a day for the others (the thinning costs no
 * store command: each snapshot is written once with the life of its mark), with one interval to spare so the oldest
 * mark a range reads is still there.
 */
export function snapshotTtlMs(t: number): number {
  return (t % THINNED_INTERVAL_MS === 0 ? HISTORY_WEEK_MS : HISTORY_WINDOW_MS) + SNAPSHOT_INTERVAL_MS
}

/** The marks a range reads, oldest first: every 5-minute mark of the last day, and before it every 30-minute mark of the week. */
export function historyMarks(now: number, range: HistoryRange): number[] {
  const latest = snapshotTime(now)
  const recent = Array.from({ length: SNAPSHOTS_IN_WINDOW }, (_, i) => latest - (SNAPSHOTS_IN_WINDOW - 1 - i) * SNAPSHOT_INTERVAL_MS)
  if (range === '24h') return recent
  const older: number[] = []
  for (
    let t = Math.floor((latest - HISTORY_WEEK_MS) / THINNED_INTERVAL_MS + 1) * THINNED_INTERVAL_MS;
    t < recent[0]!;
    t += THINNED_INTERVAL_MS
  )
    older.push(t)
  return [...older, ...recent]
}

/** One token in a snapshot: address, price (USD), 24h volume, liquidity, rank. */
export type SnapshotRow = [address: string, priceUsd: number | null, volume24h: number, liquidityUsd: number, rank: number]

/** The top 100 at one 5-minute mark (`t`, epoch ms, the start of its interval). */
export type Snapshot = { t: number; rows: SnapshotRow[] }

/**
 * One point of a token's series, as `token-history` answers it. A point from a snapshot knows everything; a point from
 * a candle (before the service saw the token) knows only the price, and its other fields are null.
 */
export type HistoryPoint = {
  t: string
  priceUsd: number | null
  volume24h: number | null
  liquidityUsd: number | null
  rank: number | null
}

/**
 * A token's price line from its pool's 5-minute candles (GeckoTerminal): the pool, when it was fetched, and each
 * candle's start (epoch ms) with its close in USD, oldest first. Only intervals with trades have a point.
 */
export type PriceLine = { pool: string; fetchedAt: number; points: [t: number, close: number][] }

/** Keeps the items of a stored list that are of `item`'s schema: a stray row is dropped, never trusted, never fatal. */
const validItems = <T extends z.ZodType>(item: T) => {
  const all = z.array(item)
  return z.array(z.unknown()).transform((items): z.output<T>[] => {
    // The whole list at once first: a list the service wrote itself is all valid, and checked in one pass.
    const whole = all.safeParse(items)
    if (whole.success) return whole.data
    return items.flatMap((value) => {
      const parsed = item.safeParse(value)
      return parsed.success ? [parsed.data] : []
    })
  })
}

/** A stored price line; points without a positive, finite close are dropped. */
export const priceLineSchema: z.ZodType<PriceLine> = z.object({
  pool: z.string(),
  fetchedAt: z.number(),
  points: validItems(z.tuple([z.number(), z.number().positive()])),
})

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

/** A stored snapshot; rows not of the snapshot's shape are dropped. */
export const snapshotSchema: z.ZodType<Snapshot> = z.object({
  t: z.number(),
  rows: validItems(z.tuple([z.string(), z.number().nullable(), z.number(), z.number(), z.number()])),
})

/**
 * A token's series over the range before `now` (oldest first, the last 24 h by default): every snapshot on one of the
 * range's marks (5 minutes; 30 for 7 d) that holds it, and, at its other marks, the closes of its price line (price
 * only). Null when neither knows the token.
 */
export function tokenSeries(
  snapshots: readonly Snapshot[],
  address: string,
  line: PriceLine | null = null,
  now: number = line?.fetchedAt ?? 0,
  range: HistoryRange = '24h',
): HistoryPoint[] | null {
  const wanted = address.toLowerCase()
  const byMark = new Map<number, HistoryPoint>()
  const { windowMs, pointMs } = HISTORY_RANGES[range]
  const from = snapshotTime(now) - windowMs
  for (const [t, close] of line?.points ?? []) {
    const mark = snapshotTime(t)
    if (mark <= from || mark > now || mark % pointMs !== 0) continue
    byMark.set(mark, { t: new Date(mark).toISOString(), priceUsd: close, volume24h: null, liquidityUsd: null, rank: null })
  }
  for (const snapshot of snapshots) {
    if (snapshot.t % pointMs !== 0) continue
    const row = snapshot.rows.find((r) => r[0] === wanted)
    if (row)
      byMark.set(snapshot.t, {
        t: new Date(snapshot.t).toISOString(),
        priceUsd: row[1],
        volume24h: row[2],
        liquidityUsd: row[3],
        rank: row[4],
      })
  }
  const points = [...byMark].sort((a, b) => a[0] - b[0]).map(([, point]) => point)
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
    parts.push(
      `${newEntrants.length} new ${newEntrants.length === 1 ? 'entrant' : 'entrants'} to the top 100 (${named}${newEntrants.length > 3 ? ', …' : ''})`,
    )
  }
  if (climbers.length > 0) parts.push(`the biggest climb is ${climbers[0]!.symbol}, from #${climbers[0]!.from} to #${climbers[0]!.to}`)
  if (parts.length === 0) return null
  const sentence = `In the last hour: ${parts.join('; ')}.`
  return sentence.charAt(0).toUpperCase() + sentence.slice(1)
}

/** The top 100's last 24 hours (or 7 days) in one answer, as `market-history` serves it to the dashboard. */
export type MarketHistory = {
  /** Total 24h volume of the top 100 at each 5-minute mark held, oldest first. */
  volume: { intervalSeconds: number; points: { t: string; totalVolume24h: number; tokens: number }[] }
  /** Last price of each current top-100 token in each 30-minute slot (null: not listed or no price then). */
  sparklines: { intervalSeconds: number; times: string[]; prices: Record<string, (number | null)[]> }
}

/** Rounds a price to 4 significant digits: a sparkline needs the shape, and the answer stays small. */
const sparklinePrice = (price: number | null) => (price === null ? null : Number(price.toPrecision(4)))

/**
 * The total volume series and one sparkline per token of the latest snapshot (the current top 100). Over 24 h: every
 * 5-minute mark, and 48 slots of 30 minutes; over 7 d: every 30-minute mark, and 56 slots of 3 hours. The slots end
 * with the latest snapshot's, each holding the last price a snapshot in it recorded. Where no snapshot priced the
 * token, its price line fills the slot: the last close at or before the slot's end, from its first candle up to when
 * the line was fetched (a slot without trades keeps the last traded price; none is invented before).
 */
export function marketHistory(
  snapshots: readonly Snapshot[],
  lines: ReadonlyMap<string, PriceLine> = new Map(),
  range: HistoryRange = '24h',
): MarketHistory {
  const { windowMs, pointMs, sparklineMs } = HISTORY_RANGES[range]
  const ordered = [...snapshots].sort((a, b) => a.t - b.t)
  // The volume series keeps the range's marks; the sparklines take every snapshot (the last price of each slot).
  const volume = ordered
    .filter((s) => s.t % pointMs === 0)
    .map((s) => ({
      t: new Date(s.t).toISOString(),
      totalVolume24h: Math.round(s.rows.reduce((sum, r) => sum + r[2], 0)),
      tokens: s.rows.length,
    }))
  const latest = ordered.at(-1)
  if (!latest)
    return {
      volume: { intervalSeconds: pointMs / 1000, points: [] },
      sparklines: { intervalSeconds: sparklineMs / 1000, times: [], prices: {} },
    }
  const slots = windowMs / sparklineMs
  const lastSlot = Math.floor(latest.t / sparklineMs) * sparklineMs
  const firstSlot = lastSlot - (slots - 1) * sparklineMs
  const prices: Record<string, (number | null)[]> = {}
  for (const row of latest.rows) prices[row[0]] = new Array<number | null>(slots).fill(null)
  for (const snapshot of ordered) {
    const slot = Math.floor((snapshot.t - firstSlot) / sparklineMs)
    if (slot < 0) continue
    for (const row of snapshot.rows) {
      const series = prices[row[0]]
      if (series && row[1] !== null) series[slot] = sparklinePrice(row[1]) // later snapshots of a slot overwrite earlier ones
    }
  }
  for (const [address, series] of Object.entries(prices)) {
    const line = lines.get(address)
    if (line && line.points.length > 0) fillFromLine(series, line, firstSlot, sparklineMs)
  }
  return {
    volume: { intervalSeconds: pointMs / 1000, points: volume },
    sparklines: {
      intervalSeconds: sparklineMs / 1000,
      times: Array.from({ length: slots }, (_, i) => new Date(firstSlot + i * sparklineMs).toISOString()),
      prices,
    },
  }
}

/** Fills the empty slots of a sparkline from a price line, carrying the last close from its first candle to its fetch. */
function fillFromLine(series: (number | null)[], line: PriceLine, firstSlot: number, slotMs: number): void {
  const points = [...line.points].sort((a, b) => a[0] - b[0])
  let next = 0
  let last: number | null = null
  for (let slot = 0; slot < series.length; slot++) {
    const slotStart = firstSlot + slot * slotMs
    const slotEnd = slotStart + slotMs
    if (slotStart > line.fetchedAt) break
    while (next < points.length && points[next]![0] < slotEnd) last = points[next++]![1]
    if (series[slot] === null && last !== null) series[slot] = sparklinePrice(last)
  }
}
