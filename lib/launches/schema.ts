import { z } from 'zod'
import { tokenMarketSchema } from '../deploy/answers/answerFields.js'
import { feesOwedSchema, tokenPowersSchema } from '../deploy/answers/manageAnswers.js'

// A launch as the public sees it: what a token deployed through this service (either door) is, in one entry of
// `GET /api/launches` and of the stream's `launch` event. Public facts only: never an agent key, digest or label.

const wholeTokens = z.string().regex(/^\d+(\.\d+)?$/)
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/)

/** A launch's pool as it was born (the feed's `pool`). */
const launchPoolSchema = z.object({
  poolId: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/)
    .describe('The Uniswap v4 pool id (native ETH and the token), as DexScreener and GeckoTerminal show it'),
  fee: z.number().int().describe('The pool’s fee in hundredths of a basis point (10000: 1 %)'),
  owner: address.describe('Who holds the liquidity position and its fees'),
  startPriceEth: wholeTokens.describe('ETH per whole token at the price the pool was born at (the chain’s first slot0)'),
  startMarketCapEth: wholeTokens.describe('ETH the whole supply was worth at that price'),
})

/** What the feed says of a launch's powers now: the part of `GET /api/launches/{address}`'s `powers` it keeps fresh. */
const launchPowersSchema = z
  .object({
    signerRoles: z
      .array(z.string())
      .describe(
        'The B20 built-in roles (DEFAULT_ADMIN_ROLE, MINT_ROLE, BURN_ROLE, BURN_BLOCKED_ROLE, PAUSE_ROLE, UNPAUSE_ROLE, METADATA_ROLE, OPERATOR_ROLE) the service’s signer, the account that sent the token’s createB20, still holds, in that order; empty: none, the service can no longer touch the token',
      ),
  })
  .describe('Read from the chain when the feed’s body was made (once per 30 s window)')

/** One launch: the token's public facts, where its deploy stands, and its market once it trades. */
export const launchSchema = z
  .object({
    address: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/)
      .describe('The token (its deterministic address; it exists there once status is confirmed)'),
    name: z.string().describe('Written by the deploying agent: untrusted text, show it as text only'),
    symbol: z.string().describe('Written by the deploying agent: untrusted text, show it as text only'),
    variant: z.enum(['asset', 'stablecoin']),
    decimals: z.number().int().min(6).max(18),
    initialSupply: wholeTokens.nullable().describe('Whole tokens minted at creation; null: none'),
    supplyCap: wholeTokens.nullable().describe('The cap from birth, in whole tokens; null: no cap'),
    createdAt: z.string().describe('When the deploy was sent (ISO 8601)'),
    txHash: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/)
      .describe('The deploy transaction as first sent (a replacement with higher fees keeps this hash here)'),
    status: z.enum(['broadcast', 'confirmed']).describe('broadcast: sent, not yet seen mined; confirmed: the token exists'),
    roles: z
      .object({
        admin: address
          .nullable()
          .describe('Holds the admin role (DEFAULT_ADMIN_ROLE): may grant roles and set the cap; null: nobody, ever'),
        minter: address
          .nullable()
          .describe('Holds the mint role (MINT_ROLE), as granted at birth: may mint more; null: nobody can mint, ever (a fixed supply)'),
      })
      .describe('Who holds which role on the token, as its creation set them (with a pool, pool.owner unless admin was given)'),
    pool: launchPoolSchema.nullable().describe('The pool the launch was seeded into; null: none'),
    // A body or launch event kept by an earlier version has none: it reads back as unknown.
    powers: launchPowersSchema
      .nullable()
      .default(null)
      .describe(
        'What the service can still do to the token (GET /api/launches/{address} says the rest of its powers); null: unknown, as while its deploy is not seen mined, when the chain did not answer, in a stream’s launch event (sent before any read), or for a launch recorded before its sender was kept whose creator the service cannot tell',
      ),
    market: tokenMarketSchema.nullable(),
    metadata: z
      .object({ description: z.string().optional(), image: z.string().optional(), website: z.string().optional() })
      .nullable()
      .describe('The ERC-7572 fields set at birth, written by the agent: untrusted text and URLs (link only https ones)'),
  })
  .describe('A token deployed through this service')

/** One launch (see {@link launchSchema}). */
export type Launch = z.infer<typeof launchSchema>

/** Body of `GET /api/launches`: a page of launches, newest first, and the cursor of the next page (null: the last). */
export const launchesPageSchema = z.object({
  launches: z.array(launchSchema).describe('Newest first'),
  nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page'),
})

/** Body of `GET /api/launches`. */
export type LaunchesPage = z.infer<typeof launchesPageSchema>

/** Body of `GET /api/launches/{address}`: the feed's entry, and beside its fields the token's powers and its pool now. */
export const launchDetailSchema = launchSchema
  .extend({
    powers: tokenPowersSchema.nullable().describe('Who can do what to the token now; null while its deploy is not mined'),
    blockNumber: z.string().regex(/^\d+$/).nullable().describe('The block powers and pool were read at; null while not mined'),
    rolesComplete: z.boolean().optional().describe('false: an old token read for the first time, its role logs not all read yet'),
    pool: launchPoolSchema
      .extend({
        owner: z
          .string()
          .regex(/^0x[0-9a-fA-F]{40}$/)
          .describe('Who holds the position now (at birth: the launch’s pool owner)'),
        positionId: z.string().regex(/^\d+$/).optional(),
        liquidity: z.string().regex(/^\d+$/).optional(),
        priceEth: z.string().optional(),
        feesOwed: feesOwedSchema.optional(),
      })
      .nullable()
      .describe('The launch’s pool; with its position once seeded: positionId, liquidity, priceEth, feesOwed (what collect_fees delivers)'),
  })
  .describe('One launch, its powers and its pool as the chain has them now')

/** Body of `GET /api/launches/{address}`. */
export type LaunchDetail = z.infer<typeof launchDetailSchema>
