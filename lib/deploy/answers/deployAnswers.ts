import { z } from 'zod'
import { address, deployedTokenSchema, launchPoolSchema, txHash, wei } from './answerFields.js'
import { receiptConfirmedSchema } from './receipts.js'

// The answers of a deploy: simulated, broadcast, or refused. The parts they share are in answerFields.ts, what an
// agent reads back (receipts, its deploys) in receipts.ts, its webhook events' answers in webhooks/eventAnswers.ts.

/** Body of a `dryRun: true` deploy: validated and simulated, nothing signed. */
export const deploySimulatedSchema = z
  .object({
    ok: z.literal(true),
    status: z.literal('simulated'),
    predictedAddress: address,
    token: deployedTokenSchema,
    signer: address,
    chainId: z.number().int(),
    gas: wei.describe('Gas limit the deploy would be sent with'),
    maxFeePerGas: wei,
    maxPriorityFeePerGas: wei,
    maxFeeWei: wei.describe('Most the deploy could cost: gas × maxFeePerGas, in wei'),
    pool: launchPoolSchema
      .extend({
        startPriceUsd: z
          .string()
          .nullable()
          .describe('USD per whole token at the first price: startPriceEth times WETH’s price in the control room now; null when unknown'),
        startMarketCapUsd: z.string().nullable().describe('startMarketCapEth in USD the same way; null when WETH’s price is unknown'),
      })
      .optional()
      .describe(
        'A pooled launch: the pool as it would be born (gas is its one transaction’s, the delegation’s authorization included when it is not set yet), and its first price in USD',
      ),
  })
  .describe('dryRun: validated and simulated; nothing was signed and the cap is untouched')

/** Machine codes of a deploy or receipt that did not succeed. */
export const deployFailureCodeSchema = z.enum([
  'INVALID_INTENT',
  'UNKNOWN_ACTION',
  'SIGNER_NOT_CONFIGURED',
  'SIGNER_UNAVAILABLE',
  'SIGNER_MISMATCH',
  'SIGNER_UNFUNDED',
  'CHAIN_MISMATCH',
  'RPC_UNAVAILABLE',
  'RPC_REJECTED',
  'STORE_UNAVAILABLE',
  'DEPLOYS_DISABLED',
  'DEPLOY_BUSY',
  'DEPLOY_CAP_REACHED',
  'AGENT_CAP_REACHED',
  'SIMULATION_REVERTED',
  'VARIANT_NOT_ACTIVE',
  'DELEGATION_UNAVAILABLE',
  'BROADCAST_UNCERTAIN',
  'IDEMPOTENCY_CONFLICT',
  'IDEMPOTENCY_IN_PROGRESS',
  'TX_NOT_FOUND',
  'NOT_A_DEPLOY',
  'REVERTED',
  'EVENT_NOT_FOUND',
  'WEBHOOK_NOT_ACTIVE',
  'NOT_A_LAUNCH',
  'LAUNCH_PENDING',
  'NO_POSITION',
  'RATE_LIMITED',
  'NOT_YOUR_TOKEN',
  'SUPPLY_CAP_EXCEEDED',
  'NO_ROLES',
  'MISSING_ROLE',
  'TOKEN_PAUSED',
  'LAST_ADMIN_CANNOT_RENOUNCE',
  'NOT_SOLE_ADMIN',
  'INVALID_RECEIVER',
])

