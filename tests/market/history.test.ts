import { describe, expect, it } from 'vitest'
import {
  describeHourChanges,
  hourChanges,
  marketHistory,
  parseSnapshot,
  SNAPSHOT_INTERVAL_MS,
  type Snapshot,
  snapshotTime,
  takeSnapshot,
  tokenSeries,
} from '../../lib/market/history.js'
import type { Token } from '../../lib/market/types.js'

const token = (rank: number, symbol: string, over: Partial<Token> = {}): Token =>
  ({
    rank,
    address: `0x${rank.toString(16).padStart(40, '0')}`,
    symbol,
    name: symbol,
    priceUsd: '1.5',
    volume24h: 1000 * (200 - rank),
    liquidity: 50_000,
    ...over,
  }) as Token
const T0 = Date.UTC(2026, 10, 23, 10, 0, 0)

describe('history snapshots', () => {
  it('takes a compact snapshot at the 5-minute mark: address, price, volume, liquidity, rank', () => {
    const snapshot = takeSnapshot(
      [token(1, 'AAA'), token(2, 'BBB', { priceUsd: null }), token(3, 'CCC', { priceUsd: 'garbage' })],
      T0 + 4 * 60_000 + 59_000,
    )
    expect(snapshot.t).toBe(T0)
    expect(snapshot.rows).toEqual([
      [token(1, 'A').address, 1.5, 199_000, 50_000, 1],
      [token(2, 'B').address, null, 198_000, 50_000, 2],
      [token(3, 'C').address, null, 197_000, 50_000, 3],
    ])
    expect(snapshotTime(T0 + SNAPSHOT_INTERVAL_MS)).toBe(T0 + SNAPSHOT_INTERVAL_MS)
    // 100 tokens stay small: 288 of them a day is a bounded store.
    expect(
      JSON.stringify(
        takeSnapshot(
          Array.from({ length: 100 }, (_, i) => token(i + 1, `T${i}`)),
          T0,
        ),
      ).length,
    ).toBeLessThan(10_000)
  })

  it('parses what it wrote and refuses what it did not', () => {
    const snapshot = takeSnapshot([token(1, 'AAA')], T0)
    expect(parseSnapshot(JSON.stringify(snapshot))).toEqual(snapshot)
    for (const bad of [null, '', '{', '[]', '{"t":"x","rows":[]}', '{"t":1}']) expect(parseSnapshot(bad)).toBeNull()
    expect(parseSnapshot('{"t":1,"rows":[["0xabc",1,2,3,4],["bad"],[1,2,3,4,5]]}')).toEqual({ t: 1, rows: [['0xabc', 1, 2, 3, 4]] })
  })

  it('gives a token’s series oldest first, only where it was listed, whatever the case of the address', () => {
    const a = token(1, 'AAA')
    const snapshots: Snapshot[] = [
      takeSnapshot([token(5, 'X'), { ...a, rank: 2, volume24h: 5 }], T0 + 2 * SNAPSHOT_INTERVAL_MS),
      takeSnapshot([a], T0),
      takeSnapshot([token(5, 'X')], T0 + SNAPSHOT_INTERVAL_MS),
    ]
    expect(tokenSeries(snapshots, a.address.toUpperCase().replace('0X', '0x'))).toEqual([
      { t: new Date(T0).toISOString(), priceUsd: 1.5, volume24h: 199_000, liquidityUsd: 50_000, rank: 1 },
      { t: new Date(T0 + 2 * SNAPSHOT_INTERVAL_MS).toISOString(), priceUsd: 1.5, volume24h: 5, liquidityUsd: 50_000, rank: 2 },
    ])
    expect(tokenSeries(snapshots, `0x${'f'.repeat(40)}`)).toBeNull()
    expect(tokenSeries([], a.address)).toBeNull()
  })

  it('names new entrants and the biggest climber of the last hour, and nothing else', () => {
    const hourAgo = takeSnapshot(
      [token(1, 'AAA'), token(2, 'BBB'), { ...token(9, 'CLIMB'), rank: 30 }, { ...token(10, 'SMALL'), rank: 12 }],
      T0,
    )
    const now = [
      token(1, 'AAA'),
      { ...token(9, 'CLIMB'), rank: 3 },
      { ...token(10, 'SMALL'), rank: 9 },
      token(50, 'NEW1'),
      token(51, 'NEW2'),
    ]
    const changes = hourChanges(now, hourAgo)
    expect(changes).toEqual({ newEntrants: ['NEW1', 'NEW2'], climbers: [{ symbol: 'CLIMB', from: 30, to: 3 }] })
    expect(describeHourChanges(changes)).toBe(
      'In the last hour: 2 new entrants to the top 100 (NEW1, NEW2); the biggest climb is CLIMB, from #30 to #3.',
    )
    expect(describeHourChanges({ newEntrants: ['A', 'B', 'C', 'D'], climbers: [] })).toBe(
      'In the last hour: 4 new entrants to the top 100 (A, B, C, …).',
    )
    expect(describeHourChanges(hourChanges([token(1, 'AAA')], takeSnapshot([token(1, 'AAA')], T0)))).toBeNull()
  })
})

