import type { DeployFailure } from '../../deploy/outcome.js'
import { failure, storeFailureOf } from '../../deploy/outcome.js'
import type { DeployServices } from '../../deploy/services.js'
import type { Clock } from '../../platform/clock.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { errorName } from '../../platform/log.js'
import type { PaymentsConfig } from '../config.js'
import { creditAnswer, domainAnswer, paymentRequiredAnswer } from '../door/doorAnswers.js'
import { checkValidityWindow } from '../door/localChecks.js'
import { SETTLE_TIMEOUT_MS, type SettleVerdict } from '../facilitator/httpFacilitator.js'
import {
  closePayment,
  countOpenPayments,
  creditIdOf,
  PAYER_OPEN_MAX,
  PAYMENT_RECORD_TTL_MS,
  type PaymentRecord,
  saveOpenPayment,
} from '../ledger/paymentRecord.js'
import { countRefusedAttempt } from '../ledger/refusedAttempt.js'
import { confirmSettlement, findSettlement, type SettlementCheck } from '../verdict/settlementOnChain.js'
import { paymentUnknownAnswer } from './paymentUnknown.js'
import { carriesOwnPayment, expectedTransferOf, type PaidDeployContext, type Purchase, paymentRecordOf, summaryOf } from './purchase.js'

// Steps 6 and 7 of a paid deploy, between the simulation and the signature: settle, then see the settlement on chain.
// Whatever the facilitator says, the chain has the last word (the authorization's nonce is used once at most): a
// settle that timed out, answered `settlement_pending`, failed half-way or was asked for by an instance that died is
// `unknown` until the chain decides it, by the transaction a pending answer named, by `authorizationState`, and, once
// the authorization's `validBefore` is past with nothing mined, as "not paid". It is never answered as refused before.

/** How a settle step ended: paid (the record says so, `deploying`), or the answer to give instead of deploying. */
export type SettleStep =
  | { kind: 'paid'; record: PaymentRecord }
  /** `unpaid`: the chain showed it not paid after its settle was asked for (an attempt the payer's cap counts). */
  | { kind: 'refused'; answer: HttpAnswer; unpaid?: PaymentRecord }

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
 * Reads the settlement's receipt; `patient`, asks again while the RPC does not know it yet (the facilitator's node may
 * lead ours right after it answered "settled"). A pending transaction is asked about once.
 */
async function confirmed(
  context: ChainContext,
  record: PaymentRecord,
  transaction: `0x${string}`,
  patient: boolean,
): Promise<SettlementCheck> {
  const expected = expectedTransferOf(context.config, record)
  for (let attempt = 1; ; attempt++) {
    const check = await confirmSettlement(context.services.publicClient, transaction, expected)
    // Asked again only while the node does not know it yet; an RPC that does not answer is not asked twice.
    if (!patient || check !== 'not-found' || attempt >= CONFIRM_ATTEMPTS) return check
    // A wait for the network, on the door's clock.
    await context.clock.sleep(CONFIRM_PAUSE_MS)
  }
}

/** What the chain says of a payment whose settle was asked for: paid (seen or not yet), not paid, or unknown for now. */
export type ChainVerdict =
  | { kind: 'paid'; transaction: `0x${string}`; confirmed: boolean }
  | { kind: 'unpaid'; reason: string }
  | { kind: 'unknown' }

/** Parameters of {@link settlementOf}. */
export type SettlementOfParameters = {
  /** The facilitator's refusal, when it refused (a pending answer is no refusal). */
  refusedFor?: string | null
  /** Whether the record's transaction was just answered as settled (its receipt may lag a block). */
  justSettled?: boolean
}

/**
 * Decides a recorded payment from the chain, with a few reads and no log scan past one provider range: the receipt of
 * the transaction its settle named, else `authorizationState` (used: its AuthorizationUsed, looked for from the block
 * the settle was asked at). Not paid only when the facilitator refused and nothing it named is pending, or when the
 * latest block is past `validBefore` and the nonce is unused (the token can never take it now).
 */
export async function settlementOf(
  context: ChainContext,
  record: PaymentRecord,
  { refusedFor = null, justSettled = false }: SettlementOfParameters = {},
): Promise<ChainVerdict> {
  let pending = false
  if (record.transaction) {
    const transaction = record.transaction as `0x${string}`
    const check = await confirmed(context, record, transaction, justSettled)
    if (check === 'confirmed') return { kind: 'paid', transaction, confirmed: true }
    // The facilitator said "settled" and the chain cannot show it yet: paid, kept as a credit until it does.
    if (justSettled && check !== 'not-confirmed') return { kind: 'paid', transaction, confirmed: false }
    if (check === 'unreadable') return { kind: 'unknown' }
    pending = check === 'not-found'
  }
  const fromBlock = record.fromBlock ? BigInt(record.fromBlock) : null
  const found = await findSettlement(context.services.publicClient, expectedTransferOf(context.config, record), { fromBlock })
  if (found.kind === 'settled' && found.check !== 'not-confirmed')
    return { kind: 'paid', transaction: found.transaction, confirmed: found.check === 'confirmed' }
  if (found.kind === 'canceled') return { kind: 'unpaid', reason: 'authorization_canceled' }
  if (found.kind !== 'unused') return { kind: 'unknown' }
  if (found.chainTime >= record.validBefore) return { kind: 'unpaid', reason: refusedFor ?? 'authorization_expired' }
  if (refusedFor !== null && !pending) return { kind: 'unpaid', reason: refusedFor }
  return { kind: 'unknown' }
}

