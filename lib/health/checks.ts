import type { Address } from 'viem'
import { deployHistoryKeys, deployStoreKeys } from '../deploy/keys.js'
import { countCapSlots } from '../deploy/pipeline/capWindow.js'
import { listUnmined } from '../deploy/sender/signedTransactions.js'
import type { DeployServices } from '../deploy/services.js'
import { BaseError } from '../platform/errors.js'
import { errorName } from '../platform/log.js'
import { SERVICE_VERSION } from '../platform/version.js'
import { parseCachedBody } from '../read/cache/cachedBody.js'
import { readKeys } from '../read/keys.js'
import type { ReadServices } from '../read/services.js'
import { tickKeys } from '../tick/keys.js'
import { type LastTick, parseLastTick } from '../tick/lastTick.js'
import type { HealthConfig } from './config.js'
import { healthProbeKey } from './keys.js'

/**
 * What anyone may see: whether the service can answer, its version, how old the market data is, and how long ago the
 * scheduled tick last ran (null: never, or not in the last 7 days).
 */
export type PublicHealth = { ok: boolean; version: string; dataAgeSeconds: number | null; lastTickAgeSeconds: number | null }

/** One part of the detailed view: up or down, and what was seen. */
export type HealthPart = { ok: boolean; latencyMs?: number; error?: string; [detail: string]: unknown }

/** The detailed view (with `Authorization: Bearer <HEALTH_TOKEN>`): every part the service depends on. */
export type DetailedHealth = PublicHealth & {
  store: HealthPart
  upstreams: { dexscreener: HealthPart; geckoterminal: HealthPart }
  rpc: HealthPart
  signer: HealthPart
  deploys: HealthPart
  /** The EIP-7702 executor: its `address` (never the signer's) and whether its code is the pinned one. */
  delegation: HealthPart
  /**
   * B20's variants as Base's ActivationRegistry says (`active` or `inactive`), as deploys see them: kept a few
   * minutes per instance (`checkedAgeSeconds`). Down when the registry could not be asked; a variant switched off is
   * not a part down (deploys of it are refused `VARIANT_NOT_ACTIVE`).
   */
  variants: HealthPart
  /** The scheduled tick: when it last ran, what it did and what failed. */
  tick: HealthPart
}

/** A tick older than this counts as the schedule having stopped. */
export const TICK_STALE_SECONDS = 600

/** Longest one part may take to answer before it counts as down. */
export const HEALTH_PART_TIMEOUT_MS = 3000

/**
 * A health part that is down for a reason the probe names itself (a deadline passed, nothing configured, the chain
 * is another one): `name` is that reason, as the detailed view reports every failure by its error's name.
 */
export class PartDownError extends BaseError<'PART_DOWN'> {
  constructor(
    reason: 'TimeoutError' | 'SignerNotConfigured' | 'ChainMismatch' | 'DeploysDisabled' | 'ActivationUnknown' | string,
    message: string,
  ) {
    super(message, { code: 'PART_DOWN', httpStatus: 503 })
    this.name = reason
  }
}

/**
 * Runs one probe under a deadline, timed on the read side's clock; a failure or timeout is the part being down (with
 * the error's name only).
 */
async function probe(clock: Pick<ReadServices, 'now' | 'sleep'>, run: () => Promise<Record<string, unknown>>): Promise<HealthPart> {
  const started = clock.now()
  const answered = new AbortController()
  try {
    const details = await Promise.race([
      run(),
      clock.sleep(HEALTH_PART_TIMEOUT_MS, { signal: answered.signal }).then((): never => {
        throw new PartDownError('TimeoutError', 'timed out')
      }),
    ])
    return { ok: true, latencyMs: clock.now() - started, ...details }
  } catch (error) {
    return { ok: false, latencyMs: clock.now() - started, error: errorName(error) }
  } finally {
    answered.abort()
  }
}

/** What the public view reads: the store, under the service's prefix, on its clock. */
export type PublicHealthReads = Pick<ReadServices, 'store' | 'keyPrefix' | 'now'>

