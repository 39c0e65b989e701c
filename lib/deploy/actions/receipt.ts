import type { Hex } from 'viem'
import { z } from 'zod'
import { receiptActionSchema, receiptConfirmedSchema, receiptPendingSchema, receiptReplacedSchema } from '../answers/receipts.js'
import { answer, checkBody, defineAgentAction } from './action.js'
import { waitSecondsField } from './requestFields.js'

// `receipt`: where a deploy stands, waiting up to waitSeconds for it to be mined.

/** Longest `waitSeconds` a receipt may ask for: within the function's 60 s `maxDuration` with room to spare. */
export const RECEIPT_WAIT_SECONDS_MAX = 25

/** The `receipt` body schema. */
export const receiptRequestSchema = z.strictObject({
  action: z.literal('receipt'),
  tx_hash: z
    .string({ error: 'is required: the txHash of the deploy' })
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte 0x-prefixed transaction hash')
    .describe('The txHash of the deploy answer'),
  waitSeconds: waitSecondsField(RECEIPT_WAIT_SECONDS_MAX)
    .optional()
    .describe(
      `Wait up to this many seconds (0-${RECEIPT_WAIT_SECONDS_MAX}, default 0) for the transaction to be mined before answering "pending"`,
    ),
})

/** `receipt`, as both doors dispatch it. */
export const receiptAction = defineAgentAction<{ txHash: Hex; waitSeconds: number }>({
  name: 'receipt',
  summary:
    'Where a deploy stands: pending (and for how long), confirmed (with the token address, what it minted and its market), reverted, or replaced (a higher-fee copy took its place; followed to its outcome). waitSeconds (0-25) waits for mining.',
  schema: receiptRequestSchema,
  examples: {
    receipt: { summary: 'Where the token landed', value: { action: 'receipt', tx_hash: `0x${'5f'.repeat(32)}`, waitSeconds: 20 } },
  },
  answers: [receiptPendingSchema, receiptConfirmedSchema, receiptReplacedSchema, receiptActionSchema],
  check({ body }) {
    const checked = checkBody(receiptRequestSchema, body, 'receipt')
    if (!checked.ok) return checked
    const txHash = checked.data.tx_hash.toLowerCase() as Hex
    const waitSeconds = checked.data.waitSeconds ?? 0
    return {
      ok: true,
      txHash,
      waitSeconds,
      run: async ({ services }) => answer(await (await import('../heavyHalf.js')).readDeployReceipt({ services, txHash, waitSeconds })),
    }
  },
  tool: {
    name: 'get_deploy_receipt',
    title: 'Deploy receipt',
    description: 'Needs the agent key.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    input: z.strictObject({ txHash: receiptRequestSchema.shape.tx_hash, waitSeconds: receiptRequestSchema.shape.waitSeconds }),
    toRequest: ({ txHash, ...rest }) => ({
      ok: true,
      body: { ...rest, ...(txHash !== undefined ? { tx_hash: txHash } : {}), action: 'receipt' },
      idempotencyKey: null,
    }),
    renamed: { tx_hash: 'txHash' },
    summarize(body) {
      if (body.status === 'confirmed') return `Confirmed in block ${body.blockNumber}: token ${body.tokenAddress}.`
      if (body.status === 'replaced')
        return `Replaced by ${body.replacedBy} (${body.replacementStatus})${body.tokenAddress ? `: token ${body.tokenAddress}` : ''}.`
      return `Pending${body.pendingSeconds !== undefined ? ` for ${body.pendingSeconds} s` : ''}; ask again with waitSeconds.`
    },
  },
})
