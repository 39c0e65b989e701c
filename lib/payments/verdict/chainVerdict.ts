import type { Address, Hex } from 'viem'
import type { DeployServices } from '../../deploy/services.js'
import type { Clock } from '../../platform/clock.js'
import type { PaymentsConfig } from '../config.js'
import { confirmSettlement, type ExpectedTransfer, findSettlement, type SettlementCheck } from './settlementOnChain.js'

// What the chain says of a payment whose settle was asked for, whatever the facilitator said: the chain has the last
// word (the authorization's nonce is used once at most). A settle that timed out, answered `settlement_pending`,
// failed half-way or was asked for by an instance that died is unknown until the chain decides it, by the transaction
// a pending answer named, by `authorizationState`, and, once the authorization's `validBefore` is past with nothing
// mined, as "not paid". The paid door's settle and the tick's reconciliation both ask here.

/** How often, and how far apart, a settlement the RPC does not know yet is asked for again (a node a block behind). */
const CONFIRM_ATTEMPTS = 3
const CONFIRM_PAUSE_MS = 1000

/** What the parts that decide a payment from the chain need: the chain, the door's settings and clock. */
export type ChainContext = {
  services: Pick<DeployServices, 'publicClient'>
  /** Who a record from before payTo was kept paid. */
  config: Pick<PaymentsConfig, 'payTo'>
  clock: Clock
}

/**
 * A payment whose settle was asked for, as the chain is asked about it (a ledger record is one): its authorization
 * (payer, nonce, validBefore), its terms, and what its settle named.
 */
export type AskedSettlement = {
  payer: string
  nonce: string
  asset: string
  amount: string
  /** Who it paid; a record from before payTo was kept pays the configured one. */
  payTo?: string
  /** When the authorization lapses (unix seconds). */
  validBefore: number
  /** The settlement's transaction, when the settle named one. */
  transaction: string | null
  /** The latest block when its settle was asked for: its transaction can be no earlier. */
  fromBlock?: string
}

/** What the settlement of a payment must move on chain: the terms it was taken under. */
export function expectedTransferOf(config: Pick<PaymentsConfig, 'payTo'>, asked: AskedSettlement): ExpectedTransfer {
  return {
    asset: asked.asset as Address,
    payer: asked.payer as Address,
    payTo: (asked.payTo ?? config.payTo) as Address,
    amount: BigInt(asked.amount),
    nonce: asked.nonce as Hex,
  }
}

/**
 * Reads the settlement's receipt; `patient`, asks again while the RPC does not know it yet (the facilitator's node may
 * lead ours right after it answered "settled"). A pending transaction is asked about once.
 */
async function confirmed(context: ChainContext, asked: AskedSettlement, transaction: Hex, patient: boolean): Promise<SettlementCheck> {
  const expected = expectedTransferOf(context.config, asked)
  for (let attempt = 1; ; attempt++) {
    const check = await confirmSettlement(context.services.publicClient, transaction, expected)
    // Asked again only while the node does not know it yet; an RPC that does not answer is not asked twice.
    if (!patient || check !== 'not-found' || attempt >= CONFIRM_ATTEMPTS) return check
    // A wait for the network, on the door's clock.
    await context.clock.sleep(CONFIRM_PAUSE_MS)
  }
}

/**
 * The facilitator's reasons that come only before anything is broadcast (the exact EVM scheme's, in @x402/evm's
 * `exact/facilitator/errors.ts`: a settle verifies and simulates first, and refuses with these before it sends). With
 * the authorization unused on chain, such a refusal means not paid. Any other reason may follow a broadcast
 * (`invalid_exact_evm_transaction_failed` when the send threw, with the node holding the transfer, or a hosted
 * facilitator's own words): the payment stays unknown until the chain shows the nonce used or `validBefore` past.
 */
export const REFUSED_BEFORE_BROADCAST: ReadonlySet<string> = new Set([
  'invalid_exact_evm_scheme',
  'invalid_exact_evm_network_mismatch',
  'invalid_exact_evm_missing_eip712_domain',
  'invalid_exact_evm_recipient_mismatch',
  'invalid_exact_evm_signature',
  'invalid_exact_evm_payload_authorization_valid_before',
  'invalid_exact_evm_payload_authorization_valid_after',
  'invalid_exact_evm_authorization_value',
  'invalid_exact_evm_payload_authorization_value_mismatch',
  'invalid_exact_evm_payload_undeployed_smart_wallet',
  'invalid_exact_evm_token_name_mismatch',
  'invalid_exact_evm_token_version_mismatch',
  'invalid_exact_evm_eip3009_not_supported',
  'invalid_exact_evm_insufficient_balance',
  'invalid_exact_evm_transaction_simulation_failed',
  'invalid_exact_evm_failed_to_parse_signature',
  'unsupported_payload_type',
])

/** What the chain says of a payment whose settle was asked for: paid (seen or not yet), not paid, or unknown for now. */
export type ChainVerdict = { kind: 'paid'; transaction: Hex; confirmed: boolean } | { kind: 'unpaid'; reason: string } | { kind: 'unknown' }

/** Parameters of {@link settlementOf}. */
export type SettlementOfParameters = {
  /** The facilitator's refusal, when it refused (a pending answer is no refusal). */
  refusedFor?: string | null
  /** Whether the payment's transaction was just answered as settled (its receipt may lag a block). */
  justSettled?: boolean
}

/**
 * Decides a payment from the chain, with a few reads and no log scan past one provider range: the receipt of the
 * transaction its settle named, else `authorizationState` (used: its AuthorizationUsed, looked for from the block the
 * settle was asked at). Not paid only when the facilitator refused for a reason that comes before any broadcast
 * ({@link REFUSED_BEFORE_BROADCAST}) and nothing it named is pending, or when the latest block is past `validBefore`
 * and the nonce is unused (the token can never take it now).
 */
export async function settlementOf(
  context: ChainContext,
  asked: AskedSettlement,
  { refusedFor = null, justSettled = false }: SettlementOfParameters = {},
): Promise<ChainVerdict> {
  let pending = false
  if (asked.transaction) {
    const transaction = asked.transaction as Hex
    const check = await confirmed(context, asked, transaction, justSettled)
    if (check === 'confirmed') return { kind: 'paid', transaction, confirmed: true }
    // The facilitator said "settled" and the chain cannot show it yet: paid, kept as a credit until it does.
    if (justSettled && check !== 'not-confirmed') return { kind: 'paid', transaction, confirmed: false }
    if (check === 'unreadable') return { kind: 'unknown' }
    pending = check === 'not-found'
  }
  const fromBlock = asked.fromBlock ? BigInt(asked.fromBlock) : null
  const found = await findSettlement(context.services.publicClient, expectedTransferOf(context.config, asked), { fromBlock })
  if (found.kind === 'settled' && found.check !== 'not-confirmed')
    return { kind: 'paid', transaction: found.transaction, confirmed: found.check === 'confirmed' }
  if (found.kind === 'canceled') return { kind: 'unpaid', reason: 'authorization_canceled' }
  if (found.kind !== 'unused') return { kind: 'unknown' }
  if (found.chainTime >= asked.validBefore) return { kind: 'unpaid', reason: refusedFor ?? 'authorization_expired' }
  if (refusedFor !== null && !pending && REFUSED_BEFORE_BROADCAST.has(refusedFor)) return { kind: 'unpaid', reason: refusedFor }
  return { kind: 'unknown' }
}
