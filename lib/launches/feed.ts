import type { Address, PublicClient } from 'viem'
import { birthViewOf, wholeSupplyOf } from '../chain/birthView.js'
import { deployHistoryKeys } from '../deploy/keys.js'
import { startValuation } from '../deploy/pool/startPrice.js'
import { readCreatorRoles } from '../deploy/records/signerRoles.js'
import { isDeployed, readTokenMarkets } from '../deploy/records/tokenMarkets.js'
import { parseTransactionRecord, type TransactionRecord } from '../deploy/sender/signedTransactions.js'
import type { ConfirmedHook } from '../deploy/services.js'
import { chainMarketOf } from '../market/chainCandles.js'
import { type ChainMarketState, chainMarketStateSchema } from '../market/chainMarketState.js'
import { errorName, type Logger } from '../platform/log.js'
import { chainMarketKey } from '../read/keys.js'
import { listIndexed } from '../store/recordIndex.js'
import { parseRecord } from '../store/records.js'
import type { Store } from '../store/types.js'
import { chainEventsChannel, launchSignalKey } from './keys.js'
import { announceLaunch } from './launchSignal.js'
import { recordPoolBirth } from './poolBirth.js'
import type { Launch } from './schema.js'
import type { TokenMarket } from './tokenMarket.js'

// The launches as the public sees them: every agent's deploys, both doors, from the shared deploy index with their
// markets (DexScreener's once it lists the token, else the launch pool's own), and the announcement of one confirmed,
// which the deploy side's receipt and follow-up make (launchSignal.ts keeps and publishes it).

/**
 * Launches the public feed holds at most: the newest of the deploy index (itself at most 1,000, and 30 days), as many
 * as the tick follows to the market, so a refresh of the feed reads no more records than a tick does.
 */
export const LAUNCH_FEED_MAX = 300

/**
 * A deploy as the public sees it (no agent digest, no signing material), or null for one that created no token (it
 * reverted, or its replacement did). A replacement is listed under the hash the agent's deploy was first sent with.
 * `powers` as read from the chain; null: unknown.
 */
export function toLaunch(record: TransactionRecord, market: TokenMarket | null, powers: Launch['powers'] = null): Launch | null {
  if (record.status === 'reverted' || (record.status === 'replaced' && record.replacementStatus === 'reverted')) return null
  const birth = birthViewOf(record.data, record.decimals)
  const supply = wholeSupplyOf(record.data)
  return {
    address: record.predictedAddress,
    name: record.name,
    symbol: record.symbol,
    variant: record.variant,
    decimals: record.decimals,
    initialSupply: birth.initialSupply,
    supplyCap: birth.supplyCap,
    createdAt: new Date(record.createdAt).toISOString(),
    txHash: record.originalTxHash ?? record.txHash,
    status: isDeployed(record) ? 'confirmed' : 'broadcast',
    roles: { admin: birth.admin, minter: birth.minter },
    pool: record.pool
      ? {
          poolId: record.pool.poolId,
          fee: record.pool.fee,
          owner: record.pool.owner,
          ...startValuation({ sqrtPriceX96: BigInt(record.pool.sqrtPriceX96), decimals: record.decimals, wholeSupply: supply ?? 0n }),
        }
      : null,
    powers,
    market,
    metadata: birth.metadata,
  }
}

/**
 * The chain the feed reads its launches' powers from when its body is made: a client, and the service's signer when
 * configured without KMS (`SIGNER_ADDRESS`), which a launch recorded before its sender was kept is checked against.
 */
export type LaunchesChain = { client: PublicClient; signer: Address | null }

/** Parameters of {@link listLaunches}. */
export type ListLaunchesParameters = {
  store: Store
  storePrefix: string
  chainId: number
  limit?: number
  /** Epoch ms: a chain market's 24 h figures are counted back from it. */
  now: number
  /** WETH's USD price in the control room now (null: unknown): a chain market's USD figures go through it. */
  wethUsd: string | null
  /** Where the signer's roles on the confirmed launches are read (one eth_call); absent: every `powers` is null. */
  chain?: () => Promise<LaunchesChain>
  /** Where a failed read of the chain is told (the feed goes out with `powers: null`). */
  logger?: Logger
}

/**
 * The newest launches of every agent, both doors, newest first (then by hash), from the shared deploy index: its
 * members, their records, and the markets of the confirmed ones (DexScreener's once it lists the token, else what
 * the launch pool's swaps say); four store round trips for up to 300 launches. Beside the markets, with a chain, the
 * roles their signer still holds: one eth_call for every confirmed launch.
 */
