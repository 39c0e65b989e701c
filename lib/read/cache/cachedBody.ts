import { z } from 'zod'
import { parseRecord } from '../../store/records.js'
import type { WriteEntry } from '../../store/types.js'

// What the read cache holds and hands out: the cached body, its stored form, and the read a caller asks of it.

/** A cached response body with its validator, when it was made, until when it is fresh, and where it came from. */
export type CachedBody = {
  /** The JSON text served to clients, byte for byte the same across instances within the window. */
  body: string
  /** Strong ETag of `body`, quoted. */
  etag: string
  /** Epoch ms at which the body was made (on the cache's clock). */
  fetchedAt: number
  /** Epoch ms after which the entry is stale (on the cache's clock). */
  expiresAt: number
  /** The upstream that served it (`dexscreener`, `geckoterminal`), when the producer says. */
  source?: string
}

/** The stored form of a {@link CachedBody}. */
const cachedBodySchema = z.object({
  body: z.string(),
  etag: z.string(),
  fetchedAt: z.number(),
  expiresAt: z.number(),
  source: z.string().optional(),
})

/** A cached body as the store holds it, or null when absent or not one. */
export function parseCachedBody(raw: string | null): CachedBody | null {
  return parseRecord(cachedBodySchema, raw)
}

/** A cache entry as held in the instance: the body is also kept UTF-8 encoded, so a warm hit copies nothing. */
export type LocalCachedBody = CachedBody & { bytes: Uint8Array }

/** What a read answers: the entry, and whether it is past its window (served while a refresh runs, or the upstream fails). */
export type CacheReadReturnType = { entry: LocalCachedBody; stale: boolean }

/** What a refresh produces: the body, and optionally which upstream served it. */
export type RefreshResult = {
  body: string
  source?: string
  /** What the refresh learned besides the body (the universe, a snapshot): written with the body, in one store call. */
  writes?: readonly WriteEntry[]
}

/** Parameters of a read of the cache (`ReadCache.read` in `cache.ts`). */
export type ReadParameters = {
  key: string
  ttlMs: number
  /** Produces the fresh body; its failure reaches the caller only when no body young enough exists. */
  refresh: () => Promise<RefreshResult>
}
