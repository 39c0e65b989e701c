import { randomBytes } from 'node:crypto'
import type { LookupFunction } from 'node:net'
import { KMSClient } from '@aws-sdk/client-kms'
import { waitUntil } from '@vercel/functions'
import { awsCredentialsProvider } from '@vercel/oidc-aws-credentials-provider'
import type { Hex, PublicClient } from 'viem'
import { type ActivationReader, createActivationReader } from '../chain/activation.js'
import { createChainClient, createChainIdCheck } from '../chain/client.js'
import { createDelegateCheck, type DelegateCheck } from '../chain/delegateCheck.js'
import { createKmsAccount, type KmsAccount } from '../chain/kmsAccount.js'
import { type Clock, systemClock } from '../platform/clock.js'
import type { Environment } from '../platform/config.js'
import { createLogger, errorName, type Logger } from '../platform/log.js'
import { createMemoryStore } from '../store/memory.js'
import type { Store } from '../store/types.js'
import { createUpstashStore } from '../store/upstash.js'
import { type DeployConfig, loadDeployConfig } from './config.js'
import { createFeeCache, type FeeCache } from './sender/feeCache.js'
import { createNonceLocks, type NonceLocks } from './sender/nonceLock.js'
import { createSyncSender, DEPLOY_WAIT_SECONDS_MAX, type SyncSender } from './sender/sendSync.js'
import type { TransactionRecord } from './sender/signedTransactions.js'
import { createWebhookOutbox, type WebhookOutbox } from './webhooks/outbox.js'

/**
 * Everything the deploy side talks to, built once per instance (`instance.ts`). Read-only: a test that wants other
 * settings builds other services. A step takes only the members it uses (`Pick<DeployServices, …>`).
 */
export type DeployServices = Readonly<{
  config: DeployConfig
  /** The shared store, or null when deploys must not run (on Vercel without Redis). */
  store: Store | null
  publicClient: PublicClient
  /** Which B20 variants the network has switched on (Base's ActivationRegistry), kept a few minutes on {@link clock}. */
  activation: ActivationReader
  /** The network's fees, read at most once a block for all the deploys of the instance. */
  fees: FeeCache
  /** Whether the EIP-7702 delegate holds Simple7702Account v0.8's code (asked of the chain once while it does). */
  delegateCheck: DelegateCheck
  /** Sends a deploy that waits for its block (`waitSeconds`) with `eth_sendRawTransactionSync`, as the node takes it. */
  syncSender: SyncSender
  /** Checks the RPC's chain id once. */
  verifyChain: () => Promise<void>
  /** The KMS-backed account (one `GetPublicKey` per process), or null when `KMS_KEY_ID` is unset. */
  getSigner: (() => Promise<KmsAccount>) | null
  logger: Logger
  /** The one clock: it stamps records and times every wait (a receipt's polling, the fees' age, the waiting send, the nonce lock). */
  clock: Clock
  randomSalt: () => Hex
  /** This instance's nonce locks (its local queue of deploys per signer); null without a shared store. */
  nonceLocks: NonceLocks | null
  /** How long a deploy waits for the nonce lock before answering "busy". */
  lockWaitMs: number
  /** Lease of the nonce lock: longer than the slowest sign-and-send. */
  lockLeaseMs: number
  /** How often a waiting receipt asks the chain (one block on Base: 2 s). */
  receiptPollMs: number
  /** Deploy events on their way to agents' webhooks; null without a shared store. */
  webhooks: WebhookOutbox | null
  /** Runs work after the answer: on Vercel `waitUntil` keeps the function alive for it; elsewhere it just runs. */
  background: (work: Promise<unknown>) => void
  /**
   * Tells what was given as `onConfirmed` that a deploy of the service's own is mined and confirmed (once its record
   * says so): a receipt and the tick's follow-up both call it. It never throws: a failing hook is logged.
   */
  announceConfirmed: (record: TransactionRecord) => Promise<void>
  /** WETH's USD price in the control room now (handed in: the read side's), null when unknown or unreadable. */
  wethUsd: () => Promise<string | null>
}>

/**
 * What runs once a deploy is seen confirmed, beyond its record and its agent's webhook: the launches room announces the
 * launch to open streams (lib/launches/feed.ts). It is handed in, because lib/launches sits above lib/deploy.
 */
export type ConfirmedHook = (services: DeployServices, record: TransactionRecord) => Promise<void>

/** What the chain reads before the lock use: the node, the log, and the chain id the service is configured for. */
export type ChainReads = Pick<DeployServices, 'publicClient' | 'fees' | 'logger' | 'config' | 'delegateCheck'>