/** The public view: reads the control room's cache entry and the last tick (one store round trip). */
export async function checkPublicHealth(read: PublicHealthReads): Promise<PublicHealth> {
  return (await readPublicHealth(read)).view
}

/** The public view, and the last tick's summary for the detailed view. */
async function readPublicHealth(read: PublicHealthReads): Promise<{ view: PublicHealth; lastTick: LastTick | null }> {
  try {
    const [raw, tickRaw] = await read.store.getMany([readKeys(read.keyPrefix).controlRoom, tickKeys(read.keyPrefix).last])
    const fetchedAt = parseCachedBody(raw ?? null)?.fetchedAt
    const ageOf = (t: number) => Math.max(0, Math.floor((read.now() - t) / 1000))
    const lastTick = parseLastTick(tickRaw ?? null)
    return {
      view: {
        ok: true,
        version: SERVICE_VERSION,
        dataAgeSeconds: fetchedAt === undefined ? null : ageOf(fetchedAt),
        lastTickAgeSeconds: lastTick ? ageOf(Date.parse(lastTick.at)) : null,
      },
      lastTick,
    }
  } catch {
    // Reads still answer without the store (uncached), but the service is degraded: monitors should hear of it.
    return { view: { ok: false, version: SERVICE_VERSION, dataAgeSeconds: null, lastTickAgeSeconds: null }, lastTick: null }
  }
}

/** Parameters of {@link checkDetailedHealth}. */
export type CheckDetailedHealthParameters = {
  read: ReadServices
  /** The deploy services, loaded on demand (viem, the AWS SDK); a failure to load is reported, not thrown. */
  deploy: () => Promise<DeployServices>
  config: HealthConfig
}

/** The signer's deploy services and its address, as the detailed checks get them. */
type SignerContext = { ctx: DeployServices; address: Address }

/** The deploy cap's use in its window and the oldest deploy not mined yet. */
async function deploysNow({ ctx, address }: SignerContext) {
  if (!ctx.store) throw new PartDownError('DeploysDisabled', 'no shared store')
  const keys = deployStoreKeys({ storePrefix: ctx.config.storePrefix, chainId: ctx.config.chainId, signer: address })
  const now = ctx.clock.now()
  const [used, unmined, minedCount] = await Promise.all([
    countCapSlots(ctx.store, { key: keys.cap, windowMs: ctx.config.capWindowSeconds * 1000, now }),
    listUnmined(ctx.store, deployHistoryKeys({ storePrefix: ctx.config.storePrefix, chainId: ctx.config.chainId }), address),
    ctx.publicClient.getTransactionCount({ address, blockTag: 'latest' }),
  ])
  // The list is pruned lazily: what the chain has mined since is not pending.
  const oldest = unmined.find((record) => record.nonce >= minedCount)
  return {
    usedInWindow: used,
    cap: ctx.config.dailyCap,
    windowSeconds: ctx.config.capWindowSeconds,
    oldestUnmined: oldest
      ? { txHash: oldest.txHash, nonce: oldest.nonce, pendingSeconds: Math.max(0, Math.round((now - oldest.sentAt) / 1000)) }
      : null,
  }
}

/**
 * The executor pooled launches run through: its code on chain held to Simple7702Account v0.8's pinned hash (the
 * on-chain half of docs/operations.md's check), and whether the signer's account is delegated to it yet.
 */
async function delegationNow({ ctx, address }: SignerContext) {
  const { delegate } = ctx.config
  const { delegationDesignator } = await import('../chain/batchAccount.js')
  const [codeOk, own] = await Promise.all([ctx.delegateCheck(delegate), ctx.publicClient.getCode({ address })])
  if (!codeOk) throw new PartDownError('DelegateCodeMismatch', 'the delegate is not Simple7702Account v0.8')
  return { address: delegate, signerDelegated: (own ?? '0x').toLowerCase() === delegationDesignator(delegate) }
}

