import type { Hex } from 'viem'
import { DEPLOY_HISTORY_TTL_MS, type TransactionRecord } from '../deploy/sender/signedTransactions.js'
import type { DeployServices } from '../deploy/services.js'
import { withPoolRead } from '../market/chainCandles.js'
import { type ChainMarketState, chainMarketStateSchema } from '../market/chainMarketState.js'
import { chainMarketKey } from '../read/keys.js'
import { parseRecord } from '../store/records.js'
import type { Store } from '../store/types.js'
import { readPoolState } from './poolState.js'
import { chainLaunchOf } from './swapFollow.js'

// A pooled launch's market from the block its pool is born in: when its deploy is seen confirmed (a receipt or the
// tick's follow-up, once per deploy), StateView is read once and the launch's market state written, so the feed, the
// stream's `launch` event, token-ohlcv and the token page carry a price, a liquidity and a market cap before any swap.

/** Parameters of {@link recordPoolBirth}. */
export type RecordPoolBirthParameters = {
  services: Pick<DeployServices, 'publicClient' | 'config' | 'clock'> & { store: Store }
  /** The confirmed launch's record, with its pool. */
  record: TransactionRecord
}

/**
 * Reads the launch's pool at the head (one call for the block, then `getSlot0` and `getLiquidity` at it) and writes
 * the market state it is born with, unless one is there already (a swap counted first, or another instance): then
 * that one is answered. Null when the record has no pool or the pool has no price yet.
 */
export async function recordPoolBirth({ services, record }: RecordPoolBirthParameters): Promise<ChainMarketState | null> {
  if (!record.pool) return null
  const { publicClient, config, clock, store } = services
  const launch = chainLaunchOf({ ...record, pool: record.pool })
  const blockNumber = await publicClient.getBlockNumber({ cacheTime: 0 })
  const read = await readPoolState({
    client: publicClient,
    stateView: config.uniswapV4.stateView,
    poolId: launch.poolId as Hex,
    blockNumber,
  })
  const born = withPoolRead({ state: null, launch, read, at: Math.floor(clock.now() / 1000) })
  if (!born) return null
  const key = chainMarketKey(config.storePrefix, config.chainId, launch.token)
  if (await store.setIfAbsent(key, JSON.stringify(born), DEPLOY_HISTORY_TTL_MS)) return born
  return parseRecord(chainMarketStateSchema, await store.get(key))
}
