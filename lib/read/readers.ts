import { HISTORY_RANGES, type HistoryRange, marketHistory, tokenSeries } from '../market/snapshots.js'
import type { MarketHistoryBody, TokenHistory } from '../market/types.js'
import { mergeWeekCandles } from '../market/weekFill.js'
import type { CacheReadReturnType, LocalCachedBody, ReadParameters } from './cache/cachedBody.js'
import type { RefreshIfOlderReturnType } from './cache/readCache.js'
import { refreshControlRoom } from './controlRoom/refresh.js'
import { ReadNotFoundError } from './errors.js'
import { loadPriceLines, loadSnapshots } from './history/historyStore.js'
import { weekCandles } from './history/weekCandles.js'
import type { ReadServices } from './services.js'
import { poolsOfRoomBody } from './tokenOhlcv.js'
import { searchTokens } from './tokenSearch.js'

/** How long a read stays cached server-side (`docs/api.md`, `GET /api/control-room`). */
export const READ_CACHE_TTL_MS = 30_000

/** The control-room read of `services`, made once and kept in their memory. */
function controlRoomRead(services: ReadServices): ReadParameters {
  services.memory.controlRoomRead ??= {
    key: services.keys.controlRoom,
    ttlMs: READ_CACHE_TTL_MS,
    refresh: () => refreshControlRoom(services),
  }
  return services.memory.controlRoomRead
}

/** The control-room body, from the shared cache or one upstream refresh. */
export function readControlRoom(services: ReadServices): Promise<CacheReadReturnType> {
  return services.cache.read(controlRoomRead(services))
}

/** The control-room body when this instance holds it fresh, else null (no I/O). */
export function peekControlRoom(services: ReadServices): CacheReadReturnType | null {
  return services.cache.peek(controlRoomRead(services).key)
}

/**
 * Looks at the shared control room once and refreshes it when it is past its window, through the same single flight
 * and lock as a read (one refresh across instances): what a listening instance does when the window ends.
 */
export function lookAtControlRoom(services: ReadServices): Promise<RefreshIfOlderReturnType> {
  return services.cache.refreshIfOlder({ ...controlRoomRead(services), olderThanMs: READ_CACHE_TTL_MS })
}

/** Calls `listener` each time this instance's control-room body changes; answers the function that stops it. */
export function onControlRoomChange(services: ReadServices, listener: (entry: LocalCachedBody) => void): () => void {
  return services.cache.onChange(controlRoomRead(services).key, listener)
}

/** How long an instance remembers that an address has no history, answering 404 with no store command. */
export const UNKNOWN_TOKEN_MEMORY_MS = READ_CACHE_TTL_MS

const SPAN_WORDS: Record<HistoryRange, string> = { '24h': '24 hours', '7d': '7 days' }

const unknownTokenError = (address: string, range: HistoryRange) =>
  new ReadNotFoundError(
    'UNKNOWN_TOKEN',
    range === '24h'
      ? `Neither a snapshot nor a price line of the last ${SPAN_WORDS[range]} holds ${address}: it has not been in the top 100 since (or is not a Base token).`
      : `Neither a snapshot, a price line nor its pool's hourly candles of the last ${SPAN_WORDS[range]} hold ${address}: it has not been in the top 100 since (or is not a Base token), or its pool's candles could not be read just now.`,
  )

/**
 * The token-history body of a lower-case address over a range (the last 24 hours by default), from the shared cache
 * or the stored snapshots and price line, and over a week the pool's hourly candles where those leave hours empty
 * (`history/weekCandles.ts`). An address found to have no history in that range is remembered for
 * {@link UNKNOWN_TOKEN_MEMORY_MS}: asking again costs nothing.
 */
export async function readTokenHistory(services: ReadServices, address: string, range: HistoryRange = '24h'): Promise<CacheReadReturnType> {
  const memoryKey = `history:${range}:${address}`
  if (services.memory.unknownTokens.has(memoryKey)) throw unknownTokenError(address, range)
  try {
    return await readKnownTokenHistory(services, address, range)
  } catch (error) {
    if (error instanceof ReadNotFoundError) services.memory.unknownTokens.set(memoryKey, true, { ttl: UNKNOWN_TOKEN_MEMORY_MS })
    throw error
  }
}

function readKnownTokenHistory(services: ReadServices, address: string, range: HistoryRange): Promise<CacheReadReturnType> {
  const keys = services.keys
  return services.cache.read({
    key: range === '24h' ? keys.tokenHistory(address) : keys.tokenHistoryWeek(address),
    ttlMs: READ_CACHE_TTL_MS,
    refresh: async () => {
      const now = services.now()
      const [snapshots, lines] = await Promise.all([loadSnapshots(services, now, range), loadPriceLines(services, [address], now)])
      const kept = tokenSeries(snapshots, address, lines.get(address) ?? null, now, range)
      // A week the snapshots do not cover takes the pool's hourly candles for the hours they leave empty.
      const week =
        range === '7d' ? await weekCandles({ services, address, points: kept ?? [], now, poolOf: () => roomPool(services, address) }) : null
      const points = week ? mergeWeekCandles(kept ?? [], week.rows, now) : kept
      if (!points) throw unknownTokenError(address, range)
      const body: TokenHistory = { address, intervalSeconds: HISTORY_RANGES[range].pointMs / 1000, points }
      return { body: JSON.stringify(body), writes: week?.writes }
    },
  })
}

/**
 * The pool the control room charts `address` from, or null when the room does not list it or cannot be had: the room
 * as the instance holds it (hot in its memory), so asking for an address outside it costs no store command.
 */
async function roomPool(services: ReadServices, address: string): Promise<string | null> {
  try {
    const { entry } = await readControlRoom(services)
    return poolsOfRoomBody(services.memory.roomPools, entry.etag, entry.body).get(address)?.pool ?? null
  } catch {
    return null
  }
}

/** The market-history body over a range when this instance holds it fresh, else null (no I/O). */
export function peekMarketHistory(services: ReadServices, range: HistoryRange = '24h'): CacheReadReturnType | null {
  const keys = services.keys
  return services.cache.peek(range === '24h' ? keys.marketHistory : keys.marketHistoryWeek)
}

/**
 * The market-history body over a range, the last 24 hours by default (total volume and every current top-100 token's
 * sparkline), from the shared cache or the snapshots.
 */
export function readMarketHistory(services: ReadServices, range: HistoryRange = '24h'): Promise<CacheReadReturnType> {
  const keys = services.keys
  return services.cache.read({
    key: range === '24h' ? keys.marketHistory : keys.marketHistoryWeek,
    ttlMs: READ_CACHE_TTL_MS,
    refresh: async () => {
      const now = services.now()
      const snapshots = await loadSnapshots(services, now, range)
      const latest = snapshots.at(-1)
      const lines = latest
        ? await loadPriceLines(
            services,
            latest.rows.map((r) => r[0]),
            now,
          )
        : new Map()
      const body: MarketHistoryBody = marketHistory(snapshots, lines, range)
      return { body: JSON.stringify(body) }
    },
  })
}

/** The token-search body for a trimmed, valid term, from the shared cache or one upstream search. */
export function readTokenSearch(services: ReadServices, query: string): Promise<CacheReadReturnType> {
  return services.cache.read({
    key: services.keys.tokenSearch(query),
    ttlMs: READ_CACHE_TTL_MS,
    refresh: async () => ({
      body: JSON.stringify(await searchTokens({ upstream: services.searchUpstream, query, deadline: services.deadline })),
      source: 'dexscreener',
    }),
  })
}