/** Parameters of {@link createDeployServices}; anything given replaces what the environment would build. */
export type CreateDeployServicesParameters = {
  env?: Environment
  store?: Store | null
  publicClient?: PublicClient
  /** The client of waiting sends; its timeout must outlast the longest wait. Default: over `BASE_RPC_URL`. */
  syncClient?: PublicClient
  kms?: KMSClient
  logger?: Logger
  clock?: Clock
  lockWaitMs?: number
  lockLeaseMs?: number
  receiptPollMs?: number
  /** Resolves webhook receivers' names (tests map a name to the address they want); checked before connecting. */
  webhookLookup?: LookupFunction
  background?: (work: Promise<unknown>) => void
  /** What runs once a deploy is seen confirmed (this instance's: lib/launches/instance.ts); default: nothing. */
  onConfirmed?: ConfirmedHook
  /** WETH's USD price in the control room now (this instance's: lib/launches/instance.ts); default: unknown. */
  wethUsd?: () => Promise<string | null>
}

/** Builds the deploy services from the environment (or from what a test hands in). */
export function createDeployServices(parameters: CreateDeployServicesParameters = {}): DeployServices {
  const config = loadDeployConfig(parameters.env ?? process.env)
  const publicClient = parameters.publicClient ?? createChainClient({ rpcUrl: config.rpcUrl, chainId: config.chainId })
  // A waiting send holds its request open up to the wait asked for: its client's timeout is past the longest one.
  const syncClient =
    parameters.syncClient ??
    createChainClient({ rpcUrl: config.rpcUrl, chainId: config.chainId, timeoutMs: (DEPLOY_WAIT_SECONDS_MAX + 3) * 1000 })
  const clock = parameters.clock ?? systemClock
  let store: Store | null
  if (parameters.store !== undefined) store = parameters.store
  else if (config.redis) store = createUpstashStore({ ...config.redis, deadline: clock.deadline })
  // Instances on Vercel share no memory: an in-process lock and cap would not serialise deploys, so none run.
  else store = config.onVercel ? null : createMemoryStore()

  let signer: Promise<KmsAccount> | undefined
  const { kmsKeyId } = config
  const getSigner = kmsKeyId
    ? () => {
        // The AWS SDK honours AWS_ENDPOINT_URL_KMS (and AWS_ENDPOINT_URL_STS). Credentials: short-lived ones from STS
        // for Vercel's OIDC token when a role is configured, otherwise the SDK's default chain (a static key).
        signer ??= createKmsAccount({
          kms: parameters.kms ?? createKmsClient(config),
          keyId: kmsKeyId,
          expectedAddress: config.signerAddress ?? undefined,
          deadline: clock.deadline,
        }).catch((error: unknown) => {
          signer = undefined // a KMS outage is retried on the next request; a key mismatch fails again, clearly
          throw error
        })
        return signer
      }
    : null

  const logger = parameters.logger ?? createLogger()
  const webhooks = store
    ? createWebhookOutbox({
        store,
        storePrefix: config.storePrefix,
        chainId: config.chainId,
        logger,
        clock,
        onVercel: config.onVercel,
        lookup: parameters.webhookLookup,
        withoutWebhooks: config.allowlist,
      })
    : null
  const onConfirmed = parameters.onConfirmed
  const services: DeployServices = {
    config,
    store,
    publicClient,
    activation: createActivationReader({ client: publicClient, now: clock.now }),
    // The fees age, a waiting send waits and the nonce lock's waits and lease run on the services' one clock, the one
    // that stamps the records: a test that owns it owns them all.
    fees: createFeeCache({ publicClient, now: clock.now }),
    delegateCheck: createDelegateCheck(publicClient),
    syncSender: createSyncSender({ syncClient, publicClient, clock }),
    verifyChain: createChainIdCheck(publicClient, config.chainId),
    getSigner,
    logger,
    clock,
    randomSalt: () => `0x${randomBytes(32).toString('hex')}`,
    nonceLocks: store ? createNonceLocks({ store, clock }) : null,
    lockWaitMs: parameters.lockWaitMs ?? 20_000,
    lockLeaseMs: parameters.lockLeaseMs ?? 60_000,
    receiptPollMs: parameters.receiptPollMs ?? 2000,
    webhooks,
    background: parameters.background ?? ((work) => waitUntil(work)),
    announceConfirmed: async (record) => {
      if (!onConfirmed) return
      try {
        await onConfirmed(services, record)
      } catch (error) {
        logger.warn('confirmed_hook_failed', { txHash: record.txHash, error: errorName(error) })
      }
    },
    // A price in USD is a courtesy: a store that cannot say it leaves it null, never fails what asked.
    wethUsd: async () => (parameters.wethUsd ? parameters.wethUsd().catch(() => null) : null),
  }
  return services
}

/**
 * The KMS client: with `AWS_ROLE_ARN` (and no static key) its credentials come from STS AssumeRoleWithWebIdentity for
 * Vercel's OIDC token (from the request on Vercel, `VERCEL_OIDC_TOKEN` locally); the SDK keeps them until they near
 * expiry, so STS is asked about once an hour per instance, not per deploy.
 */
function createKmsClient(config: DeployConfig): KMSClient {
  const region = config.awsRegion ?? undefined
  if (!config.awsRoleArn) return new KMSClient({ region })
  const credentials = awsCredentialsProvider({ roleArn: config.awsRoleArn, roleSessionName: 'base-control-room', clientConfig: { region } })
  return new KMSClient({ region, credentials })
}
