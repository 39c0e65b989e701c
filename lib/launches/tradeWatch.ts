import { deployHistoryKeys } from '../deploy/keys.js'
import type { LaunchTradeReader, TradesCursor } from '../deploy/records/chainMarkets.js'
import { errorName, type Logger } from '../platform/log.js'
import { type FeedSource, sseEvent } from '../platform/sse.js'
import { oldestInIndex } from '../store/recordIndex.js'
import type { Store } from '../store/types.js'

// The stream's `trade` events: a swap on a launched token's pool, on every open stream within a few seconds of its
// block. Each instance with streams open reads them from the chain itself (one `eth_getLogs` over every launched pool
// id every few seconds), not through the store: the chain is where every instance can read them at no store cost,
// where a publisher would need one instance chosen (a lease renewed in the store all the while streams are open).

/** How often an instance with open streams reads new swaps of the launched pools: a trade shows within ~3 s of its block. */
export const TRADE_LOOK_MS = 2000

/** How often the list of pooled launches is read again (one store read): a new pool trades within this of its launch. */
export const TRADE_LAUNCHES_REFRESH_MS = 60_000

/** Parameters of {@link tradeWatch}. */
export type TradeWatchParameters = {
  /** The shared store and its prefix, and the chain: where the pooled launches' index is looked at (one command). */
  store: Store
  keyPrefix: string
  chainId: number
  /**
   * The chain and store reader, built once some launch has a pool (it loads the deploy side, which an instance whose
   * launches have none never does); null: trades are not followed.
   */
  reader: () => Promise<LaunchTradeReader | null>
  logger: Logger
  now: () => number
}

/**
 * The stream's `trade` events, as a source of the instance's feed: while any stream is open, the pooled launches (read
 * once a minute) and, every {@link TRADE_LOOK_MS} while there are any, their swaps since the last look, each sent to
 * every stream once as a `trade` event (no `id`). It starts at the chain's head when the first stream opens: a stream
 * hears the trades from then on; what came before is in the launch's market and candles. No pooled launch: no RPC call.
 */
export function tradeWatch({ store, keyPrefix, chainId, reader, logger, now }: TradeWatchParameters): FeedSource {
  const pooledIndex = deployHistoryKeys({ storePrefix: keyPrefix, chainId }).pooled
  return (send, schedule) => {
    let stopped = false
    let cancel = () => {}
    let chain: LaunchTradeReader | null = null
    let launches: Awaited<ReturnType<LaunchTradeReader['launches']>> = new Map()
    let launchesAt = Number.NEGATIVE_INFINITY
    let cursor: TradesCursor | null = null
    const look = async () => {
      if (now() - launchesAt >= TRADE_LAUNCHES_REFRESH_MS) {
        launchesAt = now()
        // No pooled launch (the usual case for many services): one store command a minute, and nothing loaded.
        const anyPooled = chain !== null || (await oldestInIndex(store, pooledIndex)) !== null
        chain ??= anyPooled ? await reader() : null
        launches = chain ? await chain.launches() : new Map()
      }
      if (!chain) return
      if (launches.size === 0) return
      cursor ??= { fromBlock: await chain.head(), after: null }
      const read = await chain.read(launches, cursor)
      cursor = read.cursor
      for (const trade of read.trades) send(sseEvent({ event: 'trade', data: JSON.stringify(trade) }))
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
      },
    }
  }
}
