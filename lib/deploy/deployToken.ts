import { randomUUID } from 'node:crypto'
import { decodeFunctionResult, getAddress, type Hex, keccak256 } from 'viem'
import { B20_FACTORY_ADDRESS, type B20TokenSpec, b20FactoryAbi, encodeCreateB20, predictB20Address } from '../chain/b20.js'
import { ChainMismatchError } from '../chain/client.js'
import { type KmsAccount, KmsSignerError } from '../chain/kmsAccount.js'
import { errorName } from '../platform/log.js'
import { chainFailure, isTransportFailure, shortMessage } from './chainErrors.js'
import { BLOCK_MS, feesOfBlock, type NetworkFees } from './feeCache.js'
import { type DeployRecord, deployHistoryKeys, forgetDeploy, recordDeploy } from './history.js'
import type { DeployIntent } from './intent.js'
import { acquireNonceLock, MIN_PRIORITY_FEE, maxBigInt, NONCE_CLAIM_MS, replaceStuckDeploys, type SendOutcome } from './nonceStream.js'
import { type DeployFailure, failure } from './outcome.js'
import type { DeployBroadcast, DeployedToken, DeploySimulated } from './responses.js'
import type { DeployServices } from './services.js'
import { deployStoreKeys } from './storeKeys.js'

export type { DeployBroadcast, DeployedToken, DeploySimulated }

/** Every answer of {@link deployToken}. */
export type DeployTokenReturnType = DeployBroadcast | DeploySimulated | DeployFailure

/** Parameters of {@link deployToken}. */
export type DeployTokenParameters = {
  services: DeployServices
  intent: DeployIntent
  /** Allowlist digest of the calling agent (for the per-agent cap). */
  agentDigest: string
  /** This agent's own daily cap (a key issued with one); null or absent: `DEPLOY_AGENT_DAILY_CAP`. */
  agentDailyCap?: number | null
}

/** Gas headroom over the node's estimate, in percent. */
const GAS_HEADROOM_PERCENT = 125n
/** How long the signer's next-nonce counter outlives its last deploy (the node's pending count takes over after). */
const NONCE_COUNTER_TTL_MS = 86_400_000

/**
 * Deploys a B20 token for an agent. Before the nonce lock, all at once: a cap slot, the simulation of `createB20`
 * from the signer, gas, fees, chain id and the node's pending count. Under the lock (deploys one after another across
 * instances): the fenced nonce, the KMS signature, the record, the broadcast; the next deploy of this instance signs
 * while this one sends. The slot is kept only when the transaction went out. A dry run stops after the simulation
 * and signs nothing.
 */
