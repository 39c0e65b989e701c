// A launched token as the chain has it now: its powers (who holds each role, cap, supply, pauses, what the service's
// signer still holds), its metadata, and with a pool its position (owner, liquidity, price, fees owed). What never
// changes once known (the deploy it came from, its creation block and creator, its position's id) and the role logs
// read so far are kept per token, so a read scans only the blocks since the last one, a bounded number at most.
import { type Address, getAddress, type Hex, type PublicClient } from 'viem'
import { z } from 'zod'
import { type RoleCandidates, scanRoleLogs } from '../../chain/roleLogs.js'
import { readTokenPowers, type TokenMetadataView, type TokenPowers } from '../../chain/tokenPowers.js'
import { NotFoundError } from '../../platform/errors.js'
import { parseRecord } from '../../store/records.js'
import type { Store } from '../../store/types.js'
import { type DeployHistoryKeys, deployHistoryKeys, launchStateKey } from '../keys.js'
import { type DeployResult, failure } from '../outcome.js'
import { type PositionState, readPositionState } from '../pool/positionFees.js'
import { DEPLOY_HISTORY_TTL_MS, readTransactionRecord, type TransactionRecord } from '../sender/signedTransactions.js'
import type { DeployServices } from '../services.js'
import { findLaunchRecord } from './launchLookup.js'
import { readPoolReceipt } from './poolReceipt.js'

/** The B20 address form: `0xB2`, nine zero bytes, the variant byte (0 or 1), then the hash's nine bytes. */
const B20_ADDRESS = /^0xb2(00){9}0[01][0-9a-f]{18}$/i

/** What is kept per launched token (its key: keys.ts's `launchStateKey`). */
const launchStateSchema = z.object({
  /** The deploy as first sent (its record's key). */
  txHash: z.string(),
  decimals: z.number().int(),
  /** Who sent its createB20: the service's signer, which the token's address is derived from. */
  creator: z.string(),
  /** Who asked for the launch: its deploy record's `agent` (absent from states kept before it was). */
  agent: z.string().optional(),
  creationBlock: z.string(),
  /** The pool's position once its mint is seen mined; null: no pool (or it failed); absent: not known yet. */
  pool: z
    .object({
      poolId: z.string(),
      fee: z.number(),
      tickSpacing: z.number(),
      tickLower: z.number(),
      tickUpper: z.number(),
      positionId: z.string(),
    })
    .nullable()
    .optional(),
  /** The role logs read so far, folded, and the first block not read yet. */
  candidates: z.record(z.string(), z.array(z.string())),
  nextBlock: z.string(),
})

/** A launched token's powers, metadata and pool at `blockNumber`. */
export type LaunchState = {
  token: Address
  decimals: number
  /** The service's signer that created it (the account whose roles are `signerRoles`). */
  creator: Address
  /** Who asked for the launch (its deploy record's agent: a key's digest, or `x402:<payer>`); null: not known. */
  launcher: string | null
  /** Its name and symbol now. */
  name: string
  symbol: string
  blockNumber: string
  /** Whether the role logs were read up to `blockNumber`; false: later grants may be missing (the next read goes on). */
  rolesComplete: boolean
  powers: TokenPowers
  metadata: TokenMetadataView | null
  /** The position of a pooled launch once seeded; null: no pool, or not seeded (failed, or not mined yet). */
  pool: (Omit<PositionState, 'sqrtPriceX96' | 'tick' | 'poolLiquidity'> & PoolFacts) | null
  /** What collect_fees builds its call from (not part of an answer). */
  position: (PositionState & PoolFacts) | null
}

/** What is known of a seeded pool for good. */
export type PoolFacts = { fee: number; tickSpacing: number; tickLower: number; tickUpper: number }

/** How a lookup finds a token's deploy record when nothing is kept for it yet. */
export type FindLaunchRecord = (token: Address) => Promise<TransactionRecord | null>

/** Parameters of {@link readLaunchState}. */
export type ReadLaunchStateParameters = {
  services: Pick<DeployServices, 'publicClient' | 'store' | 'config'>
  token: Address
  /** Finds the deploy when the token has no kept state (default: {@link findLaunchRecord} over the deploy index). */
  findRecord?: FindLaunchRecord
}

