import { randomUUID } from 'node:crypto'
import type { FollowDeploysReturnType } from '../deploy/pipeline/followDeploys.js'
import type { DeployServices } from '../deploy/services.js'
import { takeSnapshot } from '../market/history.js'
import { type ControlRoom, controlRoomSchema } from '../market/types.js'
import { BaseError } from '../platform/errors.js'
import { errorName, type Logger, publicErrorMessage, unexpectedErrorFields } from '../platform/log.js'
import { accepted, type Result, refused } from '../platform/result.js'
import { refreshControlRoom } from '../read/controlRoom/refresh.js'
import { recordSnapshot } from '../read/history/historyStore.js'
import { backfillPriceLines } from '../read/history/priceBackfill.js'
import { readKeys } from '../read/keys.js'
import { READ_CACHE_TTL_MS } from '../read/readers.js'
import type { ReadServices } from '../read/services.js'
import { discoverIfDue } from '../read/universe/discovery.js'
import { parseRecord } from '../store/records.js'
import { StoreError } from '../store/types.js'
import { tickKeys } from './keys.js'
import { type LastTick, saveLastTick } from './lastTick.js'

/** The tick's parts, in the order they are reported. */
export const TICK_PARTS = [
  'controlRoom',
  'snapshot',
  'backfill',
  'deploys',
  'markets',
  'chainMarkets',
  'webhooks',
  'payments',
  'discovery',
] as const

/** WETH on Base: its price in the control room turns a launch's ETH price and volume into USD. */
const WETH_ADDRESS = '0x4200000000000000000000000000000000000006'

/**
 * One part's outcome: what it did, or why it failed (the error's name, its code, `INTERNAL` for an error not the
 * service's own, and its public message; never a secret).
 */
export type TickPartResult = Result<{ [detail: string]: unknown }, string, { error: string; message?: string }>

/** What a tick answers. */
export type TickSummary = {
  ok: boolean
  /** False when another tick already ran within this interval (across instances): nothing was done. */
  ran: boolean
  caller: string
  startedAt: string
  durationMs: number
  /** Each part's outcome (when the tick ran). */
  parts?: Partial<Record<(typeof TICK_PARTS)[number], TickPartResult>>
  /** The parts that failed. */
  failed?: string[]
}

/** Parameters of {@link runTick}. */
export type RunTickParameters = {
  read: ReadServices
  /** The deploy services, loaded on demand; a failure to load fails the deploys part only. */
  deploy: () => Promise<DeployServices>
  /** Who called (for the summary and health). */
  caller: string
  /** The schedule's interval: a tick claims it, so ticks closer together than about this do the work once. */
  intervalSeconds: number
}

/**
 * The service's scheduled work, claimed once per interval across instances: keeps the control room fresh (refreshed when
 * its body is older than the 30 s window), writes the snapshot of the current 5-minute mark, backfills the listed tokens'
 * price lines from candles, follows unmined deploys (outcomes recorded, stuck ones replaced), follows deployed tokens to
 * the market, follows the swaps of launched pools on chain, retries due webhook deliveries, decides paid deploys' payments left undecided from the chain, and runs
 * discovery when due.
 * Each part runs on its own: one failing is logged and named in the answer, and never stops the others.
 */
export async function runTick({ read, deploy, caller, intervalSeconds }: RunTickParameters): Promise<TickSummary> {
  const { store, keyPrefix, logger } = read
  const startedAt = read.now()
  if (!(await claimInterval(read, startedAt, intervalSeconds)))
    return { ok: true, ran: false, caller, startedAt: new Date(startedAt).toISOString(), durationMs: read.now() - startedAt }

  const { parts, part } = createPartRunner(logger)
  let roomTokens: (tokens: ControlRoom['liveActivity'] | null) => void = () => {}
  const tokensReady = new Promise<ControlRoom['liveActivity'] | null>((resolve) => {
    roomTokens = resolve
  })
  await Promise.all([runReadParts(read, part, roomTokens), runDeployParts(read, deploy, part, tokensReady)])

  const failed = TICK_PARTS.filter((name) => parts[name] && !parts[name]!.ok)
  const summary: TickSummary = {
    ok: failed.length === 0,
    ran: true,
    caller,
    startedAt: new Date(startedAt).toISOString(),
    durationMs: read.now() - startedAt,
    parts,
    failed,
  }
  const last: LastTick = { at: summary.startedAt, durationMs: summary.durationMs, caller, failed, parts }
  await saveLastTick(store, keyPrefix, last).catch((error: unknown) => logStepFailure(logger, 'tick_last', error))
  logger.info('tick', { caller, durationMs: summary.durationMs, failed: failed.join(',') })
  return summary
}

