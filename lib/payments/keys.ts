/**
 * Every shared-store key of the paid door, in one place: its rolling caps, each payment's record and the
 * lease an instance holds while it works on one, the Idempotency-Keys of payers, the payments that reached a settle
 * (what `npm run agents -- credits` lists), the per-client throttle and the per-payer verify budget. It imports nothing.
 */

/** Parameters of {@link paymentKeys}. */
export type PaymentKeysParameters = { storePrefix: string; chainId: number }

/** The paid door's store keys; payers and nonces are taken in lower case. */
export function paymentKeys({ storePrefix, chainId }: PaymentKeysParameters) {
  const base = `${storePrefix}x402:${chainId}`
  return {
    /** The rolling cap of every paid deploy (`X402_DAILY_CAP`). */
    cap: `${base}:cap`,
    /** One payer's rolling cap (`X402_PAYER_DAILY_CAP`). */
    payerCap: (payer: string) => `${base}:cap:payer:${payer.toLowerCase()}`,
    /** The record of one payment, keyed by its authorization: the payer and the EIP-3009 nonce. */
    payment: (payer: string, nonce: string) => `${base}:payment:${payer.toLowerCase()}:${nonce.toLowerCase()}`,
    /** What a payment record's key starts with (the CLI reads records by it). */
    paymentPrefix: `${base}:payment:`,
    /** The lease of the instance working on a payment: one at a time, across instances. */
    lease: (payer: string, nonce: string) => `${base}:lease:${payer.toLowerCase()}:${nonce.toLowerCase()}`,
    /** A payer's Idempotency-Key (or payment id), by its SHA-256: which payment it went with. */
    idempotency: (payer: string, keyHash: string) => `${base}:idempotency:${payer.toLowerCase()}:${keyHash}`,
    /** Every payment that reached a settle, by when: the credits an operator may have to refund are among them. */
    settled: `${base}:settled`,
    /** Where the tick's look through the open payments, oldest first, goes on from: the last one's time (epoch ms). */
    reconcileCursor: `${base}:settled:cursor`,
    /** One payer's open payments (a bound: a payer cannot push others' credits out of the operator's list). */
    payerOpen: (payer: string) => `${base}:settled:payer:${payer.toLowerCase()}`,
    /** Which payment's deploy creates the token at an address (claimed before its settle). */
    address: (predicted: string) => `${base}:address:${predicted.toLowerCase()}`,
    /** The per-client throttle of the door, by client address. */
    throttle: (client: string) => `${base}:throttle:${client}`,
    /** One payer's verifies of the last minute (a sliding log: the door's budget per payer). */
    payerVerifies: (payer: string) => `${base}:verifies:${payer.toLowerCase()}`,
  }
}

/** The paid door's store keys, as {@link paymentKeys} makes them. */
export type PaymentKeys = ReturnType<typeof paymentKeys>
