// A pooled launch is four transactions from the signer, each depending on the one before (the token must exist before
// it is approved, the approvals before the mint). The node simulates them as one sequence (eth_simulateV1), so a
// revert anywhere refuses the launch before anything is signed or charged, and each transaction's gas comes from it.
import { decodeErrorResult, type Hex, parseAbi } from 'viem'
import { simulateCalls } from 'viem/actions'
import { type DeployResult, failure } from '../outcome.js'
import { chainFailure } from '../sender/chainErrors.js'
import type { ChainReads } from '../services.js'
import type { DeployPlan } from './deployPlan.js'

/** The errors a seed can revert with: the PositionManager's, the PoolManager's and Permit2's (their published ABIs). */
const seedErrorsAbi = parseAbi([
  'error MaximumAmountExceeded(uint128 maximumAmount, uint128 amountRequested)',
  'error DeadlinePassed(uint256 deadline)',
  'error PoolNotInitialized()',
  'error PoolAlreadyInitialized()',
  'error CurrencyNotSettled()',
  'error TickSpacingTooLarge(int24 tickSpacing)',
  'error TicksMisordered(int24 tickLower, int24 tickUpper)',
  'error WrappedError(address target, bytes4 selector, bytes reason, bytes details)',
  'error AllowanceExpired(uint256 deadline)',
  'error InsufficientAllowance(uint256 amount)',
  'error InsufficientBalance()',
])

/** Why each seed transaction could fail, for people: the step that failed. */
const SEED_STEPS = ['approving Permit2 on the token', 'Permit2’s approval of the PositionManager', 'the pool’s creation and mint']

/** Result of {@link simulatePooledLaunch}: each transaction's gas as simulated (creation first), or why not. */
export type SimulatePooledLaunchReturnType = DeployResult<{ gasUsed: bigint[] }>

/** A seed's revert, named by the seed errors when it is one of them. */
function seedRevert(data: Hex | undefined): { name: string; args: Record<string, string> } {
  if (!data || data === '0x') return { name: 'unknown', args: {} }
  try {
    const decoded = decodeErrorResult({ abi: seedErrorsAbi, data })
    const inputs = seedErrorsAbi.find((item) => item.name === decoded.errorName)?.inputs ?? []
    const args = Object.fromEntries(inputs.map((input, i) => [input.name ?? String(i), String((decoded.args ?? [])[i])]))
    return { name: decoded.errorName, args }
  } catch {
    return { name: 'unknown', args: { selector: data.slice(0, 10) } }
  }
}

/**
 * Simulates the creation and the seed's three transactions in order from the signer (eth_simulateV1, without the
 * node's balance and nonce checks: the signer's gas money is checked at the send). The creation's revert reads as any
 * deploy's; a seed's names its step and its error (a pool someone initialised first at another price reverts the
 * mint with `MaximumAmountExceeded`: the position's ETH bound is 0).
 */
export async function simulatePooledLaunch(services: ChainReads, plan: DeployPlan): Promise<SimulatePooledLaunchReturnType> {
  if (!plan.pool) throw new TypeError('simulatePooledLaunch needs a plan with a pool')
  const { account, to, data } = plan.request
  let results: Awaited<ReturnType<typeof simulateCalls>>['results']
  try {
    ;({ results } = await simulateCalls(services.publicClient, {
      account,
      calls: [{ to, data, value: 0n }, ...plan.pool.transactions.map((call) => ({ ...call, value: 0n }))],
    }))
  } catch (error) {
    return chainFailure(error)
  }
  const [created, ...seeds] = results
  if (created?.status !== 'success') return chainFailure(created?.error)
  for (const [index, seed] of seeds.entries()) {
    if (seed.status === 'success') continue
    const revert = seedRevert(seed.data)
    return failure(
      'SIMULATION_REVERTED',
      `The launch's pool would not be seeded (${SEED_STEPS[index]} reverts with ${revert.name}); nothing was signed and no gas was spent.`,
      { revert },
    )
  }
  return { ok: true, gasUsed: results.map((result) => result.gasUsed) }
}
