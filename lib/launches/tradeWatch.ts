import { randomUUID } from 'node:crypto'
import { deployHistoryKeys } from '../deploy/keys.js'
import { errorName, type Logger } from '../platform/log.js'
import type { FeedSource } from '../platform/sse.js'
import { oldestInIndex } from '../store/recordIndex.js'
import type { Store } from '../store/types.js'
import { tradeMessage } from './chainEvents.js'
import { chainEventsChannel, tradeWatchKeys } from './keys.js'
import type { LaunchTradeReader, TradesCursor } from './tradeReader.js'
import { releaseTradeWatch, type TradeWatchLeaseKeys, takeTradeWatch } from './tradeWatchLease.js'

// The stream's `trade` events: a swap on a launched token's pool, on every open stream of every instance within a few
// seconds of its block. Of the instances with streams open, the one holding the trade watch's lease (tradeWatchLease.ts)
// reads the launched pools' swaps from the chain and publishes each on the chain's events channel (one command per
// trade); every instance's subscription (watch.ts) hands them to its streams, the publisher's own included. One reader
// of the chain for the whole service, whatever the number of instances, and no store read per trade per instance.

/** How often the lease's holder reads new swaps of the launched pools: a trade shows within ~3 s of its block. */
export const TRADE_LOOK_MS = 2000

/** How often an instance that knows of no pooled launch looks at their index again (one store command). */
export const TRADE_LAUNCHES_REFRESH_MS = 60_000

/** How often the holder renews the lease, and an instance without it tries to take it (one command each). */
export const TRADE_LEASE_RENEW_MS = 20_000

/** How long the lease outlives its last renewal: a holder gone without a word is replaced within this and a renewal. */
export const TRADE_LEASE_MS = 45_000

/** How old a saved cursor may be for a new holder to go on from it (else from the head: older trades are in the market). */
export const TRADE_CURSOR_FRESH_MS = 300_000

/** Parameters of {@link tradeWatch}. */
export type TradeWatchParameters = {
  /** The shared store and its prefix, and the chain: the pooled launches' index, the lease and the events channel. */
  store: Store
  keyPrefix: string
  chainId: number
  /**
   * The chain and store reader, built once some launch has a pool (it loads the deploy side, which an instance whose
   * launches have none never does); null: this instance cannot read trades, and never takes the lease.
   */
  reader: () => Promise<LaunchTradeReader | null>
  logger: Logger
  now: () => number
  /** This instance, as the lease names it (default: a fresh id per watch). */
  instanceId?: string
}

/** A {@link FeedSource} that sends nothing itself, and `launchHeard`: a launch with a pool was heard, read the list again. */
export type TradeWatch = FeedSource & { launchHeard(): void }

/** A cursor as the lease's key keeps it: blocks as decimal strings, and when it was saved. */
type SavedCursor = { fromBlock: string; after: { blockNumber: string; logIndex: number } | null; savedAt: number }

const saveCursor = (cursor: TradesCursor, savedAt: number): string =>
  JSON.stringify({
    fromBlock: cursor.fromBlock.toString(),
    after: cursor.after && { blockNumber: cursor.after.blockNumber.toString(), logIndex: cursor.after.logIndex },
    savedAt,
  } satisfies SavedCursor)

/** A saved cursor read back, when it is fresh enough to go on from; null otherwise (or when it is not one). */
function freshCursor(saved: string | null, now: number): TradesCursor | null {
  try {
    const cursor = saved === null ? null : (JSON.parse(saved) as SavedCursor)
    if (!cursor || now - cursor.savedAt > TRADE_CURSOR_FRESH_MS) return null
    const after = cursor.after && { blockNumber: BigInt(cursor.after.blockNumber), logIndex: cursor.after.logIndex }
    return { fromBlock: BigInt(cursor.fromBlock), after }
  } catch {
    return null
  }
}

/**
 * The trade watch of an instance, run while any of its streams is open: every {@link TRADE_LOOK_MS}, when some launch
 * has a pool (their index looked at once a minute until one has; none: no RPC call, no lease), it holds or tries to
 * take the lease (every {@link TRADE_LEASE_RENEW_MS}, one command); while it holds it, it reads the pooled launches'
 * swaps since its cursor and publishes each as a `trade` message. It reads the list of pooled launches when it takes
 * the lease and when a pooled launch is heard on the channel (`launchHeard`), not on a cadence. Stopping (the last
 * stream closed) saves the cursor and frees the lease, so another instance goes on from there at its next try. Every
 * save compares and sets (tradeWatchLease.ts): one whose lease lapsed meanwhile never moves a newer cursor back.
 */
