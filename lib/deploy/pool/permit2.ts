// The approvals a pool's tokens need before the PositionManager can take them: the PositionManager pulls a payer's
// tokens through Permit2 (SETTLE_PAIR), so the payer approves Permit2 on the token once, then lets the PositionManager
// spend through Permit2 for a bounded amount and time.
import { type Address, encodeFunctionData, type Hex, parseAbi } from 'viem'

/** The ERC-20 approval and Permit2's allowance transfer approval (Permit2's IAllowanceTransfer). */
export const permit2ApprovalAbi = parseAbi([
  'function approve(address spender, uint256 amount) returns (bool)',
  'function allowance(address owner, address token, address spender) view returns (uint160 amount, uint48 expiration, uint48 nonce)',
])

/** Permit2's allowance fields are uint160 (amount) and uint48 (expiration). */
const UINT160_MAX = 2n ** 160n - 1n
const UINT48_MAX = 2n ** 48n - 1n

/** Parameters of {@link encodePoolApprovals}. */
export type EncodePoolApprovalsParameters = {
  token: Address
  /** Base units the PositionManager may take. */
  amount: bigint
  permit2: Address
  positionManager: Address
  /** Unix seconds when Permit2's allowance lapses (a seed spends it in the same hold; it need not outlive it). */
  expiration: bigint
}

/** The two approval transactions, in order: `token.approve(Permit2, amount)`, `Permit2.approve(token, PositionManager, amount, expiration)`. */
export function encodePoolApprovals({ token, amount, permit2, positionManager, expiration }: EncodePoolApprovalsParameters): {
  to: Address
  data: Hex
}[] {
  if (amount > UINT160_MAX) throw new RangeError('Permit2 allowances hold at most 2^160-1 base units')
  if (expiration > UINT48_MAX) throw new RangeError('Permit2 expirations are uint48 seconds')
  const permit2Approve = parseAbi(['function approve(address token, address spender, uint160 amount, uint48 expiration)'])
  return [
    { to: token, data: encodeFunctionData({ abi: permit2ApprovalAbi, functionName: 'approve', args: [permit2, amount] }) },
    {
      to: permit2,
      data: encodeFunctionData({
        abi: permit2Approve,
        functionName: 'approve',
        args: [token, positionManager, amount, Number(expiration)],
      }),
    },
  ]
}
