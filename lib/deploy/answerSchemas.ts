import { z } from 'zod'

const txHash = z
  .string()
  .regex(/^0x[0-9a-f]{64}$/)
  .describe('Transaction hash, 0x-prefixed lower-case hex')
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/)
const wei = z.string().regex(/^\d+$/)

const wholeTokens = z.string().regex(/^\d+(\.\d+)?$/)

/** What a deploy gives its token at birth besides its name, as a deploy answer, receipt, list entry and event show it. */
const supplyFields = {
  initialSupply: wholeTokens.nullable().describe('Whole tokens minted to recipient in the creation transaction; null: none'),
  supplyCap: wholeTokens.nullable().describe('The cap from birth, in whole tokens; null: no cap (type(uint128).max)'),
  recipient: address.nullable().describe('Who received initialSupply; null: nobody'),
}

/** The token part of a deploy answer. */
export const deployedTokenSchema = z.object({
  name: z.string(),
  symbol: z.string(),
  variant: z.enum(['asset', 'stablecoin']),
  decimals: z.number().int().min(6).max(18),
  admin: address.nullable().describe('Holds the admin role and the mint role; null: no admin and no minter, ever (fixedSupply)'),
  ...supplyFields,
  metadata: z
    .object({ description: z.string().optional(), image: z.string().optional(), website: z.string().optional() })
    .nullable()
    .describe('Set on chain as the token’s ERC-7572 contractURI (a JSON data URI; website is its external_link); null: none'),
})

/** What a confirmed deploy minted, read from the receipt's own `Transfer` logs. */
export const mintedSchema = z
  .array(
    z.object({
      to: address,
      amount: wholeTokens.describe('Whole tokens'),
      units: z.string().regex(/^\d+$/).describe('Base units: amount × 10^decimals'),
    }),
  )
  .describe('What the creation transaction minted, from its Transfer logs; empty when nothing was')

/** A pooled launch's Uniswap v4 pool, as it is born (the same in a dry run, a broadcast and the receipt). */
export const launchPoolSchema = z
  .object({
    poolId: z
      .string()
      .regex(/^0x[0-9a-f]{64}$/)
      .describe('keccak256(abi.encode(poolKey)): the id the PoolManager, DexScreener and GeckoTerminal name the pool by'),
    currency0: address.describe('Native ETH: the zero address'),
    currency1: address.describe('The token'),
    fee: z.number().int().describe('Hundredths of a basis point: 500, 3000 or 10000'),
    tickSpacing: z.number().int(),
    hooks: address.describe('None: the zero address'),
    sqrtPriceX96: wei.describe('The first price, as Uniswap writes it'),
    tickLower: z.number().int(),
    tickUpper: z.number().int().describe('The starting tick: the position holds only the token, from here down'),
    amount: wholeTokens.describe('Whole tokens the position holds at birth (at most the amount asked; the rest went to recipient)'),
    owner: address.describe(
      'Holds the position (an ERC-721 of the PositionManager), collects its fees and can withdraw it: nothing is locked',
    ),
  })
  .describe('The Uniswap v4 pool seeded at launch, paired with native ETH')

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
    pool: launchPoolSchema.optional().describe('A pooled launch: the pool as it would be born (gas counts its four transactions)'),
  })
  .describe('dryRun: validated and simulated; nothing was signed and the cap is untouched')

/** A deployed token's market, once it trades: its pair on DexScreener with the most liquidity, refreshed by the tick. */
export const tokenMarketSchema = z
  .object({
    source: z
      .enum(['dexscreener', 'chain'])
      .describe(
        'dexscreener: the aggregator lists the pair; chain: read by the service from its launch pool’s swaps, until an aggregator lists it',
      ),
    pairAddress: z.string().nullable().describe('The pool: a 20-byte pair address, or a Uniswap v4 pool id (32 bytes)'),
    dexId: z.string().describe('The exchange, in DexScreener’s vocabulary'),
    priceUsd: z
      .string()
      .nullable()
      .describe('Price in USD, as a string (chain: the ETH price times WETH’s in the control room; null when unknown)'),
    priceEth: z
      .string()
      .nullable()
      .describe('chain: price in ETH from the pool’s last swap, a decimal string of 18 significant digits; dexscreener: null'),
    liquidity: z.number().nullable().describe('Pool liquidity in USD; null when not measured (chain)'),
    volume24h: z.number().describe('Trading volume in USD, last 24 hours (chain: through WETH’s price, 0 when unknown)'),
    volume24hEth: z.string().nullable().describe('chain: ETH traded in the last 24 hours, a decimal string; dexscreener: null'),
    trades24h: z.number().int().nullable().describe('chain: swaps in the last 24 hours; dexscreener: null'),
    lastTradeAt: z.string().nullable().describe('chain: the last swap’s block time (ISO 8601); dexscreener: null'),
    pairUrl: z.string().describe('The pair on DexScreener'),
    firstSeenAt: z.string().describe('When the service first saw the token trade (ISO 8601)'),
  })
  .describe(
    'The token’s market; null until it trades: from its launch pool’s first swap (source chain, read by the tick from the chain), else once it has a pair on DexScreener (checked about once a minute for 7 days)',
  )

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
      reason: z.string().optional().describe('Why the pool was not seeded, and where its tokens are'),
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
    .enum(['deploy', 'launch', 'seed', 'return'])
    .describe('What the transaction did: `deploy` (a token), `launch` (a token with its pool); the others are the service’s own'),
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

