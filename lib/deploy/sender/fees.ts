import type { PublicClient } from 'viem'
import { accepted, type Result, refused } from '../../platform/result.js'

// What a deploy pays: the floor of the priority fee, and what a replacement of a stuck transaction must offer.

/** Lowest priority fee offered (0.001 gwei), since Base's percentile rewards can be zero. */
export const MIN_PRIORITY_FEE = 1_000_000n
/** A replacement offers at least this much more (in thousandths): nodes ask for 10 %, 12.5 % leaves a margin. */
const REPLACEMENT_BUMP_PER_MILLE = 1125n

/** EIP-1559 fees of one transaction, in wei. */
export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }

/** Gas and EIP-1559 fees a transaction is signed with. */
export type TransactionPrice = Fees & { gas: bigint }

/** The next block's base fee and the priority fee the network asks, as {@link currentFees} reads them. */
export type NetworkFees = { nextBaseFee: bigint; suggestedPriorityFee: bigint }

/** Gas headroom over the node's estimate, in percent. */
const GAS_HEADROOM_PERCENT = 125n

/** The gas limit for a node's estimate: the estimate with 25% headroom. */
export function gasWithHeadroom(estimate: bigint): bigint {
  return (estimate * GAS_HEADROOM_PERCENT) / 100n
}

/** EIP-1559 fees from the network's: twice the next base fee plus the priority fee (at least the service's least). */
export function feesFrom({ nextBaseFee, suggestedPriorityFee }: NetworkFees): Fees {
  const maxPriorityFeePerGas = maxBigInt(suggestedPriorityFee, MIN_PRIORITY_FEE)
  return { maxPriorityFeePerGas, maxFeePerGas: nextBaseFee * 2n + maxPriorityFeePerGas }
}

/** Parameters of {@link replacementFees}. */
export type ReplacementFeesParameters = {
  previous: Fees
  /** Base fee of the next block. */
  nextBaseFee: bigint
  /** Priority fee the network asks for now. */
  suggestedPriorityFee: bigint
  /** Highest `maxFeePerGas` allowed (`DEPLOY_MAX_FEE_GWEI`). */
  cap: bigint
}

/** Result of {@link replacementFees}: the fees, or the least `maxFeePerGas` a replacement would need, above the cap. */
export type ReplacementFeesReturnType = Result<Fees, 'ABOVE_FEE_CAP', { neededMaxFeePerGas: bigint }>

const bump = (wei: bigint) => (wei * REPLACEMENT_BUMP_PER_MILLE + 999n) / 1000n

/**
 * Fees of a replacement: both raised by at least 12.5 % over the stuck transaction's, the priority fee at least what
 * the network asks now, and `maxFeePerGas` enough for the next base fee (twice it when the cap leaves room), never
 * above the cap.
 */
export function replacementFees({
  previous,
  nextBaseFee,
  suggestedPriorityFee,
  cap,
}: ReplacementFeesParameters): ReplacementFeesReturnType {
  const priority = maxBigInt(bump(previous.maxPriorityFeePerGas), suggestedPriorityFee, MIN_PRIORITY_FEE)
  const needed = maxBigInt(bump(previous.maxFeePerGas), nextBaseFee + priority)
  if (needed > cap) return refused('ABOVE_FEE_CAP', { neededMaxFeePerGas: needed })
  const wanted = nextBaseFee * 2n + priority
  const maxFeePerGas = wanted > needed ? (wanted < cap ? wanted : cap) : needed
  return accepted({ maxFeePerGas, maxPriorityFeePerGas: priority })
}

/** The largest of some bigints (Math.max throws on bigints). */
export function maxBigInt(first: bigint, ...rest: bigint[]): bigint {
  // biome-ignore lint/complexity/useMathMinMax: these are bigints, which Math.max refuses
  return rest.reduce((a, b) => (a > b ? a : b), first)
}

/** The next block's base fee and the median priority fee of the latest block (one `eth_feeHistory`). */
export async function currentFees(publicClient: PublicClient): Promise<NetworkFees> {
  const history = await publicClient.getFeeHistory({ blockCount: 1, rewardPercentiles: [50], blockTag: 'latest' })
  return {
    nextBaseFee: history.baseFeePerGas[history.baseFeePerGas.length - 1] ?? 0n,
    suggestedPriorityFee: history.reward?.[0]?.[0] ?? 0n,
  }
}
