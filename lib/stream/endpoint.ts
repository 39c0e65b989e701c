import type { LaunchesConfig } from '../launches/config.js'
import type { LaunchTradeReader } from '../launches/tradeReader.js'
import { tradeWatch } from '../launches/tradeWatch.js'
import { launchWatch } from '../launches/watch.js'
import { clientAddress } from '../platform/clientAddress.js'
import { createEndpoint, type Endpoint } from '../platform/edge.js'
import { errorResponse } from '../platform/http.js'
import { errorName } from '../platform/log.js'
import { rateLimitHeaders } from '../platform/rateLimitHeaders.js'
import type { ReadServices } from '../read/services.js'
import { UpstreamError } from '../upstream/jsonGetter.js'
import { openBoundedSink } from './boundedSink.js'
import type { StreamConfig } from './config.js'
import { type ControlRoomFeed, createControlRoomFeed, RETRY_FRAME, type Schedule, scheduleOn } from './controlRoomFeed.js'

/** Seconds a refused client is told to wait: about when a stream of its own ends and frees a place. */
const FULL_RETRY_AFTER_SECONDS = 30

/** What the stream runs on: the read side, its own settings and the launches feed's (plus the timers tests hand in). */
export type StreamSource = {
  read: () => ReadServices
  config: () => StreamConfig
  /** Whether launches are public, and their chain: then every stream gets a `launch` event per confirmed deploy. */
  launches: () => LaunchesConfig
  /**
   * The launched pools' trades from the chain, built once a stream is open and a launch has a pool (null: this instance
   * never holds the trade watch): with public launches, every stream gets a `trade` event per swap on a launched
   * token's pool, read by the one instance holding the trade watch (lib/launches/tradeWatch.ts) and published.
   */
  trades?: () => Promise<LaunchTradeReader | null>
  /** Timers of the feed and of each stream's deadline (default: waits on the read services' clock). */
  schedule?: Schedule
  heartbeatSeconds?: number
}

/**
 * The `GET /api/stream` endpoint: the control room as Server-Sent Events, keyless. Each instance feeds its streams
 * from its own copy (`createControlRoomFeed`); a client holds at most `maxPerClient` streams on an instance (429
 * past it), an instance at most `maxPerInstance` (503), and every stream ends cleanly after `maxSeconds`.
 */
export function createStreamEndpoint(parameters: StreamSource): Endpoint {
  const { read, config, launches, trades, schedule, heartbeatSeconds } = parameters
  // The endpoint is built once (by its api/ file), and what it keeps goes with the instance's read services: their
  // feed, and how many streams each client holds on it.
  const served = new WeakMap<ReadServices, { feed: ControlRoomFeed; perClient: Map<string, number> }>()
  const handler = async (request: Request): Promise<Response> => {
    // A broken configuration throws here, and the edge answers it 500 CONFIG_INVALID (lib/platform/errorAnswer.ts).
    const services = read()
    const limits = config()
    const launchFeed = launches()
    let kept = served.get(services)
    if (!kept) {
      const trading =
        launchFeed.publicLaunches && trades
          ? tradeWatch({
              store: services.store,
              keyPrefix: services.keyPrefix,
              chainId: launchFeed.chainId,
              reader: trades,
              logger: services.logger,
              now: services.now,
            })
          : null
      const sources = launchFeed.publicLaunches
        ? [launchWatch({ services, chainId: launchFeed.chainId, onPooledLaunch: trading?.launchHeard }), ...(trading ? [trading] : [])]
        : []
      kept = { feed: createControlRoomFeed({ services, schedule, heartbeatSeconds, sources }), perClient: new Map() }
      served.set(services, kept)
    }
    const { feed, perClient } = kept
    const client = clientAddress(request)
    const held = perClient.get(client) ?? 0
    const policy = { policy: 'stream', quota: limits.maxPerClient, resetSeconds: FULL_RETRY_AFTER_SECONDS }
    if (held >= limits.maxPerClient) {
      return errorResponse(
        429,
        'RATE_LIMITED',
        `Too many open streams: at most ${limits.maxPerClient} per client; close one, or retry in ${FULL_RETRY_AFTER_SECONDS} s.`,
        { 'retry-after': String(FULL_RETRY_AFTER_SECONDS), ...rateLimitHeaders({ ...policy, remaining: 0 }) },
      )
    }
    if (feed.size >= limits.maxPerInstance) {
      return errorResponse(503, 'STREAMS_FULL', `This instance holds all the streams it can; retry in ${FULL_RETRY_AFTER_SECONDS} s.`, {
        'retry-after': String(FULL_RETRY_AFTER_SECONDS),
      })
    }
    perClient.set(client, held + 1)
    let cancelDeadline = () => {}
    let closed = false
    const { sink, body } = openBoundedSink({
      client,
      onClose: () => {
        closed = true
        const left = (perClient.get(client) ?? 1) - 1
        if (left > 0) perClient.set(client, left)
        else perClient.delete(client)
        cancelDeadline()
        request.signal?.removeEventListener('abort', sink.end)
        feed.remove(sink)
      },
    })
    // Listening before the first read: a client that goes away while a cold read is made gives its place back at once.
    request.signal?.addEventListener('abort', sink.end, { once: true })
    if (request.signal?.aborted) sink.end()
    sink.send(RETRY_FRAME)
    try {
      if (!closed) await feed.add(sink, request.headers.get('last-event-id'))
    } catch (error) {
      sink.end()
      // Only an upstream's failure is the documented 503; anything else is answered by the edge's one mapping.
      if (!(error instanceof UpstreamError)) throw error
      services.logger.warn('stream_unavailable', { error: errorName(error) })
      return errorResponse(503, 'UPSTREAM_UNAVAILABLE', 'The market data is not available yet; retry shortly.', { 'retry-after': '5' })
    }
    const deadline = limits.maxSeconds * 1000
    // The deadline keeps the process alive while the stream is open, as the open stream is work in progress (a runtime
    // that runs the function alone would otherwise exit under it).
    if (!closed) cancelDeadline = (schedule ?? scheduleOn(services.sleep, true))(sink.end, deadline)
    return new Response(body, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        // Proxies that buffer answers (nginx) would hold the events back.
        'x-accel-buffering': 'no',
        ...rateLimitHeaders({ ...policy, remaining: limits.maxPerClient - held - 1, resetSeconds: 0 }),
      },
    })
  }
  return createEndpoint({ methods: ['GET'], handler, errors: { endpoint: 'stream', withOk: false } })
}