export async function deployToken({
  services,
  intent,
  agentDigest,
  agentDailyCap = null,
}: DeployTokenParameters): Promise<DeployTokenReturnType> {
  const { config, store, publicClient, logger } = services
  if (!services.getSigner)
    return failure(
      'SIGNER_NOT_CONFIGURED',
      'The deploy signer is not configured on this server (KMS_KEY_ID is unset); no deploy can be signed.',
    )
  if (!store)
    return failure('DEPLOYS_DISABLED', 'Deploys need the shared store (Upstash Redis) on this deployment, and none is configured.')

  let signer: KmsAccount
  try {
    signer = await services.getSigner()
  } catch (error) {
    if (error instanceof KmsSignerError && /SIGNER_ADDRESS|secp256k1/.test(error.message)) {
      logger.error('signer_misconfigured', { message: error.message })
      return failure('SIGNER_MISMATCH', `Refusing to deploy: ${error.message}.`)
    }
    logger.error('kms_unavailable', { operation: 'GetPublicKey', error: errorName(error) })
    return failure('SIGNER_UNAVAILABLE', 'The signing service (KMS) is unavailable; nothing was signed. Try again shortly.', {
      retryAfterSeconds: 10,
    })
  }
  try {
    await services.verifyChain()
  } catch (error) {
    if (error instanceof ChainMismatchError) return failure('CHAIN_MISMATCH', `Refusing to sign: ${error.message}.`)
    return failure('RPC_UNAVAILABLE', 'The chain RPC is unavailable; nothing was signed. Try again shortly.', { retryAfterSeconds: 5 })
  }

  const admin = intent.admin ?? signer.address
  const salt = intent.salt ?? services.randomSalt()
  const spec: B20TokenSpec =
    intent.variant === 'asset'
      ? { variant: 'asset', name: intent.name, symbol: intent.symbol, admin, decimals: intent.decimals }
      : { variant: 'stablecoin', name: intent.name, symbol: intent.symbol, admin, currency: intent.currency ?? 'USD' }
  const data = encodeCreateB20(spec, salt)
  const predictedAddress = predictB20Address(intent.variant, signer.address, salt)
  const token: DeployedToken = { name: intent.name, symbol: intent.symbol, variant: intent.variant, decimals: intent.decimals }
  const request = { account: signer.address, to: B20_FACTORY_ADDRESS, data, value: 0n } as const

  /** eth_call of createB20 from the signer: the address it would create, or the decoded revert. */
  const simulate = async (): Promise<{ ok: true } | DeployFailure> => {
    try {
      const result = await publicClient.call(request)
      const created = result.data ? decodeFunctionResult({ abi: b20FactoryAbi, functionName: 'createB20', data: result.data }) : undefined
      if (!created || getAddress(created) !== predictedAddress) {
        logger.error('deploy_prediction_mismatch', { predicted: predictedAddress, simulated: created })
        return failure('RPC_REJECTED', 'The simulated token address differs from the B20 address formula; nothing was signed.')
      }
      return { ok: true }
    } catch (error) {
      return chainFailure(error)
    }
  }

  /** EIP-1559 fees from the network's: twice the next base fee plus the priority fee (at least the service's least). */
  const feesFrom = ({ nextBaseFee, suggestedPriorityFee }: NetworkFees) => {
    const maxPriorityFeePerGas = maxBigInt(suggestedPriorityFee, MIN_PRIORITY_FEE)
    return { maxPriorityFeePerGas, maxFeePerGas: nextBaseFee * 2n + maxPriorityFeePerGas }
  }
  /** Gas (with headroom) and fees, in parallel: eth_estimateGas and the block's fees. */
  const priceTransaction = async () => {
    const [estimate, fees] = await Promise.all([publicClient.estimateGas(request), feesOfBlock({ publicClient })])
    return { gas: (estimate * GAS_HEADROOM_PERCENT) / 100n, ...feesFrom(fees) }
  }

  if (intent.dryRun) {
    const simulated = await simulate()
    if (!simulated.ok) return simulated
    try {
      const price = await priceTransaction()
      return {
        ok: true,
        status: 'simulated',
        predictedAddress,
        token,
        signer: signer.address,
        chainId: config.chainId,
        gas: price.gas.toString(),
        maxFeePerGas: price.maxFeePerGas.toString(),
        maxPriorityFeePerGas: price.maxPriorityFeePerGas.toString(),
        maxFeeWei: (price.gas * price.maxFeePerGas).toString(),
      }
    } catch (error) {
      return chainFailure(error)
    }
  }

  const k = deployStoreKeys({ storePrefix: config.storePrefix, chainId: config.chainId, signer: signer.address })
  const history = deployHistoryKeys({ storePrefix: config.storePrefix, chainId: config.chainId })
  const slots: { key: string; member: string }[] = []
  const releaseSlots = async () => {
    for (const slot of slots.splice(0)) await store.releaseWindowSlot(slot.key, slot.member).catch(() => undefined)
  }
  const storeFailure = (operation: string, error: unknown) => {
    logger.error('store_unavailable', { operation, error: errorName(error), effect: 'deploy refused' })
    return failure(
      'STORE_UNAVAILABLE',
      'The deploy coordinator (Redis) is unavailable; deploys fail closed and nothing was signed. Try again shortly.',
      {
        retryAfterSeconds: 10,
      },
    )
  }

  // 1. Before the lock, all at once: the cap slots (exact across instances on their own), the simulation, the gas,
  // the block's fees, the chain id and the node's pending count, and a look for stuck deploys. Nothing of it depends
  // on the nonce, so the lock holds only what must go one after another: the nonce, the signature and the send.
  const now = services.now()
  const member = `${now}:${randomUUID()}`
  const windowMs = config.capWindowSeconds * 1000
  const caps: { key: string; limit: number; code: 'DEPLOY_CAP_REACHED' | 'AGENT_CAP_REACHED'; who: string }[] = [
    { key: k.cap, limit: config.dailyCap, code: 'DEPLOY_CAP_REACHED', who: 'this service' },
  ]
  const agentCap = agentDailyCap ?? config.agentDailyCap
  if (agentCap !== null) caps.push({ key: k.agentCap(agentDigest), limit: agentCap, code: 'AGENT_CAP_REACHED', who: 'your agent key' })
  const reserveCaps = async (): Promise<DeployFailure | null> => {
    const results = await Promise.all(caps.map((cap) => store.reserveWindowSlot({ key: cap.key, member, limit: cap.limit, windowMs, now })))
    results.forEach((result, i) => {
      if (result.ok) slots.push({ key: caps[i]!.key, member })
    })
    const full = results.findIndex((result) => !result.ok)
    if (full < 0) return null
    const slot = results[full] as { ok: false; freesAt: number }
    const cap = caps[full]!
    const retryAt = new Date(slot.freesAt).toISOString()
    return failure(
      cap.code,
      `The rolling deploy cap of ${cap.limit} per ${config.capWindowSeconds} s for ${cap.who} is reached; a slot frees up at ${retryAt}.`,
      { retryAt, retryAfterSeconds: Math.max(1, Math.ceil((slot.freesAt - now) / 1000)) },
    )
  }
  const stuckMs = config.stuckSeconds * 1000
  const prepare = async () => {
    const [simulated, estimate, fees, chainId, pending] = await Promise.allSettled([
      simulate(),
      publicClient.estimateGas(request),
      feesOfBlock({ publicClient }),
      publicClient.getChainId(),
      publicClient.getTransactionCount({ address: signer.address, blockTag: 'pending' }),
    ])
    // A revert explains itself best through the simulation (decoded), before the estimate's failure.
    if (simulated.status === 'fulfilled' && !simulated.value.ok) return simulated.value
    for (const result of [simulated, estimate, fees, chainId, pending]) if (result.status === 'rejected') return chainFailure(result.reason)
    const ok = <T>(result: PromiseSettledResult<T>) => (result as PromiseFulfilledResult<T>).value
    return { ok: true as const, gas: (ok(estimate) * GAS_HEADROOM_PERCENT) / 100n, chainId: ok(chainId), pending: ok(pending) }
  }
  let prepared: Awaited<ReturnType<typeof prepare>>
  let stuckSeen: boolean
  try {
    // The unmined list's oldest entry (by when its deploy was first sent) says whether one may be stuck.
    const [capped, ready, oldest] = await Promise.all([reserveCaps(), prepare(), store.oldestInIndex(history.unmined(signer.address))])
    if (capped) {
      await releaseSlots()
      return capped
    }
    prepared = ready
    stuckSeen = oldest !== null && now - oldest >= stuckMs
  } catch (error) {
    await releaseSlots()
    return storeFailure('deploy-prepare', error)
  }
  if (!prepared.ok) {
    await releaseSlots()
    return prepared
  }
  if (prepared.chainId !== config.chainId) {
    await releaseSlots()
    logger.error('chain_mismatch', { expected: config.chainId, actual: prepared.chainId })
    return failure(
      'CHAIN_MISMATCH',
      `Refusing to sign: the RPC now serves chain ${prepared.chainId}, not the configured ${config.chainId}.`,
    )
  }

  // 2. The nonce lock: deploys go one after another across instances.
  let lock: Awaited<ReturnType<typeof acquireNonceLock>>
  try {
    lock = await acquireNonceLock(store, k.lock, services.lockLeaseMs, services.lockWaitMs, {
      counterKey: k.nonceNext,
      fencePrefix: k.noncePrefix,
      fenceTtlMs: NONCE_CLAIM_MS,
      counterTtlMs: NONCE_COUNTER_TTL_MS,
    })
  } catch (error) {
    await releaseSlots()
    return storeFailure('nonce-lock', error)
  }
  if (!lock) {
    await releaseSlots()
    return failure('DEPLOY_BUSY', 'Other deploys are in progress; nothing was signed. Retry in a few seconds.', { retryAfterSeconds: 3 })
  }

  let claimedNonce: number | null = null
  let recorded: DeployRecord | null = null
  let keepReservations = false
  /** How this deploy's send ended, for the next deploy of this instance (which may be signing meanwhile). */
  let outcome: SendOutcome = 'refused'
  let settle!: (outcome: SendOutcome) => void
  const sending = new Promise<SendOutcome>((resolve) => (settle = resolve))
  try {
    // 3. An earlier deploy left unmined would hold this one behind it: replace it first (same nonce, higher fees).
    if (stuckSeen) {
      const unjammed = await replaceStuckDeploys({
        store,
        keys: history,
        publicClient,
        signer,
        chainId: config.chainId,
        logger,
        now: services.now(),
        stuckMs,
        maxFeePerGas: config.maxFeePerGasWei,
      })
      if (!unjammed.ok) return unjammed
    }

    // 4. The nonce, fenced: the next of the signer's stream (never below the node's pending count), signed at most
    // once even if this lock's lease ran out under us; claimed by the previous deploy of this instance when it could.
    // The fees are the block's (read again only when 3 blocks old).
    const [claim, fees] = await Promise.all([
      lock.claimNonce(prepared.pending),
      feesOfBlock({ publicClient, maxAgeMs: 3 * BLOCK_MS }).catch((error: unknown) => error as Error),
    ])
    if (claim.kind === 'held')
      return failure(
        'DEPLOY_BUSY',
        `Nonce ${claim.nonce} is held by another deploy that has not reached the chain yet; nothing was signed. Retry shortly.`,
        { retryAfterSeconds: 5 },
      )
    if (claim.kind === 'lock-lost')
      return failure('DEPLOY_BUSY', 'The deploy lock expired before signing; nothing was signed. Retry shortly.', { retryAfterSeconds: 3 })
    const nonce = claim.nonce
    claimedNonce = nonce
    if (fees instanceof Error) return chainFailure(fees)
    // The next deploy waiting here gets its nonce claimed while this one signs and sends.
    lock.prefetchForSuccessor(prepared.pending)
    const price = { gas: prepared.gas, ...feesFrom(fees) }

    // 5. Sign with KMS (the private key never leaves it), and 6. keep the transaction before the broadcast, with the
    // cap slot: the agent's history and the signer's unmined list. A deploy whose broadcast is refused outright gives
    // both back below.
    const signAndRecord = async (nonce: number): Promise<{ serialized: Hex } | DeployFailure> => {
      let serialized: Hex
      try {
        serialized = await signer.signTransaction({
          type: 'eip1559',
          chainId: config.chainId,
          to: B20_FACTORY_ADDRESS,
          data,
          value: 0n,
          nonce,
          gas: price.gas,
          maxFeePerGas: price.maxFeePerGas,
          maxPriorityFeePerGas: price.maxPriorityFeePerGas,
        })
      } catch (error) {
        logger.error('kms_unavailable', { operation: 'Sign', error: errorName(error) })
        return failure('SIGNER_UNAVAILABLE', 'The signing service (KMS) failed; nothing was broadcast. Try again shortly.', {
          retryAfterSeconds: 10,
        })
      }
      const sentAt = services.now()
      recorded = {
        txHash: keccak256(serialized),
        agent: agentDigest,
        predictedAddress,
        name: intent.name,
        symbol: intent.symbol,
        variant: intent.variant,
        decimals: intent.decimals,
        createdAt: sentAt,
        sentAt,
        status: 'broadcast',
        nonce,
        gas: price.gas.toString(),
        maxFeePerGas: price.maxFeePerGas.toString(),
        maxPriorityFeePerGas: price.maxPriorityFeePerGas.toString(),
        data,
      }
      await recordDeploy({ store, keys: history, signer: signer.address, record: recorded, inAgentHistory: true })
      return { serialized }
    }
    let signed = await signAndRecord(nonce)
    if ('ok' in signed) return signed

    // The previous deploy of this instance may still be sending: this one was signed meanwhile, and goes out after it.
    // If the node refused that one (its nonce went back), this one moves down into the gap: claimed and signed again.
    const previous = lock.previousSend ? await lock.previousSend : 'sent'
    let renumbered = false
    if (previous !== 'sent') {
      await lock.dropPrefetch()
      await forgetDeploy(store, history, signer.address, recorded!)
      recorded = null
      await store.releaseNonce({ counterKey: k.nonceNext, fencePrefix: k.noncePrefix, nonce })
      claimedNonce = null
      const again = await lock.claimNonce(prepared.pending)
      if (again.kind !== 'claimed')
        return failure(
          'DEPLOY_BUSY',
          'An earlier deploy was refused by the node and its nonce is not free yet; nothing was sent. Retry shortly.',
          {
            retryAfterSeconds: 3,
          },
        )
      claimedNonce = again.nonce
      lock.prefetchForSuccessor(prepared.pending)
      signed = await signAndRecord(again.nonce)
      if ('ok' in signed) return signed
      renumbered = true
    }
    const { serialized } = signed
    const txHash = recorded!.txHash
    // The next deploy waiting here signs while this one sends.
    lock.handOffBeforeSend(sending)

    // 7. Broadcast. The hash is known before sending, so an unanswered send can still be tracked.
    const explorerUrl = `${config.explorerUrl}/tx/${txHash}`
    try {
      await publicClient.sendRawTransaction({ serializedTransaction: serialized })
    } catch (error) {
      // No answer, or a retry that met its own first attempt ("already known", "nonce too low"): it may have gone out,
      // so the cap slot and the nonce stay taken and the agent is told to poll the receipt.
      if (isTransportFailure(error) || /already known|known transaction|nonce too low|already imported/i.test(shortMessage(error))) {
        keepReservations = true
        outcome = renumbered ? 'renumbered' : 'sent'
        return failure(
          'BROADCAST_UNCERTAIN',
          'The RPC did not answer the broadcast; the transaction may or may not be on its way. Poll action "receipt" with txHash before deploying again.',
          { txHash, explorerUrl },
        )
      }
      const message = shortMessage(error)
      if (/insufficient funds/i.test(message))
        return failure(
          'SIGNER_UNFUNDED',
          'The signer wallet lacks ETH on Base to pay gas; nothing was broadcast. The operator must fund it.',
        )
      return failure('RPC_REJECTED', `The node refused the transaction: ${message}`)
    }
    keepReservations = true
    outcome = renumbered ? 'renumbered' : 'sent'
    return { ok: true, status: 'broadcast', txHash, predictedAddress, explorerUrl, token, signer: signer.address, chainId: config.chainId }
  } catch (error) {
    logger.error('store_unavailable', { operation: 'deploy', error: errorName(error), effect: 'deploy refused' })
    return failure('STORE_UNAVAILABLE', 'The deploy coordinator (Redis) failed mid-deploy; nothing was broadcast. Try again shortly.', {
      retryAfterSeconds: 10,
    })
  } finally {
    if (!keepReservations) {
      await releaseSlots()
      // A nonce never sent goes back to the stream (the next deploy takes it), with its fence; the successor's first,
      // so that the stream has no gap.
      await lock.dropPrefetch()
      if (claimedNonce !== null)
        await store.releaseNonce({ counterKey: k.nonceNext, fencePrefix: k.noncePrefix, nonce: claimedNonce }).catch(() => undefined)
      if (recorded) await forgetDeploy(store, history, signer.address, recorded).catch(() => undefined)
    }
    // Told only now, after its nonce went back: the next deploy then finds the gap to move into.
    settle(outcome)
    await lock.release()
  }
}
