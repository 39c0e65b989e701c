// The tick's job that follows the Swap events of the pools launched through the service, so a launch has a price,
// volume, trade count and candles from its first swap, minutes before any aggregator indexes its pool.
import { randomUUID } from 'node:crypto'
import type { Hex } from 'viem'
import { wholeSupplyOf } from '../chain/birthView.js'
import { deployHistoryKeys } from '../deploy/keys.js'
import { isDeployed } from '../deploy/records/tokenMarkets.js'
import { DEPLOY_HISTORY_TTL_MS, parseTransactionRecord, type TransactionRecord } from '../deploy/sender/signedTransactions.js'
import type { DeployServices } from '../deploy/services.js'
import { applySwaps, withPoolRead } from '../market/chainCandles.js'
import { type ChainLaunch, type ChainMarketState, chainMarketStateSchema } from '../market/chainMarketState.js'
import { chainMarketKey } from '../read/keys.js'
import { listIndexed } from '../store/recordIndex.js'
import { parseRecord } from '../store/records.js'
import type { Store, WriteEntry } from '../store/types.js'
import { poolSwapKeys } from './keys.js'
import { readPoolState } from './poolState.js'
import { type PoolSwap, readPoolSwaps } from './poolSwaps.js'

/**
 * Blocks behind the chain's head a tick reads up to. Base's sequencer orders blocks and its unsafe head is rarely
 * rewritten; 5 blocks (10 s) keeps a reorged swap out at a cost of 10 s of delay on a once-a-minute tick.
 */
export const SWAP_CONFIRMATIONS = 5
/**
 * Most blocks one `eth_getLogs` asks for (and a tick reads): well within providers' range limits; 1,000 blocks are
 * 33 minutes of Base, so a service that was down catches up 33 minutes a tick.
 */
export const SWAP_BLOCKS_PER_CALL = 1000
/** Base's block time: a swap's time is its block's, counted back from the head when the node puts none on the log. */
export const BLOCK_SECONDS = 2
/** Pools followed at most (the newest launches): as many as the tick follows to DexScreener. */
export const POOLED_LAUNCHES_MAX = 300
/** The lock of one follow at a time (a slow tick overlapping the next): longer than a follow takes. */
const LOCK_MS = 30_000

/** What one follow of the launches' pools did. */
export type FollowPoolSwapsReturnType = {
  skipped?: 'no shared store' | 'another follow is running'
  /** Pools followed. */
  pools: number
  /** The blocks read (inclusive), as decimal strings; null when nothing new was safe to read. */
  fromBlock: string | null
  toBlock: string | null
  /** Swaps read, and launches whose market changed. */
  swaps: number
  updated: number
  /**
   * JSON-RPC calls made: 1 (the head) or 2 (and the logs), whatever the number of launches; then two StateView reads
   * (`getSlot0`, `getLiquidity`) per pool that traded in the blocks read: a quiet pool costs nothing.
   */
  rpcCalls: number
}

/** Parameters of {@link followPoolSwaps}. */
export type FollowPoolSwapsParameters = {
  services: Pick<DeployServices, 'store' | 'config' | 'publicClient' | 'clock'>
  /** WETH's USD price (the control room's), or null when unknown: USD fields are then null. */
  wethUsd: string | null
  /** Blocks behind the head read up to (default {@link SWAP_CONFIRMATIONS}). */
  confirmations?: number
}

/**
 * The launches with a pool that the tick follows, by pool id (lower-case): every one not known to have reverted. One
 * still marked broadcast is followed too, since its pool may trade before the tick's follow-up marks it confirmed, and
 * the blocks read are never read again.
 */
export function pooledLaunches(records: readonly (TransactionRecord | null)[]): Map<string, ChainLaunch> {
  const launches = new Map<string, ChainLaunch>()
  for (const record of records)
    if (
      record?.pool &&
      (isDeployed(record) || record.status === 'broadcast' || (record.status === 'replaced' && !record.replacementStatus))
    )
      launches.set(record.pool.poolId.toLowerCase(), chainLaunchOf({ ...record, pool: record.pool }))
  return launches
}

/** A pooled launch's record as the pool's market follows it: its token, pool, decimals, first price and whole supply. */
export function chainLaunchOf(record: TransactionRecord & { pool: NonNullable<TransactionRecord['pool']> }): ChainLaunch {
  const supply = wholeSupplyOf(record.data)
  return {
    token: record.predictedAddress.toLowerCase(),
    poolId: record.pool.poolId.toLowerCase(),
    decimals: record.decimals,
    sqrtPriceX96: record.pool.sqrtPriceX96,
    ...(supply !== null ? { supply: supply.toString() } : {}),
  }
}

/** The pooled launches followed (see {@link pooledLaunches}), from the newest {@link POOLED_LAUNCHES_MAX} of their index (one store read). */
export async function readPooledLaunches(store: Store, storePrefix: string, chainId: number): Promise<Map<string, ChainLaunch>> {
  const history = deployHistoryKeys({ storePrefix, chainId })
  const values = await listIndexed(store, { indexKey: history.pooled, recordPrefix: history.recordPrefix, limit: POOLED_LAUNCHES_MAX })
  return pooledLaunches(values.map(parseTransactionRecord))
}

/**
 * Reads the Swap logs of every launched pool since the last block read, up to {@link SWAP_CONFIRMATIONS} behind the
 * head and at most {@link SWAP_BLOCKS_PER_CALL} blocks: one call for the head, one `eth_getLogs` filtered by all the
 * pool ids (none when no launch has a pool). Each launch's market state takes its new swaps; the states and the last
 * block read are written in one store call. A swap is counted once: the range starts after the block last written,
 * and each state skips swaps at or before the last one it counted (so even two follows at once count it once).
 */
