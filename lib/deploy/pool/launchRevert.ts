// Why a pooled launch's batch reverts, read from its revert data (pure): Simple7702Account's `ExecuteError(index,
// reason)` names the call that failed (0 the creation, then the seed's calls in batch order), and that call's own
// reason is decoded by the errors of what it called: B20's, the PoolManager's, the PositionManager's, Permit2's.
import { decodeErrorResult, type Hex, parseAbi } from 'viem'
import { decodeB20Revert } from '../../chain/b20.js'
import { decodeBatchRevert } from '../../chain/batchAccount.js'
import { SEED_CALL_STEPS } from './launchPool.js'

/** The errors a seed call can revert with: the PoolManager's, the PositionManager's and Permit2's (their published ABIs). */
const seedErrorsAbi = parseAbi([
  'error PoolAlreadyInitialized()',
  'error MaximumAmountExceeded(uint128 maximumAmount, uint128 amountRequested)',
  'error DeadlinePassed(uint256 deadline)',
  'error PoolNotInitialized()',
  'error CurrencyNotSettled()',
  'error TickSpacingTooLarge(int24 tickSpacing)',
  'error TicksMisordered(int24 tickLower, int24 tickUpper)',
  'error WrappedError(address target, bytes4 selector, bytes reason, bytes details)',
  'error AllowanceExpired(uint256 deadline)',
  'error InsufficientAllowance(uint256 amount)',
  'error InsufficientBalance()',
])

/** A decoded revert: its error's name and arguments (`unknown` with the selector when it is none of the known ones). */
export type LaunchRevert = { name: string; args: Record<string, string | number | boolean> }

/** Why a launch failed, as a kind programs can read: the pool initialized first, the deadline, gas, B20, another call. */
export type LaunchFailureCause = 'pool-initialized' | 'deadline' | 'gas' | 'b20' | 'seed'

/** A launch's revert explained: which call of the batch failed (null: unknown), its error, the cause, and why in words. */
export type LaunchRevertExplained = { index: number | null; step: string; revert: LaunchRevert; cause: LaunchFailureCause; why: string }

/** The words of each cause, as answers and receipts say it (each names the pool where the pool is why). */
export const LAUNCH_FAILURE_WORDS: Record<LaunchFailureCause, string> = {
  'pool-initialized': 'the pool was initialized first by someone else, so the launch would have opened at their price',
  deadline: 'the pool mint’s deadline had passed',
  gas: 'the launch ran out of gas',
  b20: 'B20 refused the token’s creation',
  seed: 'a call seeding the pool failed',
}

/** A seed call's error, named by the seed errors when it is one of them. */
function seedRevert(data: Hex | undefined): LaunchRevert {
  if (!data || data === '0x') return { name: 'unknown', args: {} }
  try {
    const decoded = decodeErrorResult({ abi: seedErrorsAbi, data })
    const inputs = seedErrorsAbi.find((item) => item.name === decoded.errorName)?.inputs ?? []
    const values = (decoded.args ?? []) as readonly unknown[]
    return { name: decoded.errorName, args: Object.fromEntries(inputs.map((input, i) => [input.name ?? String(i), String(values[i])])) }
  } catch {
    return { name: 'unknown', args: { selector: data.slice(0, 10) } }
  }
}

/** What a seed error says the cause is: an early initialize, a deadline, or another failure of the seed. */
function seedCause(revert: LaunchRevert): LaunchFailureCause {
  if (revert.name === 'PoolAlreadyInitialized' || revert.name === 'MaximumAmountExceeded') return 'pool-initialized'
  if (revert.name === 'DeadlinePassed' || revert.name === 'AllowanceExpired') return 'deadline'
  return 'seed'
}

/** Explains a pooled launch's revert data: which call, which error, which cause (pure). */
export function explainLaunchRevert(data: Hex | undefined): LaunchRevertExplained {
  const { index, reason } = decodeBatchRevert(data)
  if (index === 0) {
    const revert = decodeB20Revert(reason)
    return { index, step: 'the token’s creation', revert, cause: 'b20', why: `${LAUNCH_FAILURE_WORDS.b20} (${revert.name})` }
  }
  const revert = seedRevert(reason)
  // Without an index (a node that drops the data) the error alone still says what it was.
  const step = index === null ? 'the launch' : (SEED_CALL_STEPS[index - 1] ?? `call ${index}`)
  const cause = seedCause(revert)
  return { index, step, revert, cause, why: `${LAUNCH_FAILURE_WORDS[cause]} (${step} reverts with ${revert.name})` }
}
