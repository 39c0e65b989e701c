import { z } from 'zod'
import { address, deployedTokenSchema, launchPoolSchema, mintedSchema, supplyFields, tokenMarketSchema, txHash } from './answerFields.js'

// What an agent reads back of its deploys: a receipt (pending, confirmed, replaced) and its list of deploys.

/** Receipt of a deploy that is known but not yet mined. */
export const receiptPendingSchema = z.object({
  ok: z.literal(true),
  status: z.literal('pending'),
  txHash,
  explorerUrl: z.string(),
  pendingSeconds: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Seconds since this transaction was sent (for deploys this service recorded)'),
})

/** Receipt of an action on a token the service sent (update_metadata, mint, transfer_admin, renounce), mined. */
export const receiptActionSchema = z
  .object({
    ok: z.literal(true),
    status: z.literal('confirmed'),
    kind: z.string().describe('What the transaction did: the action’s name'),
    txHash,
    tokenAddress: address.describe('The token it acted on'),
    blockNumber: z.number().int().min(0),
    gasUsed: z.string(),
    explorerUrl: z.string(),
  })
  .describe('An action on a launched token, mined: its effect is on chain (token_status shows it)')

/** Body of {@link receiptActionSchema}. */
export type ReceiptAction = z.infer<typeof receiptActionSchema>

/** Receipt of a mined, successful deploy: where the token lives. */
export const receiptConfirmedSchema = z.object({
  ok: z.literal(true),
  status: z.literal('confirmed'),
  txHash,
  tokenAddress: address.describe('The deployed token, from the B20Created log'),
  blockNumber: z.number().int().min(0),
  explorerUrl: z.string(),
  token: deployedTokenSchema,
  minted: mintedSchema,
  market: tokenMarketSchema.nullable(),
  pool: launchPoolSchema
    .extend({
      status: z
        .enum(['pending', 'seeded', 'failed'])
        .describe('pending: the pool’s transactions are not mined yet; seeded: the pool trades; failed: see reason'),
      positionId: z
        .string()
        .regex(/^\d+$/)
        .optional()
        .describe('Once seeded: the position’s ERC-721 id at the PositionManager, held by owner'),
      reason: z.string().optional().describe('Why the pool was not seeded (its real cause), and where its tokens are'),
      cause: z
        .enum(['pool-initialized', 'deadline', 'gas', 'b20', 'seed'])
        .optional()
        .describe('Why, for programs: the pool initialized first by someone else, the mint’s deadline, out of gas, B20, another seed call'),
      returnTxHash: txHash.optional().describe('After a failed seed: the transfer that gave the pool’s tokens to owner'),
    })
    .optional()
    .describe('A pooled launch: where its pool stands'),
})

/**
 * Receipt of a deploy whose transaction was replaced (same nonce, higher fees) after it sat unmined: the replacement
 * is followed, and once it is mined the token fields are there as for `confirmed`.
 */
export const receiptReplacedSchema = z.object({
  ok: z.literal(true),
  status: z.literal('replaced'),
  txHash,
  explorerUrl: z.string(),
  replacedBy: txHash.describe('The replacement transaction; only one of the two can ever be mined'),
  replacementStatus: z.enum(['pending', 'confirmed', 'reverted']),
  tokenAddress: address.optional().describe('Once the replacement is confirmed: the token (the predicted address)'),
  blockNumber: z.number().int().min(0).optional(),
  token: deployedTokenSchema.optional(),
  minted: mintedSchema.optional(),
  market: tokenMarketSchema.nullable().optional().describe('Once the replacement is confirmed: the token’s market'),
})

/** One deploy of the calling agent, as `list_deploys` answers it. */
export const listedDeploySchema = z.object({
  txHash,
  kind: z
    .string()
    .regex(/^[a-z]+(?:_[a-z]+)*$/)
    .describe(
      'What the transaction did: `deploy` (a token), `launch` (a token with its pool), `seed` and `return` (the service’s own, for a pooled launch), or the name of the action that sent it',
    ),
  predictedAddress: address,
  name: z.string(),
  symbol: z.string(),
  variant: z.enum(['asset', 'stablecoin']),
  ...supplyFields,
  createdAt: z.string().describe('When the deploy was sent (ISO 8601)'),
  status: z
    .enum(['broadcast', 'confirmed', 'reverted', 'replaced'])
    .describe('Last known status, kept current by the scheduled tick (about once a minute); action "receipt" checks the chain'),
  replacedBy: txHash.optional(),
  replacementStatus: z
    .enum(['confirmed', 'reverted'])
    .optional()
    .describe('For a replaced deploy whose replacement was mined: how the deploy ended'),
  market: tokenMarketSchema.nullable(),
})

/** Body of `list_deploys`: the calling agent's own deploys, newest first (kept 30 days). */
export const listDeploysSchema = z.object({ ok: z.literal(true), deploys: z.array(listedDeploySchema) })

/** Receipt of a pending deploy. */
export type ReceiptPending = Omit<z.infer<typeof receiptPendingSchema>, 'txHash'> & { txHash: `0x${string}` }
/** Receipt of a replaced deploy. */
export type ReceiptReplaced = Omit<z.infer<typeof receiptReplacedSchema>, 'txHash' | 'replacedBy' | 'tokenAddress'> & {
  txHash: `0x${string}`
  replacedBy: `0x${string}`
  tokenAddress?: `0x${string}`
}
/** Receipt of a confirmed deploy. */
export type ReceiptConfirmed = Omit<z.infer<typeof receiptConfirmedSchema>, 'txHash' | 'tokenAddress'> & {
  txHash: `0x${string}`
  tokenAddress: `0x${string}`
}
/** The pool part of a pooled launch's receipt. */
export type ReceiptPool = NonNullable<z.infer<typeof receiptConfirmedSchema>['pool']>
/** Body of `list_deploys`. */
export type ListDeploys = z.infer<typeof listDeploysSchema>