export async function listLaunches({
  store,
  storePrefix,
  chainId,
  limit = LAUNCH_FEED_MAX,
  now,
  wethUsd,
  chain,
  logger,
}: ListLaunchesParameters): Promise<Launch[]> {
  const keys = deployHistoryKeys({ storePrefix, chainId })
  const values = await listIndexed(store, { indexKey: keys.recent, recordPrefix: keys.recordPrefix, limit })
  const records = values.map(parseTransactionRecord).filter((r): r is TransactionRecord => r !== null)
  const deployed = records.filter(isDeployed).map((r) => r.predictedAddress.toLowerCase())
  const pooled = records.filter((r) => r.pool && isDeployed(r)).map((r) => r.predictedAddress.toLowerCase())
  const [markets, chainMarkets, roles] = await Promise.all([
    readTokenMarkets(store, storePrefix, chainId, deployed),
    pooled.length > 0 ? store.getMany(pooled.map((address) => chainMarketKey(storePrefix, chainId, address))) : [],
    chain ? signerRolesOf(chain, records.filter(isDeployed), logger) : new Map<string, string[] | null>(),
  ])
  const marketOf = new Map<string, TokenMarket | null>(
    pooled.map((address, i) => [address, chainMarket(parseRecord(chainMarketStateSchema, chainMarkets[i] ?? null), now, wethUsd)]),
  )
  for (const [i, address] of deployed.entries()) if (markets[i]) marketOf.set(address, markets[i])
  const powersOf = (address: string) => {
    const signerRoles = roles.get(address)
    return signerRoles ? { signerRoles } : null
  }
  return records
    .map((record) => {
      const address = record.predictedAddress.toLowerCase()
      return toLaunch(record, marketOf.get(address) ?? null, powersOf(address))
    })
    .filter((launch): launch is Launch => launch !== null)
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || b.txHash.toLowerCase().localeCompare(a.txHash.toLowerCase()))
}

/**
 * The roles the signer still holds on each confirmed launch, read in one eth_call (none when no launch is confirmed);
 * a failed read is logged, and leaves every launch's powers unknown.
 */
async function signerRolesOf(
  chain: () => Promise<LaunchesChain>,
  records: readonly TransactionRecord[],
  logger: Logger | undefined,
): Promise<Map<string, string[] | null>> {
  if (records.length === 0) return new Map()
  try {
    const { client, signer } = await chain()
    return await readCreatorRoles({ client, records, signer })
  } catch (error) {
    logger?.warn('launch_powers_unread', { launches: records.length, error: errorName(error) })
    return new Map()
  }
}

/** A chain market state as the launch's `market`, or null. */
function chainMarket(state: ChainMarketState | null, now: number, wethUsd: string | null): TokenMarket | null {
  return state ? chainMarketOf(state, Math.floor(now / 1000), wethUsd) : null
}

/** Parameters of {@link signalConfirmedLaunch}. */
export type SignalConfirmedLaunchParameters = {
  store: Store
  storePrefix: string
  chainId: number
  /** The copy of the deploy that was mined (a replacement names its original). */
  record: TransactionRecord
  /** Its market as known now (a pooled launch's, from its pool's birth); null: none yet. */
  market?: TokenMarket | null
  now: number
  logger: Logger
}

/**
 * Tells open streams on every instance that a deploy is confirmed: its launch (market not yet known) goes into the
 * signal key and out on the chain's events channel, once per deploy. A failure costs the event (or delays it to a
 * listener's next catch-up read), never the receipt or the follow-up that learned it.
 */
export async function signalConfirmedLaunch({
  store,
  storePrefix,
  chainId,
  record,
  market = null,
  now,
  logger,
}: SignalConfirmedLaunchParameters): Promise<void> {
  const launch = toLaunch({ ...record, status: 'confirmed' }, market)
  if (!launch) return
  try {
    await announceLaunch({
      store,
      key: launchSignalKey(storePrefix, chainId),
      channel: chainEventsChannel(storePrefix, chainId),
      launch,
      now,
    })
  } catch (error) {
    logger.warn('launch_signal_failed', { txHash: launch.txHash, error: errorName(error) })
  }
}

/**
 * The deploy side's {@link ConfirmedHook} of this room: a confirmed deploy announced as a launch (nothing without a
 * store), a pooled one with its market from its pool's birth (poolBirth.ts).
 */
export const announceConfirmedLaunch: ConfirmedHook = async (services, record) => {
  const { store, config, clock, logger } = services
  if (!store) return
  const signal = (market: TokenMarket | null) =>
    signalConfirmedLaunch({ store, storePrefix: config.storePrefix, chainId: config.chainId, record, market, now: clock.now(), logger })
  if (!record.pool) return signal(null)
  // A pooled launch's market is read from the chain after the answer (StateView, two round trips), so a deploy that
  // waited for its receipt answers no later for it; its launch event goes out with that market.
  services.background(
    (async () => {
      const [state, wethUsd] = await Promise.all([
        recordPoolBirth({ services: { ...services, store }, record }).catch((error: unknown) => {
          // The first swap writes it then: a price late, never a launch lost.
          logger.warn('pool_birth_read_failed', { txHash: record.txHash, error: errorName(error) })
          return null
        }),
        services.wethUsd(),
      ])
      await signal(state && chainMarketOf(state, Math.floor(clock.now() / 1000), wethUsd))
    })(),
  )
}
