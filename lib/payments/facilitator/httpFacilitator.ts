import { type FacilitatorClient, HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { type PaymentPayload, type PaymentRequirements, SettleError, VerifyError } from '@x402/core/types'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { BaseError } from '../../platform/errors.js'
import { type CdpCredentials, cdpAuthHeaders } from './cdpAuth.js'

// Steps 3 and 6 of a paid deploy: the facilitator's verify and settle, through @x402/core's resource server and HTTP
// facilitator client (the same path to a local facilitator as to a hosted one), always against the requirements the
// server built. What comes back is typed: valid or not (and why), settled or not, or "the facilitator did not answer".

/** How long a verify may take: it reads the chain once or twice. */
export const VERIFY_TIMEOUT_MS = 10_000
/**
 * How long one settle attempt may take: it sends the transfer and waits for its receipt (about 2 s on Base). The
 * resource server asks once more after a `settlement_pending` answer, so a settle takes at most twice this.
 */
export const SETTLE_TIMEOUT_MS = 15_000

/** The facilitator could not be asked, or did not answer in time: nothing can be said of the payment from it. */
export class FacilitatorUnavailableError extends BaseError<'FACILITATOR_UNAVAILABLE'> {
  override name = 'FacilitatorUnavailableError'
  constructor(message: string) {
    super(message, { code: 'FACILITATOR_UNAVAILABLE', httpStatus: 503 })
  }
}

/** The facilitator's verdict on a payment. */
export type VerifyVerdict = { kind: 'valid' } | { kind: 'invalid'; reason: string } | { kind: 'unavailable' }

/**
 * How a settle ended: settled (the transaction that moved the funds), refused (`reason`; a transaction when one was
 * sent), or unknown: no answer, or `settlement_pending` (the transfer was sent and is not mined yet), so only the chain
 * can tell. An unknown settle carries the transaction hash any answer of its attempts named (a pending answer's, in
 * a 200 body or an HTTP error body), so that the chain can be asked about that very transaction.
 */
export type SettleVerdict =
  | { kind: 'settled'; transaction: `0x${string}`; payer: string | undefined }
  | { kind: 'refused'; reason: string; transaction: `0x${string}` | null }
  | { kind: 'unknown'; transaction: `0x${string}` | null }

/** x402's reason for a settle whose transfer was sent and is not mined yet (not a refusal). */
export const SETTLEMENT_PENDING = 'settlement_pending'

const transactionHashOf = (value: unknown): `0x${string}` | null =>
  typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value) ? (value.toLowerCase() as `0x${string}`) : null

/** The facilitator as the paid door uses it. */
export type PaymentFacilitator = {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyVerdict>
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleVerdict>
}

/** Parameters of {@link createPaymentFacilitator}. */
export type CreatePaymentFacilitatorParameters = {
  url: string
  /** CDP's key, for Coinbase's hosted facilitator; null for one that needs no credentials. */
  cdp: CdpCredentials | null
  /** The clock CDP's tokens are stamped with. */
  now: () => number
  verifyTimeoutMs?: number
  settleTimeoutMs?: number
}

/** Runs one facilitator call; what the HTTP client throws for no usable answer becomes {@link FacilitatorUnavailableError}. */
async function answered<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    // A refusal in the protocol's own words is an answer; anything else (no connection, a timeout, a 5xx or a body
    // that is not the protocol's) means the facilitator could not be asked.
    if (error instanceof VerifyError || error instanceof SettleError) throw error
    throw new FacilitatorUnavailableError('the facilitator did not answer')
  }
}

/**
 * The facilitator over HTTP: @x402/core's resource server (the exact EVM scheme registered for every eip155 network)
 * over one facilitator client whose verify and settle each have their own deadline.
 */
export function createPaymentFacilitator(parameters: CreatePaymentFacilitatorParameters): PaymentFacilitator {
  const { url, cdp, now, verifyTimeoutMs = VERIFY_TIMEOUT_MS, settleTimeoutMs = SETTLE_TIMEOUT_MS } = parameters
  const createAuthHeaders = cdp ? cdpAuthHeaders(cdp, url, now) : undefined
  const verifying = new HTTPFacilitatorClient({ url, timeoutMs: verifyTimeoutMs, createAuthHeaders })
  const settling = new HTTPFacilitatorClient({ url, timeoutMs: settleTimeoutMs, createAuthHeaders })
  // One client as the resource server sees it (two would make it try the second after the first failed: a settle
  // retried on another client could pay twice).
  const client: FacilitatorClient = {
    verify: (payload, requirements) => answered(() => verifying.verify(payload, requirements)),
    settle: (payload, requirements) => answered(() => settling.settle(payload, requirements)),
    getSupported: () => answered(() => verifying.getSupported()),
  }
  const server = new x402ResourceServer(client).register('eip155:*', new ExactEvmScheme())
  /**
   * A resource server for one settle whose client remembers the transaction hash any of its attempts was answered
   * with (the resource server retries a pending settle once, and the retry may time out: the first hash must not be
   * lost with it).
   */
  const settleServer = () => {
    const seen: { transaction: `0x${string}` | null } = { transaction: null }
    const remember = (value: unknown) => {
      seen.transaction = transactionHashOf(value) ?? seen.transaction
    }
    const tracking: FacilitatorClient = {
      ...client,
      settle: async (payload, requirements) => {
        try {
          const result = await client.settle(payload, requirements)
          remember(result.transaction)
          return result
        } catch (error) {
          if (error instanceof SettleError) remember(error.transaction)
          throw error
        }
      },
    }
    return { seen, server: new x402ResourceServer(tracking).register('eip155:*', new ExactEvmScheme()) }
  }
  return {
    async verify(payload, requirements) {
      try {
        const verdict = await server.verifyPayment(payload, requirements)
        return verdict.isValid ? { kind: 'valid' } : { kind: 'invalid', reason: verdict.invalidReason ?? 'invalid_payment' }
      } catch (error) {
        if (error instanceof VerifyError) return { kind: 'invalid', reason: error.invalidReason ?? 'invalid_payment' }
        if (error instanceof FacilitatorUnavailableError) return { kind: 'unavailable' }
        throw error
      }
    },
    async settle(payload, requirements) {
      const { seen, server: settler } = settleServer()
      try {
        const result = await settler.settlePayment(payload, requirements)
        const transaction = transactionHashOf(result.transaction) ?? seen.transaction
        if (result.success && transaction) return { kind: 'settled', transaction, payer: result.payer }
        if (result.errorReason === SETTLEMENT_PENDING) return { kind: 'unknown', transaction }
        return { kind: 'refused', reason: result.errorReason ?? 'settle_failed', transaction }
      } catch (error) {
        if (error instanceof SettleError) {
          const transaction = transactionHashOf(error.transaction) ?? seen.transaction
          if (error.errorReason === SETTLEMENT_PENDING) return { kind: 'unknown', transaction }
          return { kind: 'refused', reason: error.errorReason ?? 'settle_failed', transaction }
        }
        if (error instanceof FacilitatorUnavailableError) return { kind: 'unknown', transaction: seen.transaction }
        throw error
      }
    },
  }
}