/** The answer of {@link readLaunchState}: the state, or a launch not mined yet (`LAUNCH_PENDING`). */
export type ReadLaunchStateReturnType = DeployResult<{ state: LaunchState }>

/** A token that is not one of this service's launches: 404 `NOT_A_LAUNCH` on every path. */
export const notALaunch = (token: string) =>
  new NotFoundError('NOT_A_LAUNCH', `${token} is not a token launched through this service (or its launch is older than 30 days).`)

/**
 * Reads a launched token now: its kept state (or, the first time, its deploy, creation receipt and creator), the role
 * logs since the last read (at most a few bounded chunks), then its powers and position at the head, each in one
 * eth_call. Throws {@link notALaunch} for a token that is not a launch here; answers `LAUNCH_PENDING` while its deploy
 * is not mined.
 */
export async function readLaunchState({ services, token, findRecord }: ReadLaunchStateParameters): Promise<ReadLaunchStateReturnType> {
  const { store, config, publicClient: client } = services
  if (!store || !B20_ADDRESS.test(token)) throw notALaunch(token)
  const keys = deployHistoryKeys({ storePrefix: config.storePrefix, chainId: config.chainId })
  const stateKey = launchStateKey(config.storePrefix, config.chainId, token)
  // What is kept of the token and where its deploy is, in one read: an address that is no launch here costs just that.
  const [state, pointer, complete] = await store.getMany([stateKey, keys.launchOf(token), keys.launchOfComplete])
  const stored = parseRecord(launchStateSchema, state)
  let kept = stored
  let record: TransactionRecord | null = null
  if (!kept) {
    const find =
      findRecord ?? ((address) => findLaunchRecord(store, keys, address, { pointer: pointer ?? null, complete: complete ?? null }))
    record = await find(token)
    if (!record) throw notALaunch(token)
    const born = await bornState(client, store, keys, record)
    if (!born.ok) return born
    kept = born.kept
  }
  // Nothing kept yet: the first read writes it all.
  const before = stored ? { ...stored } : null
  if (kept.agent === undefined) {
    record ??= await readTransactionRecord(store, keys, kept.txHash)
    if (record) kept.agent = record.agent
  }
  // A pool whose mint was not seen yet: its record says where it stands (the mint's receipt names the position).
  if (kept.pool === undefined) {
    record ??= await readTransactionRecord(store, keys, kept.txHash)
    const pool = record?.pool ? await readPoolReceipt({ services, keys, record }) : null
    if (!record?.pool || pool?.status === 'failed' || (pool?.status === 'seeded' && !pool.positionId)) kept.pool = null
    else if (pool?.status === 'seeded' && pool.positionId) {
      const { poolId, fee, tickSpacing, tickLower, tickUpper } = record.pool
      kept.pool = { poolId, fee, tickSpacing, tickLower, tickUpper, positionId: pool.positionId }
    }
  }
  // The head as the node has it now (viem would answer a number it read up to a few seconds ago), and never before the
  // token's creation: a node behind its peer may answer an older head than the receipt's.
  const latest = await client.getBlockNumber({ cacheTime: 0 })
  const head = latest > BigInt(kept.creationBlock) ? latest : BigInt(kept.creationBlock)
  const scan =
    BigInt(kept.nextBlock) <= head
      ? await scanRoleLogs({
          client,
          token,
          candidates: kept.candidates as RoleCandidates,
          fromBlock: BigInt(kept.nextBlock),
          toBlock: head,
        })
      : { candidates: kept.candidates as RoleCandidates, nextBlock: BigInt(kept.nextBlock), complete: true }
  kept = { ...kept, candidates: scan.candidates, nextBlock: scan.nextBlock.toString() }
  const keptPool = kept.pool ?? null
  const [read, position] = await Promise.all([
    readTokenPowers({
      client,
      token,
      decimals: kept.decimals,
      candidates: scan.candidates,
      signer: getAddress(kept.creator),
      blockNumber: head,
    }),
    keptPool
      ? readPositionState({
          client,
          stateView: config.uniswapV4.stateView,
          positionManager: config.uniswapV4.positionManager,
          poolId: keptPool.poolId as Hex,
          positionId: BigInt(keptPool.positionId),
          tickLower: keptPool.tickLower,
          tickUpper: keptPool.tickUpper,
          decimals: kept.decimals,
          blockNumber: head,
        })
      : null,
  ])
  if (worthKeeping(before, kept)) await store.set(stateKey, JSON.stringify(kept), DEPLOY_HISTORY_TTL_MS)
  const facts = keptPool
    ? { fee: keptPool.fee, tickSpacing: keptPool.tickSpacing, tickLower: keptPool.tickLower, tickUpper: keptPool.tickUpper }
    : null
  const full = position && facts ? { ...position, ...facts } : null
  return {
    ok: true,
    state: {
      token: getAddress(token),
      decimals: kept.decimals,
      creator: getAddress(kept.creator),
      launcher: kept.agent ?? null,
      name: read.name,
      symbol: read.symbol,
      blockNumber: head.toString(),
      rolesComplete: scan.complete,
      powers: read.powers,
      metadata: read.metadata,
      pool: full ? poolView(full) : null,
      position: full,
    },
  }
}