/** The detailed view: every part probed at once, each under {@link HEALTH_PART_TIMEOUT_MS}. Never throws. */
export async function checkDetailedHealth({ read, deploy, config }: CheckDetailedHealthParameters): Promise<DetailedHealth> {
  const services = deploy().catch((error: unknown) => {
    // Named after what stopped them (a ConfigError, say): the parts that need them report that.
    throw new PartDownError(errorName(error), 'deploy services failed to start')
  })
  services.catch(() => undefined)
  const signerAddress = async () => {
    const ctx = await services
    if (!ctx.getSigner) throw new PartDownError('SignerNotConfigured', 'no signer')
    return { ctx, address: (await ctx.getSigner()).address }
  }

  const [{ view: publicView, lastTick }, store, dexscreener, rpc, signer, deploys, variants, delegationPart] = await Promise.all([
    readPublicHealth(read),
    probe(read, async () => {
      await read.store.get(healthProbeKey(read.keyPrefix))
      return { kind: read.store.kind }
    }),
    // One search through the shared budget: the only part that spends upstream calls, and only for the operator.
    probe(read, async () => ({ pairs: (await read.upstream.search('WETH')).length })),
    probe(read, async () => {
      const ctx = await services
      const [chainId, head] = await Promise.all([ctx.publicClient.getChainId(), ctx.publicClient.getBlockNumber()])
      if (chainId !== ctx.config.chainId) throw new PartDownError('ChainMismatch', 'chain mismatch')
      return { chainId, expectedChainId: ctx.config.chainId, head: Number(head) }
    }),
    probe(read, async () => {
      const { ctx, address } = await signerAddress()
      // Loaded here, as the deploy services are: the public view loads no chain code.
      const { formatEther } = await import('viem')
      const balance = await ctx.publicClient.getBalance({ address })
      return {
        address,
        balanceEth: formatEther(balance),
        minBalanceEth: formatEther(config.signerMinBalanceWei),
        lowBalance: balance < config.signerMinBalanceWei,
      }
    }),
    probe(read, async () => deploysNow(await signerAddress())),
    probe(read, async () => {
      const ctx = await services
      const { variants, checkedAt } = await ctx.activation.read()
      if (checkedAt === null) throw new PartDownError('ActivationUnknown', 'the ActivationRegistry did not answer')
      const state = (active: boolean | null) => (active ? 'active' : 'inactive')
      return {
        asset: state(variants.asset),
        stablecoin: state(variants.stablecoin),
        checkedAgeSeconds: Math.max(0, Math.round((ctx.clock.now() - checkedAt) / 1000)),
      }
    }),
    probe(read, async () => delegationNow(await signerAddress())),
  ])
  // Always named: the executor's address (not the signer's), from the configuration even when the probe failed.
  const delegateAddress = await services.then(
    (ctx) => ctx.config.delegate,
    () => null,
  )
  const delegation: HealthPart = { ...delegationPart, address: delegateAddress }
  const backingOff = read.gecko
    ? await read.store.get(readKeys(read.keyPrefix).geckoBackoff).then(
        (v) => v !== null,
        () => null,
      )
    : null
  const geckoterminal: HealthPart = read.gecko ? { ok: backingOff === false, backingOff } : { ok: true, configured: false }
  // Not yet ticked is not a failure (a fresh deployment); a schedule that stopped is.
  const tick: HealthPart =
    lastTick === null
      ? { ok: true, lastTick: null }
      : { ok: publicView.lastTickAgeSeconds !== null && publicView.lastTickAgeSeconds <= TICK_STALE_SECONDS, lastTick }
  const parts = [store, dexscreener, geckoterminal, rpc, signer, deploys, variants, delegation, tick]
  return {
    ...publicView,
    ok: publicView.ok && parts.every((p) => p.ok),
    store,
    upstreams: { dexscreener, geckoterminal },
    rpc,
    signer,
    deploys,
    variants,
    delegation,
    tick,
  }
}