export async function followPoolSwaps({
  services,
  wethUsd,
  confirmations = SWAP_CONFIRMATIONS,
}: FollowPoolSwapsParameters): Promise<FollowPoolSwapsReturnType> {
  const { store, config } = services
  const none = { pools: 0, fromBlock: null, toBlock: null, swaps: 0, updated: 0, rpcCalls: 0 }
  if (!store) return { skipped: 'no shared store', ...none }
  // The pooled launches first: with none (a service whose launches have no pool), one store read and no RPC call.
  const launches = await readPooledLaunches(store, config.storePrefix, config.chainId)
  if (launches.size === 0) return none
  const keys = poolSwapKeys(config.storePrefix, config.chainId)
  const lock = randomUUID()
  if (!(await store.setIfAbsent(keys.lock, lock, LOCK_MS))) return { skipped: 'another follow is running', ...none }
  try {
    return await followUnderLock({
      services,
      wethUsd,
      confirmations,
      launches,
      release: { key: keys.lock, token: lock },
      cursorKey: keys.cursor,
    })
  } catch (error) {
    await store.releaseLock(keys.lock, lock).catch(() => false)
    throw error
  }
}

/** The follow, once its lock is held; its last write releases the lock. */
async function followUnderLock({
  services,
  wethUsd,
  confirmations,
  launches,
  release,
  cursorKey,
}: Required<FollowPoolSwapsParameters> & {
  launches: Map<string, ChainLaunch>
  release: { key: string; token: string }
  cursorKey: string
}): Promise<FollowPoolSwapsReturnType> {
  const { config, publicClient, clock } = services
  const store = services.store!
  const none = { pools: 0, fromBlock: null, toBlock: null, swaps: 0, updated: 0, rpcCalls: 0 }
  const cursor = await store.get(cursorKey)
  const head = (await publicClient.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as {
    number: Hex
    timestamp: Hex
  }
  let rpcCalls = 1
  const headNumber = BigInt(head.number)
  const safe = headNumber - BigInt(confirmations)
  const span = BigInt(SWAP_BLOCKS_PER_CALL)
  // No block read yet: the last call's worth before the safe head (a new service's launches are newer than that).
  let fromBlock = cursor && /^\d+$/.test(cursor) ? BigInt(cursor) + 1n : safe - span + 1n
  if (fromBlock < 0n) fromBlock = 0n
  const toBlock = safe < fromBlock + span - 1n ? safe : fromBlock + span - 1n
  if (toBlock < fromBlock) {
    await store.releaseLock(release.key, release.token)
    return { ...none, pools: launches.size, rpcCalls }
  }
  const poolIds = [...launches.keys()] as Hex[]
  const swaps = await readPoolSwaps({ client: publicClient, poolManager: config.uniswapV4.poolManager, poolIds, fromBlock, toBlock })
  if (poolIds.length > 0) rpcCalls += 1
  const byPool = new Map<string, PoolSwap[]>()
  for (const swap of swaps) byPool.set(swap.poolId, [...(byPool.get(swap.poolId) ?? []), swap])
  const touched = [...byPool.keys()].filter((poolId) => launches.has(poolId))
  const stateKeys = touched.map((poolId) => chainMarketKey(config.storePrefix, config.chainId, launches.get(poolId)!.token))
  const stored = stateKeys.length > 0 ? await store.getMany(stateKeys) : []
  const headTime = Number(BigInt(head.timestamp))
  const now = Math.floor(clock.now() / 1000)
  const entries: WriteEntry[] = []
  const after = await Promise.all(
    touched.map(async (poolId, i) => {
      const launch = launches.get(poolId)!
      const before: ChainMarketState | null = parseRecord(chainMarketStateSchema, stored[i] ?? null)
      const swapped = applySwaps({
        state: before,
        launch,
        swaps: byPool.get(poolId)!.map((swap) => ({
          amount0: swap.amount0,
          sqrtPriceX96: swap.sqrtPriceX96,
          blockNumber: swap.blockNumber,
          logIndex: swap.logIndex,
          at: swap.blockTimestamp ?? headTime - Number(headNumber - swap.blockNumber) * BLOCK_SECONDS,
        })),
        wethUsd,
        now,
      })
      // StateView at the last block read: the price after these swaps, and the liquidity now in range (two calls).
      rpcCalls += 2
      const read = await readPoolState({
        client: publicClient,
        stateView: config.uniswapV4.stateView,
        poolId: poolId as Hex,
        blockNumber: toBlock,
      })
      return withPoolRead({ state: swapped, launch, read, at: now })
    }),
  )
  for (const [i, state] of after.entries()) {
    if (!state || JSON.stringify(state) === stored[i]) continue
    entries.push({ key: stateKeys[i]!, value: JSON.stringify(state), ttlMs: DEPLOY_HISTORY_TTL_MS })
  }
  entries.push({ key: cursorKey, value: toBlock.toString(), ttlMs: DEPLOY_HISTORY_TTL_MS })
  await store.writeMany({ entries, releaseLock: release })
  return {
    pools: launches.size,
    fromBlock: fromBlock.toString(),
    toBlock: toBlock.toString(),
    swaps: swaps.length,
    updated: entries.length - 1,
    rpcCalls,
  }
}