/**
 * One claim per interval of the schedule (on the service's clock): duplicates and concurrent ticks in it do nothing.
 * Without the store the parts degrade on their own; a tick that cannot claim still does its work.
 */
async function claimInterval(
  read: Pick<ReadServices, 'store' | 'keyPrefix' | 'logger'>,
  startedAt: number,
  intervalSeconds: number,
): Promise<boolean> {
  const intervalMs = Math.max(1, intervalSeconds) * 1000
  const claimKey = tickKeys(read.keyPrefix).claim(Math.floor(startedAt / intervalMs))
  return read.store.setIfAbsent(claimKey, randomUUID(), 2 * intervalMs).catch((error: unknown) => {
    logStepFailure(read.logger, 'tick_claim', error, 'tick runs unclaimed')
    return true
  })
}

/** A step of the tick's own bookkeeping failed: `store_unavailable` when the store did, else the error as it is. */
function logStepFailure(logger: Logger, operation: string, error: unknown, effect?: string): void {
  if (error instanceof StoreError) logger.warn('store_unavailable', { operation, error: errorName(error), effect })
  else logger.error('tick_step_failed', { operation, ...unexpectedErrorFields(error), effect })
}

/** The cached control room does not parse: the tick's parts have no tokens to work from. */
export class UnreadableControlRoomError extends BaseError<'CONTROL_ROOM_UNREADABLE'> {
  override name = 'UnreadableControlRoom'
  constructor(message: string) {
    super(message, { code: 'CONTROL_ROOM_UNREADABLE' })
  }
}

/** A part that needs the control room, when the room's own part failed (its failure is the one logged). */
export class NoControlRoomError extends BaseError<'NO_CONTROL_ROOM'> {
  override name = 'NoControlRoom'
  constructor(message: string) {
    super(message, { code: 'NO_CONTROL_ROOM' })
  }
}

type Parts = NonNullable<TickSummary['parts']>
/** Runs one part on its own: its result or its failure goes into the summary, and never stops the others. */
type RunPart = <T extends Record<string, unknown>>(name: (typeof TICK_PARTS)[number], run: () => Promise<T>) => Promise<T | null>

function createPartRunner(logger: Logger): { parts: Parts; part: RunPart } {
  const parts: Parts = {}
  const part: RunPart = async (name, run) => {
    try {
      const result = await run()
      parts[name] = accepted(result)
      return result
    } catch (error) {
      const message = publicErrorMessage(error)
      const code = error instanceof BaseError ? error.code : 'INTERNAL'
      parts[name] = refused(code, { error: errorName(error), ...(message ? { message } : {}) })
      // A part that could not start because the room failed is named in the answer; the room's failure is the line.
      if (!(error instanceof NoControlRoomError)) logger.warn('tick_part_failed', { part: name, error: errorName(error), message })
      return null
    }
  }
  return { parts, part }
}