/** Keeps a settled payment's credit (best effort: if the store is down, the record before it and the chain keep it). */
export async function keepCredit(
  context: PaidDeployContext,
  purchase: Purchase,
  record: PaymentRecord,
  why: DeployFailure,
): Promise<HttpAnswer> {
  const credit = { id: creditIdOf(purchase.payer, purchase.nonce), code: why.code, at: context.services.clock.now() }
  const kept: PaymentRecord = { ...record, state: 'credit', credit }
  await saveOpenPayment(context.store, purchase, kept).catch((error: unknown) => {
    context.services.logger.error('store_unavailable', {
      operation: 'x402-credit',
      error: errorName(error),
      effect: 'credit kept by the chain',
    })
  })
  context.services.logger.warn('x402_credit', { credit: credit.id, code: why.code, payer: purchase.payer, transaction: record.transaction })
  return creditAnswer(why, credit.id, summaryOf(kept))
}

/** The answer when the chain cannot confirm a settlement yet: paid, nothing signed, retry later. */
const unconfirmed = failure('RPC_UNAVAILABLE', 'The chain RPC cannot confirm the settlement yet; nothing was signed.', {
  retryAfterSeconds: 5,
})

/**
 * A paid outcome: confirmed on chain, the record becomes `deploying` (written before the signature it allows; if it
 * cannot be written, nothing is signed and the payment is a credit); not seen yet, the deploy must wait, as a credit.
 */
export async function paidStep(
  context: PaidDeployContext,
  purchase: Purchase,
  record: PaymentRecord,
  outcome: { transaction: `0x${string}`; confirmed: boolean },
): Promise<SettleStep> {
  const paid: PaymentRecord = { ...record, state: 'deploying', transaction: outcome.transaction, confirmed: outcome.confirmed }
  if (!outcome.confirmed) return { kind: 'refused', answer: await keepCredit(context, purchase, paid, unconfirmed) }
  try {
    await saveOpenPayment(context.store, purchase, paid)
  } catch (error) {
    const why = storeFailureOf(error, {
      logger: context.services.logger,
      operation: 'x402-deploying',
      effect: 'paid, not signed',
      message: 'The deploy coordinator (Redis) is unavailable; your payment was settled and nothing was signed.',
    })
    return { kind: 'refused', answer: await keepCredit(context, purchase, paid, why) }
  }
  return { kind: 'paid', record: paid }
}

/**
 * Marks a payment `refused`: nothing was paid, the chain says so. The record stays (an Idempotency-Key that went with
 * it is free for a new payment, atomically) and leaves the open list.
 */
export async function refusePayment(
  context: Pick<PaidDeployContext, 'store' | 'keys'>,
  record: PaymentRecord,
  reason: string,
): Promise<void> {
  const { store, keys } = context
  const refused: PaymentRecord = { ...record, state: 'refused', reason }
  await store.set(keys.payment(record.payer, record.nonce), JSON.stringify(refused), PAYMENT_RECORD_TTL_MS)
  await closePayment(store, { keys, payer: record.payer, nonce: record.nonce }).catch(() => undefined)
}

/** 402 PAYMENT_FAILED for a payment the chain shows unpaid, its record `refused` first (best effort: the chain keeps it). */
async function unpaidAnswer(context: PaidDeployContext, record: PaymentRecord, reason: string): Promise<HttpAnswer> {
  await refusePayment(context, record, reason).catch(() => undefined)
  // Verified, settled for and not paid: the attempt counts against the payer's cap (a cancel-between loop runs dry).
  await countRefusedAttempt(context, record).catch(() => undefined)
  const { requirements, url } = context
  const error = 'The payment could not be settled; the chain shows nothing was paid, and nothing was signed.'
  return paymentRequiredAnswer({ requirements, url, code: 'PAYMENT_FAILED', error, reason })
}

/** Records a settle whose outcome is unknown (with the transaction it named) and answers it, naming the payment. */
async function unknownAnswer(context: PaidDeployContext, purchase: Purchase, record: PaymentRecord): Promise<HttpAnswer> {
  const unknown: PaymentRecord = { ...record, state: 'unknown' }
  await saveOpenPayment(context.store, purchase, unknown).catch((error: unknown) => {
    // The `settling` record written before the settle stays: it says as much, without the transaction.
    context.services.logger.error('store_unavailable', { operation: 'x402-unknown', error: errorName(error), effect: 'settling kept' })
  })
  context.services.logger.warn('x402_payment_unknown', { payer: record.payer, transaction: record.transaction })
  return paymentUnknownAnswer(unknown)
}

