import { randomUUID } from 'node:crypto'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { accepted, type Result, refused } from '../../platform/result.js'
import { takeSlots } from '../../store/slidingLog.js'
import type { Store } from '../../store/types.js'
import type { PaymentKeys } from '../keys.js'
import { doorError } from './doorAnswers.js'

// Each verify spends the facilitator's quota (CDP's), and anyone can sign valid payments from a random key, from as
// many client addresses as it holds. So besides the door's throttle per client address, a payer's verifies are
// budgeted: no more a minute than one client address may send requests (`X402_RATE_LIMIT_PER_MINUTE`), whatever
// addresses they come from. It is counted in the shared store, in the service's sliding log (exact across instances,
// one store command, on the door's clock), after the local checks (the signature recovered to the payer, the server's
// requirements matched, the window open): a payment naming a payer who never signed it costs that payer nothing.

/** The budget's window. */
const WINDOW_MS = 60_000

/** Parameters of {@link takePayerVerify}. */
export type TakePayerVerifyParameters = {
  keys: PaymentKeys
  /** The payer the payment's signature recovered to. */
  payer: string
  /** Verifies a payer may have a minute (`X402_RATE_LIMIT_PER_MINUTE`). */
  limit: number
  /** Epoch ms, on the door's clock. */
  now: number
}

/** Result of {@link takePayerVerify}: a verify taken, or the 429 to answer (nothing verified, nothing written). */
export type TakePayerVerifyReturnType = Result<object, 'RATE_LIMITED', { answer: HttpAnswer }>

/** Takes one of the payer's verifies of the minute (one store command; a store failure throws, and nothing is verified). */
export async function takePayerVerify(
  store: Store,
  { keys, payer, limit, now }: TakePayerVerifyParameters,
): Promise<TakePayerVerifyReturnType> {
  const window = { key: keys.payerVerifies(payer), limit, windowMs: WINDOW_MS }
  // One entry per request (a resend of the same payment is verified again, so it counts again).
  const { taken, windows } = await takeSlots(store, { windows: [window], member: `${now}:${randomUUID()}`, now })
  if (taken === 1) return accepted({})
  const retryAfter = Math.max(1, Math.ceil((windows[0]!.oldestAt + WINDOW_MS - now) / 1000))
  const error = `Too many payments from this payer: at most ${limit} are verified a minute, from any client address; nothing was verified, settled or signed. Retry after Retry-After.`
  return refused('RATE_LIMITED', { answer: doorError(429, 'RATE_LIMITED', error, { 'retry-after': String(retryAfter) }) })
}
