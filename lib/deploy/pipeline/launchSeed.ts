// A pooled launch's seed under the nonce lock: the three transactions after the creation (approve Permit2, Permit2's
// approval of the PositionManager, the pool's creation and mint), on the nonces claimed right after the creation's,
// signed with it and sent after it in order, in the same hold of the lock.
import { type Hex, keccak256 } from 'viem'
import type { KmsAccount } from '../../chain/kmsAccount.js'
import { errorName, type Logger } from '../../platform/log.js'
import { type DeployFailure, failure } from '../outcome.js'
import type { SeedTransaction } from '../pool/launchPool.js'
import type { DeployRecord } from '../records/history.js'
import type { Holdings } from './holdings.js'
import type { NonceLock } from './nonceLock.js'
import type { DeployPrice } from './plan.js'

/** A signed seed transaction: where it goes, its nonce and gas, the raw transaction and its hash. */
export type SignedSeed = SeedTransaction & { nonce: number; gas: bigint; serialized: Hex; txHash: Hex }

/** Parameters of {@link claimAndSignSeeds}. */
export type ClaimAndSignSeedsParameters = {
  lock: NonceLock
  holdings: Holdings
  /** The node's pending count: no nonce below it. */
  floor: number
  signer: KmsAccount
  chainId: number
  transactions: readonly SeedTransaction[]
  /** Each transaction's gas limit, in order. */
  gas: readonly bigint[]
  price: Omit<DeployPrice, 'gas'>
  logger: Logger
}

/**
 * Claims a nonce for each seed transaction, after the creation's (each claim is the lowest free one, so they rise
 * in order and only ever run after the creation), then signs them all with KMS. Nothing is sent; whatever is taken is
 * in the holdings, which give it back unless the launch goes out.
 */
export async function claimAndSignSeeds(
  parameters: ClaimAndSignSeedsParameters,
): Promise<{ ok: true; seeds: SignedSeed[] } | DeployFailure> {
  const { lock, holdings, floor, signer, chainId, transactions, gas, price, logger } = parameters
  const nonces: number[] = []
  for (const _ of transactions) {
    const claim = await lock.claimNonce(floor)
    if (claim.kind !== 'claimed')
      return failure('DEPLOY_BUSY', 'The nonces of the launch’s pool could not all be claimed; nothing was signed. Retry shortly.', {
        retryAfterSeconds: 3,
      })
    holdings.tookSeedNonce(claim.nonce)
    nonces.push(claim.nonce)
  }
  try {
    const seeds = await Promise.all(
      transactions.map(async (transaction, i) => {
        const serialized = await signer.signTransaction({
          type: 'eip1559',
          chainId,
          to: transaction.to,
          data: transaction.data,
          value: 0n,
          nonce: nonces[i]!,
          gas: gas[i]!,
          ...price,
        })
        return { ...transaction, nonce: nonces[i]!, gas: gas[i]!, serialized, txHash: keccak256(serialized) }
      }),
    )
    return { ok: true, seeds }
  } catch (error) {
    logger.error('kms_unavailable', { operation: 'Sign', error: errorName(error) })
    return failure('SIGNER_UNAVAILABLE', 'The signing service (KMS) failed; nothing was broadcast. Try again shortly.', {
      retryAfterSeconds: 10,
    })
  }
}

/** The seed transactions' records, kept like the creation's so they are followed and replaced, but marked as seeds. */
export function seedRecordsOf(launch: DeployRecord, seeds: readonly SignedSeed[]): DeployRecord[] {
  const { pool: _pool, paymentNonce: _paymentNonce, ...shared } = launch
  return seeds.map((seed) => ({
    ...shared,
    txHash: seed.txHash,
    nonce: seed.nonce,
    gas: seed.gas.toString(),
    data: seed.data,
    to: seed.to,
    seedOf: launch.txHash,
  }))
}
