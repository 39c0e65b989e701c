import { listIndexed, listIndexedAfter } from '../../store/recordIndex.js'
import { parseRecord } from '../../store/records.js'
import type { Store } from '../../store/types.js'
import type { PaymentKeys } from '../keys.js'
import { type PaymentRecord, paymentRecordSchema } from './paymentRecord.js'

// The open payments as the tick pages through them and the operator lists them (`npm run agents -- payments`,
// `credits`): every payment filed on the open list (paymentRecord.ts's saveOpenPayment) that did not end.

/**
 * A page of the open payments filed after `after` (epoch ms), oldest first, each with when it was filed: up to
 * `limit`, the time of the last one looked at (where the next page starts), and whether more follow.
 */
export async function listOpenPaymentsAfter(
  store: Store,
  keys: PaymentKeys,
  after: number,
  limit: number,
): Promise<{ payments: { record: PaymentRecord; filedAt: number }[]; lastAt: number | null; more: boolean }> {
  const page = await listIndexedAfter(store, { indexKey: keys.settled, recordPrefix: keys.paymentPrefix, limit, after })
  const payments = page.entries.flatMap(({ record: value, score }) => {
    const record = parseRecord(paymentRecordSchema, value)
    return record && record.state !== 'deployed' && record.state !== 'refused' ? [{ record, filedAt: score }] : []
  })
  return { payments, lastAt: page.lastScore, more: page.more }
}

/** The open payments, newest first: every one that reached a settle and did not end deployed or refused, and every pool's part credited. */
export async function listOpenPayments(store: Store, keys: PaymentKeys, limit = 1000): Promise<PaymentRecord[]> {
  const values = await listIndexed(store, { indexKey: keys.settled, recordPrefix: keys.paymentPrefix, limit })
  return values
    .map((value) => parseRecord(paymentRecordSchema, value))
    .filter((r): r is PaymentRecord => r !== null && ((r.state !== 'deployed' && r.state !== 'refused') || r.poolCredit !== undefined))
}
