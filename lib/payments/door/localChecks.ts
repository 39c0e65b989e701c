import type { PaymentRequirements } from '@x402/core/types'
import { recoverTypedDataAddress } from 'viem'
import type { DecodedPayment } from './paymentPayload.js'

// Step 2 of a paid request: what can be checked without asking anyone, so the facilitator never sees garbage. The
// payment is held to the requirements the server built (never to its own `accepted` echo of them).

/**
 * How long an authorization must stay valid past now to be taken: the path to the settle (verify, simulation) takes
 * a few seconds, and the facilitator refuses one that lapses within 6 s.
 */
export const AUTHORIZATION_MARGIN_SECONDS = 30

/** Why a payment failed a local check: an x402-style reason for programs, and a sentence for people. */
export type LocalCheckFailure = { reason: string; message: string }

/** The EIP-712 type of an EIP-3009 authorization, as USDC and x402's exact scheme sign it. */
const TRANSFER_WITH_AUTHORIZATION = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
] as const

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/**
 * The payment's terms against the server's requirements (pure): the scheme, network, asset, amount and payTo it
 * claims to accept must be the server's, and the authorization must pay exactly the price to payTo.
 */
export function checkPaymentTerms(payment: DecodedPayment, requirements: PaymentRequirements): LocalCheckFailure | null {
  const { accepted } = payment.payload
  const { authorization } = payment
  if (accepted.scheme !== requirements.scheme)
    return { reason: 'scheme_mismatch', message: `Only the ${requirements.scheme} scheme is taken.` }
  if (accepted.network !== requirements.network)
    return { reason: 'network_mismatch', message: `Payments are taken on ${requirements.network} only.` }
  if (!same(accepted.asset, requirements.asset))
    return { reason: 'asset_mismatch', message: `Payments are taken in ${requirements.asset} only.` }
  if (accepted.amount !== requirements.amount)
    return { reason: 'amount_mismatch', message: `The price is ${requirements.amount} base units, not what the payment accepted.` }
  if (!same(accepted.payTo, requirements.payTo)) return { reason: 'pay_to_mismatch', message: `Payments go to ${requirements.payTo}.` }
  if (!same(authorization.to, requirements.payTo))
    return { reason: 'recipient_mismatch', message: `The authorization must pay ${requirements.payTo}.` }
  if (authorization.value !== BigInt(requirements.amount))
    return { reason: 'value_mismatch', message: `The authorization must pay exactly ${requirements.amount} base units.` }
  return null
}

/**
 * The authorization's validity window (pure, on the wall clock, as the token and the facilitator judge it): open now
 * and for {@link AUTHORIZATION_MARGIN_SECONDS} more; `validAfter` 0 is open.
 */
export function checkValidityWindow(payment: DecodedPayment, nowSeconds: number): LocalCheckFailure | null {
  const { authorization } = payment
  if (authorization.validAfter > BigInt(nowSeconds))
    return { reason: 'authorization_not_yet_valid', message: 'The authorization is not valid yet (validAfter is in the future).' }
  if (authorization.validBefore < BigInt(nowSeconds + AUTHORIZATION_MARGIN_SECONDS))
    return {
      reason: 'authorization_expired',
      message: `The authorization expires within ${AUTHORIZATION_MARGIN_SECONDS} s (validBefore): sign a fresh one.`,
    }
  return null
}

/**
 * How far past the requirements' `maxTimeoutSeconds` an authorization's `validBefore` may reach: the payer's clock
 * may run ahead of the door's by this much.
 */
export const AUTHORIZATION_CLOCK_SKEW_SECONDS = 60

/**
 * The authorization's length (pure): `validBefore` at most `maxTimeoutSeconds` (and {@link AUTHORIZATION_CLOCK_SKEW_SECONDS})
 * past now, as x402 clients sign it. The door looks for a settle's transfer on chain only that long after it, and
 * decides "not paid" once `validBefore` has passed: a longer one would keep a payment undecided for as long as it says.
 */
export function checkValidityLength(payment: DecodedPayment, nowSeconds: number, maxTimeoutSeconds: number): LocalCheckFailure | null {
  if (payment.authorization.validBefore <= BigInt(nowSeconds + maxTimeoutSeconds + AUTHORIZATION_CLOCK_SKEW_SECONDS)) return null
  return {
    reason: 'authorization_too_long',
    message: `The authorization is valid for too long: validBefore may be at most ${maxTimeoutSeconds} s ahead (the requirements' maxTimeoutSeconds); sign one that ends sooner.`,
  }
}

/** Whether the payment's signature recovers to its `from` in the asset's EIP-712 domain (false for anything malformed). */
export async function signatureRecoversToPayer(
  payment: DecodedPayment,
  requirements: PaymentRequirements,
  chainId: number,
): Promise<boolean> {
  const { name, version } = (requirements.extra ?? {}) as { name?: string; version?: string }
  if (payment.signature.length !== 132) return false // 65 bytes: an EOA's signature, the only kind that recovers
  try {
    // Lower case: an address written in mixed case that is not its checksum would be refused by viem, not hashed.
    const { from, to } = payment.authorization
    const recovered = await recoverTypedDataAddress({
      domain: { name, version, chainId, verifyingContract: requirements.asset.toLowerCase() as `0x${string}` },
      types: { TransferWithAuthorization: TRANSFER_WITH_AUTHORIZATION },
      primaryType: 'TransferWithAuthorization',
      message: { ...payment.authorization, from: from.toLowerCase() as `0x${string}`, to: to.toLowerCase() as `0x${string}` },
      signature: payment.signature,
    })
    return same(recovered, payment.authorization.from)
  } catch {
    return false
  }
}