/** The read parts: the control room first, then from its tokens the snapshot, the backfill and the discovery. */
async function runReadParts(
  read: ReadServices,
  part: RunPart,
  roomTokens: (tokens: ControlRoom['liveActivity'] | null) => void,
): Promise<void> {
  const { store, keyPrefix, logger } = read
  let tokens: ControlRoom['liveActivity'] | null = null
  // A refresh writes the snapshot of its mark and runs the discovery that is due: the tick does neither again.
  let roomRefreshed = false
  await part('controlRoom', async () => {
    const { entry, refreshed } = await read.cache.refreshIfOlder({
      key: readKeys(keyPrefix).controlRoom,
      ttlMs: READ_CACHE_TTL_MS,
      olderThanMs: READ_CACHE_TTL_MS,
      refresh: () => refreshControlRoom(read),
    })
    const room = parseRecord(controlRoomSchema, entry.body)
    if (!room) throw new UnreadableControlRoomError('the cached control room is not one')
    tokens = room.liveActivity
    roomRefreshed = refreshed
    return {
      refreshed,
      ageSeconds: Math.max(0, Math.floor((read.now() - entry.fetchedAt) / 1000)),
      tokens: tokens.length,
      ...(entry.source ? { source: entry.source } : {}),
    }
  })
  roomTokens(tokens)
  const needsRoom = (): ControlRoom['liveActivity'] => {
    if (!tokens) throw new NoControlRoomError('no control room to work from (its part failed)')
    return tokens
  }
  await Promise.all([
    part('snapshot', async () => {
      const snapshot = takeSnapshot(needsRoom(), read.now())
      if (roomRefreshed) return { mark: new Date(snapshot.t).toISOString(), written: true, by: 'refresh' }
      const written = await recordSnapshot({ store, keyPrefix, snapshot, logger })
      return { mark: new Date(snapshot.t).toISOString(), written }
    }),
    part('backfill', async () => ({ ...(await backfillPriceLines({ services: read, tokens: needsRoom() })) })),
    part('discovery', async () =>
      roomRefreshed ? { due: false, pages: 0, failedPages: 0, learned: 0, by: 'refresh' } : { ...(await discoverIfDue(read)) },
    ),
  ])
}

/** The deploy parts, each loading the deploy services only when it runs. */
async function runDeployParts(
  read: ReadServices,
  deploy: () => Promise<DeployServices>,
  part: RunPart,
  tokensReady: Promise<ControlRoom['liveActivity'] | null>,
): Promise<void> {
  await Promise.all([
    part(
      'deploys',
      async (): Promise<FollowDeploysReturnType> => (await import('../deploy/pipeline/followDeploys.js')).followDeploys(await deploy()),
    ),
    // Without a signer there are no deploys to follow or tell: neither part spends a store command.
    part('markets', async () => {
      const services = await deploy()
      if (!services.getSigner) return { skipped: 'no signer configured' }
      const { refreshDeployMarkets } = await import('../deploy/records/tokenMarket.js')
      return { ...(await refreshDeployMarkets({ services, upstream: read.upstream, reserveUpstream: read.reserveUpstream })) }
    }),
    // Launched pools' swaps, read from the chain: a bounded number of RPC calls whatever the number of launches.
    part('chainMarkets', async () => {
      const services = await deploy()
      if (!services.getSigner) return { skipped: 'no signer configured' }
      const [{ followPoolSwaps }, tokens] = await Promise.all([import('../deploy/records/chainMarkets.js'), tokensReady])
      const weth = tokens?.find((token) => token.address.toLowerCase() === WETH_ADDRESS)
      const wethUsd = weth?.priceUsd && /^\d+(\.\d+)?$/.test(weth.priceUsd) ? weth.priceUsd : null
      return { ...(await followPoolSwaps({ services, wethUsd })) }
    }),
    part('webhooks', async () => {
      const { webhooks, getSigner } = await deploy()
      if (!getSigner) return { skipped: 'no signer configured' }
      return webhooks ? { ...(await webhooks.deliverDue()) } : { skipped: 'no shared store' }
    }),
    // Paid deploys whose settle nobody saw end, decided from the chain a few at a time (no signer: none were paid).
    part('payments', async () => {
      const services = await deploy()
      const { store, getSigner, config } = services
      if (!getSigner || !store) return { skipped: getSigner ? 'no shared store' : 'no signer configured' }
      const [{ reconcilePayments }, { paymentKeys }] = await Promise.all([
        import('../payments/reconcile.js'),
        import('../payments/keys.js'),
      ])
      const keys = paymentKeys({ storePrefix: config.storePrefix, chainId: config.chainId })
      return { ...(await reconcilePayments({ services: { ...services, store }, keys })) }
    }),
  ])
}
