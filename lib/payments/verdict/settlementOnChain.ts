import { type Address, type Hex, isAddressEqual, type PublicClient, parseAbi, parseEventLogs, TransactionReceiptNotFoundError } from 'viem'

// Step 7 of a paid deploy, and the way back from a settle whose outcome is unknown: the chain is the record of a
// payment. A settlement is confirmed by its receipt: the asset's AuthorizationUsed of this very authorization (payer
// and nonce) and a Transfer of exactly the price from the payer to payTo, both from the asset; an
// authorization whose outcome nobody wrote down is looked up by its nonce, which the token marks used once and only
// once (EIP-3009), so settling the same authorization again can never move the funds twice.

const eip3009Abi = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
])

/**
 * The most blocks one AuthorizationUsed lookup spans: within what providers take in one `eth_getLogs` (500 is the
 * smallest common limit), and past an authorization's life (5 minutes is about 150 Base blocks).
 */
export const LOG_RANGE_BLOCKS = 500n

/** What a settlement must have moved, and the authorization (its payer's nonce) it must have used to move it. */
export type ExpectedTransfer = { asset: Address; payer: Address; payTo: Address; amount: bigint; nonce: Hex }

/**
 * How a settlement reads on chain: confirmed, not this payment (or reverted), not known to this node yet (it may lag the
 * facilitator's), or not readable now (the RPC failed).
 */
export type SettlementCheck = 'confirmed' | 'not-confirmed' | 'not-found' | 'unreadable'

/**
 * Whether `transaction`'s receipt used this authorization (the asset's AuthorizationUsed of the payer and nonce) and
 * holds a Transfer of exactly `amount` of `asset` from the payer to payTo (one read). Another payment of the same
 * price by the same payer in that transaction does not confirm this one.
 */
export async function confirmSettlement(
  publicClient: PublicClient,
  transaction: Hex,
  expected: ExpectedTransfer,
): Promise<SettlementCheck> {
  let receipt: Awaited<ReturnType<PublicClient['getTransactionReceipt']>>
  try {
    receipt = await publicClient.getTransactionReceipt({ hash: transaction })
  } catch (error) {
    // Not (yet) known to this node, or no answer: nothing is known either way.
    return error instanceof TransactionReceiptNotFoundError ? 'not-found' : 'unreadable'
  }
  if (receipt.status !== 'success') return 'not-confirmed'
  const used = parseEventLogs({ abi: eip3009Abi, eventName: 'AuthorizationUsed', logs: receipt.logs }).some(
    (log) =>
      isAddressEqual(log.address, expected.asset) &&
      isAddressEqual(log.args.authorizer, expected.payer) &&
      log.args.nonce.toLowerCase() === expected.nonce.toLowerCase(),
  )
  if (!used) return 'not-confirmed'
  const transfers = parseEventLogs({ abi: eip3009Abi, eventName: 'Transfer', logs: receipt.logs })
  const paid = transfers.some(
    (log) =>
      isAddressEqual(log.address, expected.asset) &&
      isAddressEqual(log.args.from, expected.payer) &&
      isAddressEqual(log.args.to, expected.payTo) &&
      log.args.value === expected.amount,
  )
  return paid ? 'confirmed' : 'not-confirmed'
}

/**
 * Where an authorization stands on chain: unused (with the latest block's time: past its `validBefore`, it can never
 * be used), used by a transaction (confirmed or not), used with no AuthorizationUsed in the range looked at, or not
 * readable now.
 */
export type AuthorizationOnChain =
  | { kind: 'unused'; chainTime: number }
  | { kind: 'settled'; transaction: Hex; check: SettlementCheck }
  | { kind: 'used-elsewhere' }
  /** The payer cancelled it (`cancelAuthorization`): it can never move the funds. */
  | { kind: 'canceled' }
  | { kind: 'unreadable' }

/** Parameters of {@link findSettlement}: the block the settle was asked at, where its transaction can be no earlier. */
export type FindSettlementParameters = { fromBlock?: bigint | null }

/**
 * Looks an authorization up on chain, for a settle whose outcome is unknown (a timeout, a pending answer, a crash):
 * the latest block, then `authorizationState` at that block (two reads, whenever asked); only a used nonce is then looked for in
 * the asset's AuthorizationUsed logs, over at most {@link LOG_RANGE_BLOCKS} blocks from the block its settle was asked
 * at (a provider's `eth_getLogs` range; an authorization lives minutes, a few hundred blocks at most), and its
 * transaction's receipt is checked.
 */
export async function findSettlement(
  publicClient: PublicClient,
  expected: ExpectedTransfer,
  { fromBlock = null }: FindSettlementParameters = {},
): Promise<AuthorizationOnChain> {
  const { nonce } = expected
  try {
    // The state is read at the very block whose time is compared: asked at "latest" beside it, a node lagging behind
    // the one that gave the block could say "unused, and past validBefore" of a transfer mined just before it.
    const latest = await publicClient.getBlock({ blockTag: 'latest' })
    const latestNumber = latest.number ?? 0n
    const used = await publicClient.readContract({
      address: expected.asset,
      abi: eip3009Abi,
      functionName: 'authorizationState',
      args: [expected.payer, nonce],
      blockNumber: latestNumber,
    })
    if (!used) return { kind: 'unused', chainTime: Number(latest.timestamp) }
    const from = fromBlock ?? (latestNumber > LOG_RANGE_BLOCKS ? latestNumber - LOG_RANGE_BLOCKS : 0n)
    const to = from + LOG_RANGE_BLOCKS < latestNumber ? from + LOG_RANGE_BLOCKS : latestNumber
    const logs = await publicClient.getLogs({
      address: expected.asset,
      event: eip3009Abi[1],
      args: { authorizer: expected.payer, nonce },
      fromBlock: from,
      toBlock: to,
    })
    const transaction = logs.at(-1)?.transactionHash
    if (!transaction) {
      const canceled = await publicClient.getLogs({
        address: expected.asset,
        event: eip3009Abi[2],
        args: { authorizer: expected.payer, nonce },
        fromBlock: from,
        toBlock: to,
      })
      return canceled.length > 0 ? { kind: 'canceled' } : { kind: 'used-elsewhere' }
    }
    return { kind: 'settled', transaction, check: await confirmSettlement(publicClient, transaction, expected) }
  } catch {
    return { kind: 'unreadable' }
  }
}
