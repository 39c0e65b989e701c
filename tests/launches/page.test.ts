import { describe, expect, it } from 'vitest'
import { decodeCursor, encodeCursor, pageOf, parseLaunchesRequest } from '../../lib/launches/page.js'
import type { Launch } from '../../lib/launches/schema.js'

const T = 1_800_000_000_000
/** A launch sent at `T + ms`, with a hash ending in `n`. */
const launch = (ms: number, n: number): Launch => ({
  address: `0x${n.toString(16).padStart(40, '0')}`,
  name: `L${n}`,
  symbol: `L${n}`,
  variant: 'asset',
  decimals: 18,
  initialSupply: null,
  supplyCap: null,
  createdAt: new Date(T + ms).toISOString(),
  txHash: `0x${n.toString(16).padStart(64, '0')}`,
  roles: { admin: null, minter: null },
  status: 'confirmed',
  pool: null,
  powers: null,
  market: null,
  metadata: null,
})
/** 45 launches newest first, then by hash: three share each millisecond. */
const FEED = Array.from({ length: 45 }, (_, i) => launch(1000 - Math.floor(i / 3), 900 - i))
const request = (query: string) => {
  const parsed = parseLaunchesRequest(new URLSearchParams(query))
  if (!parsed.ok) throw new Error(parsed.problem.field)
  return parsed.request
}

describe('pages of the launches feed', () => {
  it('reads limit (1-100, default 20) and a cursor, and names the wrong one', () => {
    expect(parseLaunchesRequest(new URLSearchParams(''))).toEqual({ ok: true, request: { limit: 20, after: null } })
    for (const limit of ['1', '55', '100']) expect(request(`limit=${limit}`).limit).toBe(Number(limit))
    for (const limit of ['0', '101', '-1', '2.5', '07', '', 'all', '1e2'])
      expect(parseLaunchesRequest(new URLSearchParams(`limit=${encodeURIComponent(limit)}`))).toMatchObject({
        ok: false,
        problem: { field: 'limit' },
      })
    expect(parseLaunchesRequest(new URLSearchParams('limit=5&limit=6'))).toMatchObject({
      ok: false,
      problem: { field: 'limit', reason: 'is given more than once' },
    })
    expect(parseLaunchesRequest(new URLSearchParams('cursor='))).toMatchObject({ ok: false, problem: { field: 'cursor' } })
  })

  it('pages through the whole feed in order, each launch once, the last page’s nextCursor null', () => {
    const seen: Launch[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page = pageOf(FEED, request(`limit=7${cursor ? `&cursor=${cursor}` : ''}`))
      seen.push(...page.launches)
      cursor = page.nextCursor
      pages++
    } while (cursor)
    expect(seen).toEqual(FEED)
    expect(pages).toBe(7)
    // A feed that ends exactly at a page's end: no empty page after it.
    expect(pageOf(FEED, request('limit=45')).nextCursor).toBeNull()
    expect(pageOf(FEED, request('limit=44')).nextCursor).not.toBeNull()
    expect(pageOf([], request(''))).toEqual({ launches: [], nextCursor: null })
  })

  it('keeps its place when launches are added at the top between two pages', () => {
    const first = pageOf(FEED, request('limit=10'))
    const grown = [launch(2000, 999), launch(1999, 998), ...FEED]
    expect(pageOf(grown, request(`limit=10&cursor=${first.nextCursor}`)).launches).toEqual(FEED.slice(10, 20))
  })

  it('writes an opaque cursor that reads back as the same place, and refuses any other text', () => {
    const place = { createdAt: T + 999, txHash: `0x${'ab'.repeat(32)}` }
    const cursor = encodeCursor(place)
    expect(cursor).toMatch(/^l1\.[A-Za-z0-9_-]+$/)
    expect(decodeCursor(cursor)).toEqual(place)
    const forged = [
      `l2.${cursor.slice(3)}`,
      cursor.slice(0, -2),
      `${cursor}=`,
      'l1.',
      `l1.${Buffer.from(`${T}.${'g'.repeat(64)}`).toString('base64url')}`,
      `l1.${Buffer.from(`1234567890123456.${'a'.repeat(64)}`).toString('base64url')}`,
      `l1.${Buffer.from(`-5.${'a'.repeat(64)}`).toString('base64url')}`,
      `l1.${'A'.repeat(500)}`,
      '<script>',
    ]
    for (const text of forged) {
      expect(decodeCursor(text), text).toBeNull()
      expect(parseLaunchesRequest(new URLSearchParams({ cursor: text }))).toMatchObject({ ok: false, problem: { field: 'cursor' } })
    }
  })

  it('reads any well-formed cursor as a place in the order: a forged one costs no more than a page of what is held', () => {
    const far = encodeCursor({ createdAt: T - 1, txHash: `0x${'0'.repeat(64)}` })
    expect(pageOf(FEED, request(`limit=100&cursor=${far}`))).toEqual({ launches: [], nextCursor: null })
    const future = encodeCursor({ createdAt: T + 10_000, txHash: `0x${'f'.repeat(64)}` })
    expect(pageOf(FEED, request(`limit=5&cursor=${future}`)).launches).toEqual(FEED.slice(0, 5))
    // Between two launches of one millisecond: the next one down by hash.
    const middle = encodeCursor({ createdAt: Date.parse(FEED[1]!.createdAt), txHash: FEED[1]!.txHash })
    expect(pageOf(FEED, request(`limit=2&cursor=${middle}`)).launches).toEqual(FEED.slice(2, 4))
  })
})