export function tradeWatch({ store, keyPrefix, chainId, reader, logger, now, instanceId }: TradeWatchParameters): TradeWatch {
  const pooledIndex = deployHistoryKeys({ storePrefix: keyPrefix, chainId }).pooled
  const channel = chainEventsChannel(keyPrefix, chainId)
  const keys: TradeWatchLeaseKeys = { ...tradeWatchKeys(keyPrefix, chainId), leaseMs: TRADE_LEASE_MS, cursorMs: TRADE_CURSOR_FRESH_MS }
  const me = instanceId ?? randomUUID()
  /** The holder's list of pooled launches is read again at its next look (taken the lease; a pooled launch heard). */
  let launchesStale = true
  const source: FeedSource = (_send, schedule) => {
    let stopped = false
    let cancel = () => {}
    let chain: LaunchTradeReader | null = null
    let launches: Awaited<ReturnType<LaunchTradeReader['launches']>> = new Map()
    let indexAt = Number.NEGATIVE_INFINITY
    let held = false
    let triedAt = Number.NEGATIVE_INFINITY
    let cursor: TradesCursor | null = null
    /** The cursor as this instance last saw it stored: a save of its own is written only over that one. */
    let stored: string | null = null
    const look = async () => {
      if (!chain) {
        // No pooled launch known (the usual case for many services): one store command a minute, and nothing loaded.
        if (now() - indexAt < TRADE_LAUNCHES_REFRESH_MS) return
        indexAt = now()
        if ((await oldestInIndex(store, pooledIndex)) === null) return
        chain = await reader()
        if (!chain) return
      }
      let renewed = false
      if (now() - triedAt >= TRADE_LEASE_RENEW_MS) {
        triedAt = now()
        renewed = true
        const mine = held && cursor ? saveCursor(cursor, now()) : null
        const take = await takeTradeWatch({ store, keys, instanceId: me, saved: mine, expected: stored })
        // A new hold, or one whose save was refused (its lease had lapsed and another holder moved on since): go on
        // from the cursor stored, not from its own older one.
        if (take.ok && (!held || (mine !== null && !take.saved))) {
          cursor = freshCursor(take.cursor, now())
          launchesStale = true
        }
        if (take.ok) stored = take.cursor
        held = take.ok
        // The last stream closed while the take was on its way: give back what it took.
        if (stopped) return release()
      }
      if (!held) return
      if (launchesStale) {
        launchesStale = false
        launches = await chain.launches()
      }
      if (launches.size === 0) return
      // With each renewal, the head before the read: a read up to the head that found nothing new covered it, so the
      // cursor moves up to it and the next reads stay a few blocks long however quiet the pools are (nodes refuse long
      // ranges).
      const headBefore = renewed && cursor ? await chain.head() : null
      cursor ??= { fromBlock: await chain.head(), after: null }
      const read = await chain.read(launches, cursor)
      for (const trade of read.trades) await store.publish(channel, tradeMessage(trade, now()))
      cursor =
        read.trades.length === 0 && headBefore !== null && headBefore > read.cursor.fromBlock
          ? { fromBlock: headBefore, after: null }
          : read.cursor
    }
    const release = () => {
      if (!held) return
      held = false
      releaseTradeWatch({ store, keys, instanceId: me, saved: cursor && saveCursor(cursor, now()), expected: stored }).catch(
        (error: unknown) => logger.warn('stream_trade_release_failed', { error: errorName(error) }),
      )
    }
    const next = () => {
      if (stopped) return
      cancel = schedule(() => {
        look()
          .catch((error: unknown) => logger.warn('stream_trade_look_failed', { error: errorName(error) }))
          .finally(next)
      }, TRADE_LOOK_MS)
    }
    next()
    return {
      stop: () => {
        stopped = true
        cancel()
        release()
      },
    }
  }
  return Object.assign(source, {
    launchHeard: () => {
      launchesStale = true
    },
  })
}