/**
 * Blocks the scan may move on before what is kept is written again for that alone: a read between writes scans them
 * once more (one eth_getLogs), rather than every read writing (a block is about 2 s on Base).
 */
export const KEPT_SCAN_STRIDE_BLOCKS = 900n

/** Whether a read learned something worth a store write: anything but the scan's progress, or progress of a stride. */
function worthKeeping(before: z.infer<typeof launchStateSchema> | null, after: z.infer<typeof launchStateSchema>): boolean {
  if (!before) return true
  const { nextBlock: was, ...rest } = before
  const { nextBlock: now, ...restNow } = after
  return JSON.stringify(rest) !== JSON.stringify(restNow) || BigInt(now) - BigInt(was) >= KEPT_SCAN_STRIDE_BLOCKS
}

/** The pool as an answer shows it: the position without the pool state the SDK's entities are built from. */
function poolView({ sqrtPriceX96: _price, tick: _tick, poolLiquidity: _liquidity, ...view }: PositionState & PoolFacts) {
  return view
}

/** What is kept of a token the first time it is read: its deploy's creation (or why there is none to read yet). */
async function bornState(
  client: PublicClient,
  store: Store,
  keys: DeployHistoryKeys,
  record: TransactionRecord,
): Promise<DeployResult<{ kept: z.infer<typeof launchStateSchema> }>> {
  const token = record.predictedAddress
  const born = await creationOf(client, store, keys, record)
  if (born === 'reverted') throw notALaunch(token)
  if (born === 'pending')
    return failure('LAUNCH_PENDING', `${token} is launched but its deploy is not mined yet; ask again in a few seconds.`, {
      retryAfterSeconds: 2,
      txHash: record.originalTxHash ?? record.txHash,
    })
  const kept = {
    txHash: record.originalTxHash ?? record.txHash,
    decimals: record.decimals,
    creator: born.creator,
    agent: record.agent,
    creationBlock: born.block.toString(),
    candidates: {},
    nextBlock: born.block.toString(),
    ...(record.pool ? {} : { pool: null }),
  }
  return { ok: true, kept }
}

/** Most replacements of a deploy followed to the copy that was mined. */
const REPLACED_HOPS_MAX = 5

/** Where a deploy landed: its block and sender; or still pending; or reverted (no token). */
async function creationOf(
  client: PublicClient,
  store: Store,
  keys: DeployHistoryKeys,
  record: TransactionRecord,
): Promise<{ block: bigint; creator: Address } | 'pending' | 'reverted'> {
  let current: TransactionRecord | null = record
  for (let hop = 0; current && hop <= REPLACED_HOPS_MAX; hop++) {
    const receipt = await client.getTransactionReceipt({ hash: current.txHash }).catch(() => null)
    if (receipt) return receipt.status === 'success' ? { block: receipt.blockNumber, creator: getAddress(receipt.from) } : 'reverted'
    current = current.replacedBy ? await readTransactionRecord(store, keys, current.replacedBy) : null
  }
  return 'pending'
}
