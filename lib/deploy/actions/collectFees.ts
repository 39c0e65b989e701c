import type { Address } from 'viem'
import { z } from 'zod'
import { feesCollectionPreparedSchema } from '../answers/manageAnswers.js'
import { answer, checkBody, defineAgentAction, type PublicActionRun } from './action.js'
import { addressField } from './requestFields.js'

// `collect_fees`: the call that collects a launch position's fees to its owner. The position is the owner's, so the
// answer is always prepared calls for the owner's wallet (simulated from that account first): no key needed.

/** The `collect_fees` body schema. */
export const collectFeesRequestSchema = z.strictObject({
  action: z.literal('collect_fees'),
  token: addressField.describe('The token launched through this service with a pool'),
  dryRun: z.boolean().optional().describe('Accepted as on every action; changes nothing: this action never sends'),
})

/** `collect_fees`, as both doors dispatch it. */
export const collectFeesAction = defineAgentAction({
  name: 'collect_fees',
  summary:
    'Prepares the call that collects a pooled launch’s fees to its position’s owner (the PositionManager’s modifyLiquidities: DECREASE_LIQUIDITY of 0, then TAKE_PAIR), simulated from the owner’s account: status "prepared" with calls [{to, data, value}] in EIP-5792 wallet_sendCalls’ shape, chainId, from (the owner) and feesOwed. Nothing is signed or sent. No key needed.',
  schema: collectFeesRequestSchema,
  access: 'public',
  examples: {
    collectFees: {
      summary: 'The owner’s call to collect the pool’s fees',
      value: { action: 'collect_fees', token: '0xb200000000000000000000a1b2c3d4e5f6a7b8c9' },
    },
  },
  answers: [feesCollectionPreparedSchema],
  check({ body }) {
    const checked = checkBody(collectFeesRequestSchema, body, 'collect_fees')
    if (!checked.ok) return checked
    const token = checked.data.token as Address
    const run: PublicActionRun = async ({ services }) =>
      answer(await (await import('../heavyHalf.js')).prepareFeeCollection({ services, token }))
    return { ok: true, run }
  },
  tool: {
    name: 'collect_fees',
    title: 'Collect a pool’s fees (prepared calls)',
    description:
      'Send the calls from `from` with wallet_sendCalls (or each as a transaction). No key needed (throttled per client without one).',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    input: collectFeesRequestSchema.omit({ action: true }),
    toRequest: (args) => ({ ok: true, body: { ...args, action: 'collect_fees' }, idempotencyKey: null }),
    summarize: (body) => {
      const fees = body.feesOwed as { eth?: string; token?: string } | undefined
      return `Prepared: send ${Array.isArray(body.calls) ? body.calls.length : 0} call from ${body.from} on chain ${body.chainId} to collect ${fees?.eth} ETH and ${fees?.token} tokens.`
    },
  },
})