/** One webhook event of the calling agent, as `list_events` answers it. */
export const listedEventSchema = z.object({
  id: z.string().describe('The event id: the webhook-id header of every attempt'),
  // The webhook event types (lib/deploy/webhooks/events.ts), written out: this module is type-checked with the
  // dashboard's scripts too, where the events' node:crypto is not.
  type: z.enum([
    'deploy.broadcast',
    'deploy.confirmed',
    'deploy.reverted',
    'deploy.replaced',
    'token.listed',
    'pool.seeded',
    'pool.failed',
  ]),
  createdAt: z.string().describe('When the event was filed (ISO 8601)'),
  state: z.enum(['pending', 'delivered', 'failed']).describe('pending: an attempt is due; delivered: a 2xx came back; failed: given up'),
  attempts: z.number().int().min(0).describe('Attempts made since the event was (re)queued'),
  lastStatus: z.number().int().nullable().describe('The HTTP status of the last attempt (null: none, or no answer)'),
  lastError: z.string().nullable().describe('Why the last attempt failed, when it did'),
  nextAttemptAt: z.string().nullable().describe('When the next attempt is due (ISO 8601), while pending'),
})

/** Body of `list_events`: the calling agent's own webhook events, newest first (kept 7 days). */
export const listEventsSchema = z.object({ ok: z.literal(true), events: z.array(listedEventSchema) })

/** Body of `redeliver`: the event was queued again and attempted at once. */
export const redeliveredSchema = z.object({
  ok: z.literal(true),
  eventId: z.string(),
  outcome: z
    .enum(['delivered', 'retrying', 'failed', 'disabled'])
    .describe('How the immediate attempt went; retrying: it follows the retry schedule'),
})

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
  'BROADCAST_UNCERTAIN',
  'IDEMPOTENCY_CONFLICT',
  'IDEMPOTENCY_IN_PROGRESS',
  'TX_NOT_FOUND',
  'NOT_A_DEPLOY',
  'REVERTED',
  'EVENT_NOT_FOUND',
  'WEBHOOK_NOT_ACTIVE',
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
    .describe('The decoded B20 error of a simulated revert'),
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
            'The pool’s three transactions after the creation, in nonce order: approve Permit2, Permit2’s approval, the pool’s creation and mint',
          ),
        status: z.enum(['sent', 'failed']).describe('sent: all went out after the creation; failed: see reason'),
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
/** The token part of a deploy answer. */
export type DeployedToken = z.infer<typeof deployedTokenSchema>
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
/** Receipt of a pending deploy. */
export type ReceiptPending = Omit<z.infer<typeof receiptPendingSchema>, 'txHash'> & { txHash: `0x${string}` }
/** Receipt of a replaced deploy. */
export type ReceiptReplaced = Omit<z.infer<typeof receiptReplacedSchema>, 'txHash' | 'replacedBy' | 'tokenAddress'> & {
  txHash: `0x${string}`
  replacedBy: `0x${string}`
  tokenAddress?: `0x${string}`
}
/** The pool part of a pooled launch's receipt. */
export type ReceiptPool = NonNullable<z.infer<typeof receiptConfirmedSchema>['pool']>
/** A deployed token's market. */
export type TokenMarket = z.infer<typeof tokenMarketSchema>
/** Body of `list_deploys`. */
export type ListDeploys = z.infer<typeof listDeploysSchema>
/** Body of `list_events`. */
export type ListEvents = z.infer<typeof listEventsSchema>
/** Body of `redeliver`. */
export type Redelivered = z.infer<typeof redeliveredSchema>
/** Receipt of a confirmed deploy. */
export type ReceiptConfirmed = Omit<z.infer<typeof receiptConfirmedSchema>, 'txHash' | 'tokenAddress'> & {
  txHash: `0x${string}`
  tokenAddress: `0x${string}`
}