/** A body with `ok: false` (HTTP 200): `error` always; the other fields where they apply. */
export const deployFailureSchema = z.object({
  ok: z.literal(false),
  error: z.string().describe('What went wrong, for people'),
  code: deployFailureCodeSchema.describe('What went wrong, for programs'),
  status: z.literal('reverted').optional().describe('Receipt of a deploy that was mined but reverted'),
  details: z
    .array(z.object({ field: z.string(), reason: z.string() }))
    .optional()
    .describe('Every problem of an invalid request'),
  revert: z
    .object({ name: z.string(), args: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])) })
    .optional()
    .describe('The decoded error of a simulated revert (B20’s, or of a pooled launch the failing call’s)'),
  roomLeft: z.string().optional().describe('SUPPLY_CAP_EXCEEDED: whole tokens that can still be minted under the cap'),
  failedCall: z
    .number()
    .int()
    .min(0)
    .nullable()
    .optional()
    .describe(
      'A pooled launch: which call of its batch failed (0 the creation, 1-2 the approvals, 3 the pool’s initialization, 4 its mint)',
    ),
  cause: z
    .enum(['pool-initialized', 'deadline', 'gas', 'b20', 'seed'])
    .optional()
    .describe(
      'A pooled launch that failed: why (the pool initialized first by someone else, the mint’s deadline, out of gas, B20’s refusal, another seed call)',
    ),
  retryAt: z.string().optional().describe('When a cap slot frees up (ISO 8601)'),
  retryAfterSeconds: z.number().int().min(0).optional().describe('Seconds until a retry is worth it'),
  txHash: txHash.optional(),
  explorerUrl: z.string().optional(),
})

/** Success body of `agent_deploy`, fields in the order `docs/api.md` shows them. */
export const deployBroadcastSchema = z
  .object({
    ok: z.literal(true),
    status: z.literal('broadcast'),
    txHash,
    predictedAddress: address.describe('Deterministic address of the new token (B20 formula, equal to the simulation)'),
    explorerUrl: z.string().describe('{EXPLORER_URL}/tx/<txHash>'),
    token: deployedTokenSchema,
    signer: address.describe('The managed wallet that signed and paid gas'),
    chainId: z.number().int(),
    receipt: z
      .union([receiptConfirmedSchema, deployFailureSchema])
      .optional()
      .describe(
        'With waitSeconds, when the transaction was mined in time: what action "receipt" answers now (confirmed with tokenAddress, blockNumber and minted; or REVERTED)',
      ),
    pool: launchPoolSchema
      .extend({
        seedTxHashes: z
          .array(txHash)
          .describe(
            'Empty: the pool is seeded in the launch’s own transaction (txHash, one executeBatch from the signer to itself). Launches before that listed three transactions here',
          ),
        status: z.enum(['sent', 'failed']).describe('sent: the launch went out, its pool with it; failed: see reason'),
        reason: z.string().optional().describe('Why the pool was not seeded; its tokens then go back to owner (see receipt)'),
      })
      .optional()
      .describe('A pooled launch: its pool as it will be born; action "receipt" says once it is seeded (positionId)'),
  })
  .describe('Signed and broadcast; poll action "receipt" for the token address once mined (or ask waitSeconds to get it here)')

/** An answer of `/api/b20-skill` outside the 200 domain answers (403, 400, 413, 500): `ok: false` with a code. */
export const skillHttpErrorSchema = z.object({
  ok: z.literal(false),
  error: z.string(),
  code: z.enum([
    'FORBIDDEN',
    'BODY_TOO_LARGE',
    'INVALID_JSON',
    'UNSUPPORTED_CONTENT_TYPE',
    'CONFIG_INVALID',
    'INTERNAL',
    'METHOD_NOT_ALLOWED',
  ]),
  requestId: z.string().optional().describe('INTERNAL: the id of this request (also X-Request-Id), for the operator to trace it'),
})

/** Machine codes of a deploy or receipt that did not succeed; `error` says the same for people. */
export type DeployFailureCode = z.infer<typeof deployFailureCodeSchema>
/** A body with `ok: false`. */
export type DeployFailure = z.infer<typeof deployFailureSchema>
/** Success body of `agent_deploy`. */
export type DeployBroadcast = Omit<z.infer<typeof deployBroadcastSchema>, 'txHash' | 'predictedAddress' | 'signer'> & {
  txHash: `0x${string}`
  predictedAddress: `0x${string}`
  signer: `0x${string}`
}
/** Body of a `dryRun: true` deploy. */
export type DeploySimulated = Omit<z.infer<typeof deploySimulatedSchema>, 'predictedAddress' | 'signer'> & {
  predictedAddress: `0x${string}`
  signer: `0x${string}`
}
