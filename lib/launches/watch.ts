import { randomUUID } from 'node:crypto'
import { errorName } from '../platform/log.js'
import { type FeedSource, sseEvent } from '../platform/sse.js'
import type { ReadServices } from '../read/services.js'
import type { ChannelSubscription } from '../store/types.js'
import { type ChannelTrade, echoMessage, readChainEvent } from './chainEvents.js'
import { chainEventsChannel, launchSignalKey } from './keys.js'
import { launchesSince, type SignalledLaunch } from './launchSignal.js'

/** How long a subscription may take to open before the instance gives it up and subscribes again (with backoff). */
export const SUBSCRIBE_WAIT_MS = 3500

/**
 * How long a subscription may hear nothing before the instance checks it: it publishes an echo of its own and expects
 * it back within {@link ECHO_WAIT_MS}. Anything heard (any instance's event or echo) proves the stream alive, so a
 * channel with several listening instances carries about one echo per such stretch, not one per instance.
 */
export const ECHO_AFTER_QUIET_MS = 50_000

/** How long an echo may take to come back before the subscription counts as dropped. */
export const ECHO_WAIT_MS = 4500

/** The waits before each subscribe after a drop, one after another (the last one repeats). */
export const RECONNECT_BACKOFF_MS: readonly number[] = [1000, 2000, 4000, 8000, 16_000, 32_000]

/** How far before the last launch it sent the instance's catch-up read looks: another instance's clock may be a little behind. */
const LOOK_BACK_MS = 10_000

/** How many trades a listener remembers having sent: a new trade watch's holder may publish again the last few. */
const TRADES_REMEMBERED = 500

/** Parameters of {@link launchWatch}: `onPooledLaunch` hears each launch with a pool sent (the trade watch reads its list again). */
export type LaunchWatchParameters = { services: ReadServices; chainId: number; onPooledLaunch?: () => void }

/**
 * The stream's `launch` and `trade` events, as a source of the instance's feed: while any stream is open, one
 * subscription to the chain's events channel (keys.ts), on which the instance that saw a deploy confirmed (a
 * receipt or the tick's follow-up, on any instance) published its launch, and the trade watch's holder each trade
 * (tradeWatch.ts); each new one goes to every stream once, the launch as the feed lists it, with no `id` (a stream's id
 * stays the room's). Nothing is read on a cadence: when the subscription opens (and
 * each time it opens again) one read of the launch signal covers what was published while it was not listening. A
 * subscription that drops, fails to open within {@link SUBSCRIBE_WAIT_MS}, or lets an echo of its own go unanswered
 * is opened again after {@link RECONNECT_BACKOFF_MS}, on the feed's timers. With no stream open it never runs.
 */