describe('market history (the dashboard’s charts)', () => {
  it('is empty before the first snapshot', () => {
    expect(marketHistory([])).toEqual({
      volume: { intervalSeconds: 300, points: [] },
      sparklines: { intervalSeconds: 1800, times: [], prices: {} },
    })
  })

  it('sums each snapshot’s volume and keeps the last price of each half-hour slot for the latest snapshot’s tokens', () => {
    const a = token(1, 'AAA')
    const b = token(2, 'BBB')
    const gone = token(3, 'GONE')
    const latestT = T0 + 23 * 60 * 60_000 + 40 * 60_000 // 23:40 after T0: the slot of 23:30
    const snapshots: Snapshot[] = [
      takeSnapshot([{ ...a, priceUsd: '1.23456' }, gone], T0 + 23 * 60 * 60_000), // 23:00
      takeSnapshot([{ ...a, priceUsd: '2' }, gone], T0 + 23 * 60 * 60_000 + 30 * 60_000), // 23:30
      takeSnapshot(
        [
          { ...a, priceUsd: '3' },
          { ...b, priceUsd: null },
        ],
        T0 + 23 * 60 * 60_000 + 35 * 60_000,
      ),
      takeSnapshot([{ ...a, priceUsd: '4' }, b], latestT),
      takeSnapshot([{ ...a, priceUsd: '99' }], T0 - 60 * 60_000), // older than the 48 slots: only in the volume series
    ]
    const history = marketHistory(snapshots)
    expect(history.volume.points.map((p) => p.t)).toEqual(
      [T0 - 60 * 60_000, T0 + 23 * 60 * 60_000, T0 + 23 * 60 * 60_000 + 30 * 60_000, T0 + 23 * 60 * 60_000 + 35 * 60_000, latestT].map(
        (t) => new Date(t).toISOString(),
      ),
    )
    expect(history.volume.points[1]).toEqual({
      t: new Date(T0 + 23 * 60 * 60_000).toISOString(),
      totalVolume24h: 199_000 + 197_000,
      tokens: 2,
    })
    const { times, prices } = history.sparklines
    expect(times).toHaveLength(48)
    expect(times.at(-1)).toBe(new Date(T0 + 23 * 60 * 60_000 + 30 * 60_000).toISOString())
    expect(times[0]).toBe(new Date(T0 + 23 * 60 * 60_000 + 30 * 60_000 - 47 * 30 * 60_000).toISOString())
    expect(Object.keys(prices).sort()).toEqual([a.address, b.address].sort())
    expect(prices[a.address]!.slice(-2)).toEqual([1.235, 4]) // 4 significant digits; the slot's last price wins
    expect(prices[a.address]!.slice(0, 46).every((p) => p === null)).toBe(true)
    expect(prices[b.address]!.slice(-2)).toEqual([null, 1.5]) // no price in its first snapshot: not a zero
  })
})
