import { accepted, type Result, refused } from '../platform/result.js'
import type { Launch, LaunchesPage } from './schema.js'

// Pages of the launches feed (pure): the limit, and an opaque cursor that is only a place in the feed's order, so no
// cursor, forged or not, can ask for more than one page of what the feed already holds.

/** Launches a page holds when `limit` is not given. */
export const LAUNCHES_DEFAULT_LIMIT = 20
/** Launches a page holds at most. */
export const LAUNCHES_MAX_LIMIT = 100

/** A place in the feed's order (newest first, then by hash): the page after it starts with the next older launch. */
export type LaunchPlace = { createdAt: number; txHash: string }

/** A page asked for: how many, and after which place (null: from the newest). */
export type LaunchesRequest = { limit: number; after: LaunchPlace | null }

/** A query parameter that is wrong, and why. */
export type ParameterProblem = { field: string; reason: string }

const CURSOR_VERSION = 'l1'

/** The cursor of a place: `l1` and the place's time and hash, base64url (opaque to clients; no secret in it). */
export function encodeCursor({ createdAt, txHash }: LaunchPlace): string {
  return `${CURSOR_VERSION}.${Buffer.from(`${createdAt}.${txHash.slice(2).toLowerCase()}`).toString('base64url')}`
}

/** The place a cursor names, or null when it is not one this service writes. */
export function decodeCursor(cursor: string): LaunchPlace | null {
  const match = /^l1\.([A-Za-z0-9_-]{1,120})$/.exec(cursor)
  if (!match) return null
  const place = /^(\d{1,15})\.([0-9a-f]{64})$/.exec(Buffer.from(match[1]!, 'base64url').toString('latin1'))
  return place ? { createdAt: Number(place[1]), txHash: `0x${place[2]}` } : null
}

/**
 * Reads `limit` (1-100, default 20, plain digits) and `cursor` (a `nextCursor` of an earlier page); either given twice,
 * or empty, is wrong. Other parameters are ignored.
 */
export function parseLaunchesRequest(
  params: URLSearchParams,
): Result<{ request: LaunchesRequest }, 'INVALID_PARAMETER', { problem: ParameterProblem }> {
  for (const field of ['limit', 'cursor'])
    if (params.getAll(field).length > 1) return refused('INVALID_PARAMETER', { problem: { field, reason: 'is given more than once' } })
  const limitText = params.get('limit')
  const limit = limitText === null ? LAUNCHES_DEFAULT_LIMIT : /^[1-9][0-9]{0,2}$/.test(limitText) ? Number(limitText) : Number.NaN
  if (!(limit <= LAUNCHES_MAX_LIMIT))
    return refused('INVALID_PARAMETER', { problem: { field: 'limit', reason: `must be a whole number from 1 to ${LAUNCHES_MAX_LIMIT}` } })
  const cursor = params.get('cursor')
  if (cursor === null) return accepted({ request: { limit, after: null } })
  const after = decodeCursor(cursor)
  if (!after) return refused('INVALID_PARAMETER', { problem: { field: 'cursor', reason: 'is not a nextCursor of this feed' } })
  return accepted({ request: { limit, after } })
}

/** Whether a launch comes after a place in the feed's order (older, or as old with a smaller hash). */
const isAfter = (launch: Launch, { createdAt, txHash }: LaunchPlace) => {
  const at = Date.parse(launch.createdAt)
  return at < createdAt || (at === createdAt && launch.txHash.toLowerCase() < txHash)
}

/** The page of a feed (newest first, then by hash) a request asks for; `nextCursor` is null when nothing follows it. */
export function pageOf(feed: readonly Launch[], { limit, after }: LaunchesRequest): LaunchesPage {
  const start = after ? feed.findIndex((launch) => isAfter(launch, after)) : 0
  const launches = start < 0 ? [] : feed.slice(start, start + limit)
  const last = launches.at(-1)
  const more = start >= 0 && start + limit < feed.length
  return { launches, nextCursor: more && last ? encodeCursor({ createdAt: Date.parse(last.createdAt), txHash: last.txHash }) : null }
}
