import { LRUCache } from 'lru-cache'
import type { Address } from 'viem'
import { z } from 'zod'
import type { DeployServicesSource } from '../deploy/instance.js'
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
import { LAUNCH_DETAIL_RATE_LIMIT_PER_MINUTE, LAUNCH_DETAIL_TTL_MS, type LaunchesConfig } from './config.js'
import type { LaunchesChain } from './feed.js'
import { type LaunchesRequest, pageOf, parseLaunchesRequest } from './page.js'
import { type Launch, type LaunchDetail, launchSchema } from './schema.js'

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

/**
 * The feed body: the instance's copy, the shared one, or one read of the deploy index (the deploy code loaded only
 * then), with the signer's roles on every confirmed launch read in the same refresh (one eth_call per window).
 */
function readFeed(services: ReadServices, config: LaunchesConfig, chain?: () => Promise<LaunchesChain>): Promise<CacheReadReturnType> {
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
        chain,
        logger: services.logger,
      })
      return { body: JSON.stringify({ launches }) }
    },
  })
}

/**
 * What the launches feed runs on: the read side (its cache and store), the feed's own settings, and the chain its
 * launches' powers are read from when its body is made (absent: every `powers` is null).
 */
export type LaunchesSource = { read: () => ReadServices; config: () => LaunchesConfig; chain?: () => Promise<LaunchesChain> }

/** The `GET /api/launches` endpoint: a page of the tokens deployed through this service, newest first. */
export function createLaunchesEndpoint({ read: services, config, chain }: LaunchesSource, options: ReadEndpointOptions = {}) {
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
      const { entry, stale } = await readFeed(ctx, config(), chain)
      return { entry: pageEntry(cuts, entry, request), stale }
    },
    peek: (ctx, request) => {
      const warm = ctx.cache.peek(readKeys(ctx.keyPrefix).launches)
      return warm ? { entry: pageEntry(cuts, warm.entry, request), stale: false } : null
    },
    upstreamFailure: { status: 500, code: 'INTERNAL', message: 'The launches could not be read; try again shortly.' },
  })
}

/** What one launch's endpoint runs on: the feed's, and the deploy side (the chain, the deploy records). */
export type LaunchSource = LaunchesSource & { deploy: DeployServicesSource }

/** The token a request names: `/api/launches/<address>`, or `?address=` as vercel.json's rewrite hands it on. */
function requestedAddress(request: Request): string | null {
  const url = new URL(request.url)
  return url.searchParams.get('address') ?? /\/api\/launches\/([^/]+)\/?$/.exec(url.pathname)?.[1] ?? null
}

/**
 * The `GET /api/launches/{address}` endpoint: the feed's entry of one launch (a token not in the feed is 404
 * `NOT_A_LAUNCH`, at the cost of the feed's cached body), with its powers and pool as the chain has them now, cached
 * {@link LAUNCH_DETAIL_TTL_MS} per token and throttled per client.
 */
export function createLaunchEndpoint({ read: services, config, chain, deploy }: LaunchSource, options: ReadEndpointOptions = {}) {
  // Each feed body the instance holds, by address, read once (it goes with the body).
  const byAddress = new WeakMap<LocalCachedBody, Map<string, Launch>>()
  const launchIn = (feed: LocalCachedBody, address: string) => {
    let launches = byAddress.get(feed)
    if (!launches) {
      launches = new Map((parseRecord(feedBodySchema, feed.body)?.launches ?? []).map((l) => [l.address.toLowerCase(), l]))
      byAddress.set(feed, launches)
    }
    return launches.get(address)
  }
  return createCachedReadEndpoint<{ address: string }>({
    ...options,
    name: 'launch',
    services: () => {
      config()
      return services()
    },
    rateLimitPerMinute: () => LAUNCH_DETAIL_RATE_LIMIT_PER_MINUTE,
    parseInput: (request) => {
      if (!config().publicLaunches)
        return refused('LAUNCHES_OFF', {
          response: errorResponse(404, 'LAUNCHES_OFF', 'This deployment does not publish its launches (PUBLIC_LAUNCHES=0).'),
        })
      const address = requestedAddress(request)
      if (!address || !/^0x[0-9a-fA-F]{40}$/.test(address))
        return invalidParameter({ field: 'address', reason: 'must be 0x and 40 hex digits' })
      return accepted({ input: { address: address.toLowerCase() } })
    },
    read: async (ctx, { address }) => {
      const { entry: feed } = await readFeed(ctx, config(), chain)
      const launch = launchIn(feed, address)
      const { launchDetailOf, notALaunch } = await import('./launchDetail.js')
      if (!launch) throw notALaunch(address)
      return ctx.cache.read({
        key: readKeys(ctx.keyPrefix).launch(address),
        ttlMs: LAUNCH_DETAIL_TTL_MS,
        refresh: async () => {
          const detail: LaunchDetail = await launchDetailOf({ deploy: await deploy.services(), launch, token: launch.address as Address })
          return { body: JSON.stringify(detail) }
        },
      })
    },
    upstreamFailure: { status: 500, code: 'INTERNAL', message: 'The launch could not be read; try again shortly.' },
  })
}
