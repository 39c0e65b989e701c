import { defineScript, type Store } from '../../store/types.js'
import type { PaymentKeys } from '../keys.js'

// How long the ledger keeps what it writes. Anyone can sign a valid x402 payment from a random, unfunded key, so what
// a payment writes before the facilitator's verify passed (its `verifying` record and its Idempotency-Key's claim)
// lives minutes, as does a payment found not paid (`refused`: nothing to refund, nothing to decide). From the settle
// on, a payment may have moved funds: its record (`settling` and every state after it) and the Idempotency-Key that
// went with it are kept as long as a credit must be, written so before the settle is asked for.

/** How long a payment whose settle was asked for is kept, with its answer and key: a credit must outlive a holiday. */
export const PAYMENT_RECORD_TTL_MS = 30 * 86_400_000

/**
 * How long a payment's record and Idempotency-Key live before its settle (`verifying`), and once it is `refused`:
 * past the payment's lease (150 s, a request's longest path), so no request working on a payment outlives them.
 */
export const UNSETTLED_TTL_MS = 5 * 60_000

/**
 * Gives a payer's Idempotency-Key a new lifetime while it still names this payment (payer and nonce, in lower case).
 * KEYS[1] the key; ARGV: payer, nonce, TTL ms. Answers 1, or 0 when it names another payment or has lapsed.
 */
const keepKeyScript = defineScript<number>({
  name: 'payment-key keep',
  lua: `
local held = redis.call('GET', KEYS[1])
if not held then return 0 end
local read, alias = pcall(cjson.decode, held)
if not read or type(alias) ~= 'table' or alias.payer ~= ARGV[1] or alias.nonce ~= ARGV[2] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`,
  inProcess: (data, [key], [payer, nonce, ttl]) => {
    const held = data.get(key!)
    if (held === null) return 0
    try {
      const alias = JSON.parse(held) as { payer?: unknown; nonce?: unknown } | null
      if (alias?.payer !== payer || alias?.nonce !== nonce) return 0
    } catch {
      return 0
    }
    data.pexpire(key!, Number(ttl))
    return 1
  },
})

/** Parameters of {@link keepIdempotencyKey}: the payment, and the SHA-256 of the key its request claimed. */
export type KeepIdempotencyKeyParameters = { keys: PaymentKeys; payer: string; nonce: string; keyHash: string }

/**
 * Before a new payment's settle: the Idempotency-Key its request claimed (for minutes) is kept as long as the payment
 * (one store command), so that no other payment under the key is settled while this one may pay. False when the key
 * no longer names this payment: then nothing may be settled.
 */
export async function keepIdempotencyKey(store: Store, { keys, payer, nonce, keyHash }: KeepIdempotencyKeyParameters): Promise<boolean> {
  const args = [payer.toLowerCase(), nonce.toLowerCase(), PAYMENT_RECORD_TTL_MS]
  return (await store.run(keepKeyScript, [keys.idempotency(payer, keyHash)], args)) === 1
}