/** A payer with {@link PAYER_OPEN_MAX} payments open: refused before the settle, nothing paid. */
const tooManyOpen = failure(
  'DEPLOY_CAP_REACHED',
  `This payer has ${PAYER_OPEN_MAX} payments whose outcome is still open (undecided settles, credits to redeem); nothing was settled or signed. Resend those (the same payment or Idempotency-Key) first, or retry later.`,
  { retryAfterSeconds: 60 },
)

/**
 * The most a request may have run when its settle starts (the door's clock, from the payment's first check): what
 * follows must fit in the function's 120 s maxDuration with room: the settle (two attempts of
 * {@link SETTLE_TIMEOUT_MS}), the receipt check (about 5 s), the nonce lock's wait (20 s), KMS and the waiting send
 * (about 15 s). A request past it settles nothing, rather than be cut off between a settle and its deploy.
 */
export const SETTLE_START_BUDGET_MS = 30_000

/** Refuses a settle that could not finish with its deploy inside the function's time (see SETTLE_START_BUDGET_MS). */
function tooLateToSettle(context: PaidDeployContext): DeployFailure | null {
  if (context.clock.now() - context.startedAt <= SETTLE_START_BUDGET_MS) return null
  return failure(
    'DEPLOY_BUSY',
    'This request took too long before its settle to finish the deploy in time; nothing was settled or signed. Resend it.',
    { retryAfterSeconds: 2 },
  )
}

/**
 * Settles the payment and decides it from the chain, before anything is signed. The `settling` record (with the block
 * the settle is asked at) is written first: no settle without it. Then: paid and confirmed, `deploying`; not paid (the
 * chain agrees with a refusal), 402 PAYMENT_FAILED; anything else, `unknown` with the transaction a pending answer
 * named, answered 202 PAYMENT_UNKNOWN.
 */
export async function settleForDeploy(
  context: PaidDeployContext,
  purchase: Purchase,
  retrying: PaymentRecord | null = null,
): Promise<SettleStep> {
  const late = tooLateToSettle(context)
  if (late) return { kind: 'refused', answer: domainAnswer(late) }
  const fromBlock = await context.services.publicClient.getBlockNumber().catch(() => null)
  const first = retrying ?? paymentRecordOf(context, purchase, 'settling')
  const record: PaymentRecord = {
    ...first,
    state: 'settling',
    fromBlock: first.fromBlock ?? fromBlock?.toString(),
  }
  try {
    // A payer who has many open already (a loop of authorizations cancelled between verify and settle leaves each one
    // undecided for a while) opens no more: the operator's list keeps everyone's credits in view.
    if (!retrying && (await countOpenPayments(context.store, purchase)) >= PAYER_OPEN_MAX)
      return { kind: 'refused', answer: domainAnswer(tooManyOpen) }
    await saveOpenPayment(context.store, purchase, record)
  } catch (error) {
    const refusal = storeFailureOf(error, {
      logger: context.services.logger,
      operation: 'x402-settle',
      effect: 'payment not settled',
      message: 'The deploy coordinator (Redis) is unavailable; nothing was settled or signed. Try again shortly.',
    })
    return { kind: 'refused', answer: domainAnswer(refusal) }
  }
  const verdict: SettleVerdict = await context.facilitator.settle(purchase.payment.payload, context.requirements)
  const named: PaymentRecord = verdict.transaction ? { ...record, transaction: verdict.transaction } : record
  const said = await settlementOf(context, named, {
    refusedFor: verdict.kind === 'refused' ? verdict.reason : null,
    justSettled: verdict.kind === 'settled',
  })
  if (said.kind === 'paid') return paidStep(context, purchase, named, said)
  if (said.kind === 'unpaid') return { kind: 'refused', answer: await unpaidAnswer(context, named, said.reason), unpaid: named }
  return { kind: 'refused', answer: await unknownAnswer(context, purchase, named) }
}

/**
 * A payment found `settling` or `unknown` by a retry (its settle timed out or was pending, or its instance died): paid
 * or not paid if the chain says so; else settled again when the request carries this very payment, its settle named
 * no transaction and its authorization is still valid (safe: the nonce is used once at most); else still unknown.
 * The payment an Idempotency-Key went with is never settled from a request that carries another.
 */
export async function resumeSettling(
  context: PaidDeployContext,
  purchase: Purchase,
  record: PaymentRecord,
): Promise<SettleStep | { kind: 'settle-again' }> {
  const said = await settlementOf(context, record)
  if (said.kind === 'paid') return paidStep(context, purchase, record, said)
  if (said.kind === 'unpaid') return { kind: 'refused', answer: await unpaidAnswer(context, record, said.reason), unpaid: record }
  const open = checkValidityWindow(purchase.payment, Math.floor(context.clock.now() / 1000)) === null
  if (carriesOwnPayment(purchase) && record.transaction === null && open) return { kind: 'settle-again' }
  return { kind: 'refused', answer: await unknownAnswer(context, purchase, record) }
}
