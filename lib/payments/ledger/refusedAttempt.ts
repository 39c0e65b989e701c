import { reserveCapSlots } from '../../deploy/pipeline/capWindow.js'
import type { DeployServices } from '../../deploy/services.js'
import type { Store } from '../../store/types.js'
import type { PaymentsConfig } from '../config.js'
import type { PaymentKeys } from '../keys.js'
import type { PaymentRecord } from './paymentRecord.js'

// A payment verified and then not paid (the payer cancelled the authorization, or spent its funds, between verify and
// settle) costs the door a verify, a simulation and a settle, and costs the payer nothing: its deploy's cap slots go
// back with the refusal. So each such attempt takes a slot of the payer's own rolling cap (`X402_PAYER_DAILY_CAP`):
// a loop of them runs out of slots like a loop of deploys would, and never touches other payers' room.

/**
 * Counts a payment refused after its settle was asked for against its payer's rolling cap (best effort: once per
 * payment, whatever decides it; a full cap is left as it is).
 */
export async function countRefusedAttempt(
  context: {
    store: Store
    keys: PaymentKeys
    config: Pick<PaymentsConfig, 'payerDailyCap'>
    services: Pick<DeployServices, 'config' | 'clock'>
  },
  record: PaymentRecord,
): Promise<void> {
  const { store, keys, config, services } = context
  await reserveCapSlots(store, {
    caps: [{ key: keys.payerCap(record.payer), limit: config.payerDailyCap }],
    // One slot per payment: deciding it twice (a resend, the tick) takes no second one.
    member: `refused:${record.payer.toLowerCase()}:${record.nonce.toLowerCase()}`,
    windowMs: services.config.capWindowSeconds * 1000,
    now: services.clock.now(),
  })
}