export function launchWatch({ services, chainId, onPooledLaunch }: LaunchWatchParameters): FeedSource {
  const key = launchSignalKey(services.keyPrefix, chainId)
  const channel = chainEventsChannel(services.keyPrefix, chainId)
  return (send, schedule) => {
    const echoId = randomUUID()
    // The launches seen from now on (a little before: the look back) are news to these streams.
    const delivery = createDelivery({ send, since: services.now(), onPooledLaunch })
    let stopped = false
    let subscription: ChannelSubscription | null = null
    /** Subscribes in a row that did not end in a catch-up read: how far along the backoff the next one waits. */
    let failures = 0
    /** The one timer pending: the wait for the open, the quiet before an echo, the wait for it, or the next subscribe. */
    let cancelTimer = () => {}
    const after = (ms: number, run: () => void) => {
      cancelTimer()
      cancelTimer = schedule(run, ms)
    }

    const reconnect = (reason: string) => {
      if (stopped) return
      subscription?.close()
      subscription = null
      const wait = RECONNECT_BACKOFF_MS[Math.min(failures, RECONNECT_BACKOFF_MS.length - 1)]!
      failures += 1
      services.logger.warn('stream_events_resubscribe', { reason, waitMs: wait })
      after(wait, connect)
    }

    /** Heard something: the stream is alive; the next check is a quiet stretch away. */
    const heard = () => after(ECHO_AFTER_QUIET_MS, echo)
    const echo = () => {
      // A publish that fails leaves the echo unanswered, and that wait decides.
      services.store.publish(channel, echoMessage(echoId, services.now())).catch(() => {})
      after(ECHO_WAIT_MS, () => reconnect('echo_lost'))
    }

    const catchUp = (mine: ChannelSubscription) => {
      launchesSince(services.store, key, delivery.since() - LOOK_BACK_MS).then(
        (found) => {
          if (subscription !== mine) return
          failures = 0
          delivery.launches(found)
        },
        (error: unknown) => {
          if (subscription !== mine) return
          services.logger.warn('stream_launch_catch_up_failed', { error: errorName(error) })
          reconnect('catch_up_failed')
        },
      )
    }

    const connect = () => {
      if (stopped) return
      let opened = false
      // No call comes synchronously from subscribe (the port's contract): `mine` is set before any of these runs.
      const mine: ChannelSubscription = services.store.subscribe(channel, {
        onOpen: () => {
          if (subscription !== mine) return
          opened = true
          heard()
          catchUp(mine)
        },
        onMessage: (message) => {
          if (subscription !== mine) return
          heard()
          const event = readChainEvent(message)
          if (event?.kind === 'launch') delivery.launches([{ launch: event.launch, seenAt: event.at }])
          if (event?.kind === 'trade') delivery.trade(event.trade)
        },
        onDrop: (error) => {
          if (subscription !== mine) return
          services.logger.warn('stream_events_dropped', { error: errorName(error) })
          reconnect('dropped')
        },
      })
      subscription = mine
      after(SUBSCRIBE_WAIT_MS, () => {
        if (!opened) reconnect('subscribe_timeout')
      })
    }

    connect()
    return {
      stop: () => {
        stopped = true
        cancelTimer()
        subscription?.close()
        subscription = null
      },
    }
  }
}

/** Parameters of {@link createDelivery}: the streams' send, when news starts, and who hears of a pooled launch sent. */
type CreateDeliveryParameters = { send: Parameters<FeedSource>[0]; since: number; onPooledLaunch: (() => void) | undefined }

/**
 * What the streams of one watch were sent, so each launch and each trade goes out once, however many times the channel
 * or a catch-up read brings it: launches by deploy (forgotten once older than the look back), the last
 * {@link TRADES_REMEMBERED} trades by transaction and log index.
 */
function createDelivery({ send, since: start, onPooledLaunch }: CreateDeliveryParameters) {
  let since = start
  /** What was sent, by deploy: a catch-up read sees a launch a message already brought. */
  const sent = new Map<string, number>()
  /** The trades sent (txHash and logIndex), oldest first, at most {@link TRADES_REMEMBERED}. */
  const tradesSent = new Set<string>()
  return {
    /** The newest time a launch was seen confirmed among those delivered (from the start at first). */
    since: () => since,
    /** Sends the launches not sent yet. */
    launches(found: readonly SignalledLaunch[]) {
      for (const { launch, seenAt } of found) {
        since = Math.max(since, seenAt)
        if (sent.has(launch.txHash)) continue
        sent.set(launch.txHash, seenAt)
        send(sseEvent({ event: 'launch', data: JSON.stringify(launch) }))
        if (launch.pool) onPooledLaunch?.()
      }
      for (const [txHash, seenAt] of sent) if (seenAt < since - LOOK_BACK_MS) sent.delete(txHash)
    },
    /** Sends a trade not sent yet. */
    trade(trade: ChannelTrade) {
      const id = `${trade.txHash.toLowerCase()}:${trade.logIndex}`
      if (tradesSent.has(id)) return
      tradesSent.add(id)
      if (tradesSent.size > TRADES_REMEMBERED) tradesSent.delete(tradesSent.values().next().value!)
      send(sseEvent({ event: 'trade', data: JSON.stringify(trade) }))
    },
  }
}
