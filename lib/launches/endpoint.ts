import { LRUCache } from 'lru-cache'
import { z } from 'zod'
import { errorResponse } from '../platform/http.js'
import { accepted, refused } from '../platform/result.js'
import type { CacheReadReturnType, LocalCachedBody } from '../read/cache/cachedBody.js'
import { etagOf } from '../read/cache/sharedRefresh.js'
import { createCachedReadEndpoint, invalidParameter, type ReadEndpointOptions } from '../read/cachedReadEndpoint.js'
import { readKeys } from '../read/keys.js'
import { READ_CACHE_TTL_MS } from '../read/readers.js'
import { readWethUsd } from '../read/roomWethPrice.js'
import type { ReadServices } from '../read/services.js'
import { parseRecord } from '../store/records.js'
import type { LaunchesConfig } from './config.js'
import { type LaunchesRequest, pageOf, parseLaunchesRequest } from './page.js'
import { type Launch, launchSchema } from './schema.js'

// The public launches feed: the newest launches of every agent, one cached body for the whole feed (one store read per
// 30 s window at most, none while the instance holds it), every page cut from it in memory.

/** The whole feed as cached: every launch the feed holds, newest first. */
const feedBodySchema = z.object({ launches: z.array(launchSchema) })

/**
 * What the endpoint keeps of each feed body the instance holds (it goes with the body): the feed parsed once, and the
 * pages cut from it by request, so that a warm page is answered with the very bytes of the last time.
 */
type FeedCuts = {
  feeds: WeakMap<LocalCachedBody, Launch[]>
  pages: WeakMap<LocalCachedBody, LRUCache<string, LocalCachedBody>>
}

/** The page a request asks for, as a cached entry of its own (the feed's times, its own body and ETag). */
function pageEntry({ feeds, pages }: FeedCuts, feed: LocalCachedBody, request: LaunchesRequest): LocalCachedBody {
  let cut = pages.get(feed)
  if (!cut) {
    cut = new LRUCache({ max: 256 })
    pages.set(feed, cut)
  }
  const id = `${request.limit}:${request.after ? `${request.after.createdAt}.${request.after.txHash}` : ''}`
  let entry = cut.get(id)
  if (!entry) {
    let launches = feeds.get(feed)
    if (!launches) {
      launches = parseRecord(feedBodySchema, feed.body)?.launches ?? []
      feeds.set(feed, launches)
    }
    const body = JSON.stringify(pageOf(launches, request))
    entry = { ...feed, body, etag: etagOf(body), bytes: Buffer.from(body, 'utf8') }
    cut.set(id, entry)
  }
  return entry
}

/** The feed body: the instance's copy, the shared one, or one read of the deploy index (the deploy code loaded only then). */
function readFeed(services: ReadServices, config: LaunchesConfig): Promise<CacheReadReturnType> {
  return services.cache.read({
    key: readKeys(services.keyPrefix).launches,
    ttlMs: READ_CACHE_TTL_MS,
    refresh: async () => {
      const { listLaunches } = await import('./feed.js')
      // WETH's price now, once per refresh (the instance's room, else one store read): USD figures never go stale.
      const wethUsd = await readWethUsd({ store: services.store, keyPrefix: services.keyPrefix, cache: services.cache })
      const launches = await listLaunches({
        store: services.store,
        storePrefix: services.keyPrefix,
        chainId: config.chainId,
        now: services.now(),
        wethUsd,
      })
      return { body: JSON.stringify({ launches }) }
    },
  })
}

/** What the launches feed runs on: the read side (its cache and store) and the feed's own settings. */
export type LaunchesSource = { read: () => ReadServices; config: () => LaunchesConfig }

/** The `GET /api/launches` endpoint: a page of the tokens deployed through this service, newest first. */
export function createLaunchesEndpoint({ read: services, config }: LaunchesSource, options: ReadEndpointOptions = {}) {
  // The endpoint is built once per instance (by its api/ file): what it cuts from the feed is the instance's.
  const cuts: FeedCuts = { feeds: new WeakMap(), pages: new WeakMap() }
  return createCachedReadEndpoint<LaunchesRequest>({
    ...options,
    name: 'launches',
    // A broken PUBLIC_LAUNCHES or CHAIN_ID is the operator's to fix: 500 CONFIG_INVALID, as for the services.
    services: () => {
      config()
      return services()
    },
    parseInput: (request) => {
      if (!config().publicLaunches)
        return refused('LAUNCHES_OFF', {
          response: errorResponse(404, 'LAUNCHES_OFF', 'This deployment does not publish its launches (PUBLIC_LAUNCHES=0).'),
        })
      const parsed = parseLaunchesRequest(new URL(request.url).searchParams)
      return parsed.ok ? accepted({ input: parsed.request }) : invalidParameter(parsed.problem)
    },
    read: async (ctx, request) => {
      const { entry, stale } = await readFeed(ctx, config())
      return { entry: pageEntry(cuts, entry, request), stale }
    },
    peek: (ctx, request) => {
      const warm = ctx.cache.peek(readKeys(ctx.keyPrefix).launches)
      return warm ? { entry: pageEntry(cuts, warm.entry, request), stale: false } : null
    },
    upstreamFailure: { status: 500, code: 'INTERNAL', message: 'The launches could not be read; try again shortly.' },
  })
}
