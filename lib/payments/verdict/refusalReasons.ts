// Why the door refused a payment, in its own words. A facilitator's reasons are its own vocabulary (@x402/evm's
// `invalid_exact_evm_*`, a hosted facilitator's, any string at all): they go to the log as they came, never into an
// answer. The door answers one of the reasons below, with its sentence; its local checks (door/localChecks.ts) already
// speak these words.

/** The reasons a 402 of the door may carry in `reason`, each with the sentence its `error` says. */
export const DOOR_REFUSAL_REASONS = {
  insufficient_funds: 'The payer’s balance of the asset is below the price.',
  invalid_signature: 'The authorization’s signature does not verify for this asset.',
  authorization_expired: 'The authorization has expired (validBefore is past).',
  authorization_not_yet_valid: 'The authorization is not valid yet (validAfter is in the future).',
  authorization_too_long: 'The authorization is valid for longer than the requirements allow.',
  authorization_used: 'The authorization was already used or canceled.',
  authorization_canceled: 'The authorization was canceled on chain.',
  amount_mismatch: 'The payment does not accept exactly the price.',
  value_mismatch: 'The authorization does not pay exactly the price.',
  asset_mismatch: 'The payment is not in the asset the door takes.',
  pay_to_mismatch: 'The payment does not go to the door’s payTo.',
  recipient_mismatch: 'The authorization does not pay the door’s payTo.',
  network_mismatch: 'The payment is not on the network the door takes.',
  scheme_mismatch: 'The payment is not in the scheme the door takes (exact, EIP-3009).',
  unsupported_payer: 'The payer’s wallet cannot make this kind of payment (an undeployed smart wallet, say).',
  settlement_failed: 'The transfer could not be made.',
  payment_refused: 'The facilitator refused the payment.',
} as const

/** A reason of {@link DOOR_REFUSAL_REASONS}. */
export type DoorRefusalReason = keyof typeof DOOR_REFUSAL_REASONS

/** A facilitator's words, by what they say, to the door's reason: the first that matches, most specific first. */
const BY_WORDS: readonly (readonly [RegExp, DoorRefusalReason])[] = [
  [/insufficient_(balance|funds)/, 'insufficient_funds'],
  [/nonce|already_used|canceled|cancelled/, 'authorization_used'],
  [/signature|eip712_domain|token_(name|version)_mismatch|invalid_owner/, 'invalid_signature'],
  [/valid_before|deadline_expired|expired/, 'authorization_expired'],
  [/valid_after|not_yet_valid/, 'authorization_not_yet_valid'],
  [/recipient|destination|pay_to|spender|receiver/, 'recipient_mismatch'],
  [/value|amount/, 'value_mismatch'],
  [/network/, 'network_mismatch'],
  [/scheme|payload_type/, 'scheme_mismatch'],
  [/smart_wallet|eip3009_not_supported|authorization_required|allowance_required/, 'unsupported_payer'],
  [/transaction|simulation|settle|transfer/, 'settlement_failed'],
]

/** What the door answers for a refusal: its reason and sentence. */
export type DoorRefusal = { reason: DoorRefusalReason; message: string }

/**
 * The door's reason for a refusal given in someone else's words (a facilitator's `invalidReason`/`errorReason`, or
 * the door's own, which map to themselves); anything it does not know is `payment_refused` (pure).
 */
export function doorRefusalOf(said: string): DoorRefusal {
  const own = Object.hasOwn(DOOR_REFUSAL_REASONS, said) ? (said as DoorRefusalReason) : null
  const reason = own ?? BY_WORDS.find(([words]) => words.test(said.toLowerCase()))?.[1] ?? 'payment_refused'
  return { reason, message: DOOR_REFUSAL_REASONS[reason] }
}
