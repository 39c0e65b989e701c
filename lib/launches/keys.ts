/**
 * Every shared-store key of a launch from birth on, in one place (its DexScreener market is lib/deploy/keys.ts's, its
 * own pool's market lib/read/keys.ts's, as the rooms that read them own them): the tick's follow of the pools' swaps, the launches lately seen confirmed, the chain's events channel and the trade
 * watch. They keep the `deploy:` words they were first written under, so what a running service stored is read on.
 * `storePrefix` is `STORE_KEY_PREFIX`. This module imports nothing, so every part of lib/ may use it.
 */

/** Store keys of the tick's following of launches' pools (swapFollow.ts): the last block read, and the lock of one follow at a time. */
export const poolSwapKeys = (storePrefix: string, chainId: number) => ({
  cursor: `${storePrefix}deploy:${chainId}:pool-swaps:cursor`,
  lock: `${storePrefix}deploy:${chainId}:pool-swaps:lock`,
})

/**
 * Store key of the launches lately seen confirmed (launchSignal.ts): what an instance reads once when its subscription
 * to {@link chainEventsChannel} (re)opens, to catch up on what was published while it was not listening.
 */
export const launchSignalKey = (storePrefix: string, chainId: number) => `${storePrefix}deploy:${chainId}:launches:confirmed`

/**
 * The channel a chain's events are published on (a launch seen confirmed, a trade on a launched token's pool), one
 * message per event as chainEvents.ts shapes it. A channel is no key: it holds nothing, and a subscriber hears only
 * what is published while it listens. No comma: Upstash's frames are comma-separated.
 */
export const chainEventsChannel = (storePrefix: string, chainId: number) => `${storePrefix}deploy:${chainId}:events`

/**
 * Store keys of the trade watch (tradeWatchLease.ts): the lease naming the one instance that reads the launched pools'
 * swaps and publishes them on {@link chainEventsChannel}, and where it had read up to.
 */
export const tradeWatchKeys = (storePrefix: string, chainId: number) => ({
  lease: `${storePrefix}deploy:${chainId}:trades:watcher`,
  cursor: `${storePrefix}deploy:${chainId}:trades:cursor`,
})
