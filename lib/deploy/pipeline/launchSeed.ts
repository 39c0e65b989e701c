// A deploy's transactions under the nonce lock: the creation and, for a pooled launch, the three seed transactions
// after it (approve Permit2, Permit2's approval of the PositionManager, the pool's creation and mint), on the nonces
// claimed right after the creation's, signed with it and sent after it in order, in the same hold of the lock.
import { B20_FACTORY_ADDRESS } from '../../chain/b20.js'
import { type DeployResult, failure } from '../outcome.js'
import type { TransactionPrice } from '../sender/fees.js'
import { type KeptRecord, type KeptTransaction, recordOf } from '../sender/keep.js'
import type { NonceLock } from '../sender/nonceLock.js'
import type { SignedTransaction, UnsignedTransaction } from '../sender/sign.js'
import type { LockedDeploy } from './beforeLock.js'
import type { Holdings } from './holdings.js'

/** A signed deploy and, for a pooled launch, its seed transactions, signed and kept (empty otherwise). */
export type SignedLaunch = { ok: true } & SignedTransaction & { seeds: KeptTransaction[] }

/** Parameters of {@link claimSeedNonces}. */
export type ClaimSeedNoncesParameters = {
  lock: NonceLock
  holdings: Holdings
  /** The node's pending count: no nonce below it. */
  floor: number
  /** How many seed transactions. */
  count: number
}

/**
 * Claims a nonce for each seed transaction, after the creation's (each claim is the lowest free one, so they rise
 * in order and only ever run after the creation). Whatever is taken is in the holdings, which give it back unless the
 * launch goes out.
 */
export async function claimSeedNonces({
  lock,
  holdings,
  floor,
  count,
}: ClaimSeedNoncesParameters): Promise<DeployResult<{ nonces: number[] }>> {
  const nonces: number[] = []
  for (let i = 0; i < count; i++) {
    const claim = await lock.claimNonce(floor)
    if (claim.kind !== 'claimed')
      return failure('DEPLOY_BUSY', 'The nonces of the launch’s pool could not all be claimed; nothing was signed. Retry shortly.', {
        retryAfterSeconds: 3,
      })
    holdings.tookSeedNonce(claim.nonce)
    nonces.push(claim.nonce)
  }
  return { ok: true, nonces }
}

/** The creation at its nonce and price, then each seed transaction at its own nonce and gas (the same fees). */
export function launchTransactions(
  deploy: LockedDeploy,
  nonce: number,
  price: TransactionPrice,
  seedNonces: readonly number[],
): UnsignedTransaction[] {
  const { plan, prepared } = deploy
  const creation: UnsignedTransaction = { call: { to: B20_FACTORY_ADDRESS, data: plan.data }, nonce, price }
  const seeds = (plan.pool?.transactions ?? []).map((call, i) => ({
    call,
    nonce: seedNonces[i]!,
    price: { ...price, gas: prepared.seedGas?.[i] ?? 0n },
  }))
  return [creation, ...seeds]
}

/**
 * The records of a deploy's transactions, once signed: the creation's (`deploy`, or `launch` with its pool, in the
 * agent's history), then each seed's (`seed`, `of` the launch: followed and replaced like any other, but told to no
 * one on its own and kept out of the agent's history, since the launch's receipt speaks for it).
 */
export function launchRecordsOf(
  deploy: LockedDeploy,
  transactions: readonly UnsignedTransaction[],
  sentAt: number,
): (signed: readonly SignedTransaction[]) => KeptRecord[] {
  const { plan, intent } = deploy
  return (signed) => {
    const [creation, ...seeds] = signed
    const shared = {
      agent: deploy.agentId,
      predictedAddress: plan.predictedAddress,
      name: intent.name,
      symbol: intent.symbol,
      variant: intent.variant,
      decimals: intent.decimals,
      createdAt: sentAt,
      sentAt,
    }
    const launch = recordOf(
      {
        ...shared,
        kind: plan.pool ? 'launch' : 'deploy',
        ...(deploy.paymentNonce ? { paymentNonce: deploy.paymentNonce } : {}),
        ...(plan.pool
          ? { pool: { ...plan.pool.view, amount: plan.pool.seed.taken.toString(), seedTxHashes: seeds.map((seed) => seed.txHash) } }
          : {}),
      },
      transactions[0]!,
      creation!,
    )
    const seedRecords = seeds.map((seed, i) => recordOf({ ...shared, kind: 'seed', of: launch.txHash }, transactions[i + 1]!, seed))
    return [{ record: launch, inAgentHistory: true }, ...seedRecords.map((record) => ({ record, inAgentHistory: false }))]
  }
}
