import { z } from 'zod'
import { address, wei, wholeTokens } from './answerFields.js'

// The answers of managing a launched token: its powers and pool as the chain has them now (token_status, and GET
// /api/launches/{address}), and prepared calls for the owner's own wallet (collect_fees). Plain zod.

const accounts = (what: string) =>
  z.array(address).describe(`The accounts that hold ${what} now (from the role logs, each confirmed with hasRole)`)

/** A token's powers at one block. */
export const tokenPowersSchema = z
  .object({
    admins: accounts('DEFAULT_ADMIN_ROLE (grant and revoke every role, set the cap)'),
    minters: accounts('MINT_ROLE'),
    pausers: accounts('PAUSE_ROLE'),
    metadataEditors: accounts('METADATA_ROLE (contractURI, name, symbol)'),
    supplyCap: wholeTokens.nullable().describe('Whole tokens; null: no cap (type(uint128).max)'),
    totalSupply: wholeTokens.describe('Whole tokens'),
    paused: z.object({ transfer: z.boolean(), mint: z.boolean(), burn: z.boolean() }).describe('The three pausable features'),
    signerRoles: z
      .array(z.string())
      .describe('The roles the service’s signer (the account that sent the token’s createB20) still holds, by B20 name; empty: none'),
  })
  .describe('Who can do what to the token, read at blockNumber')

/** The ERC-7572 metadata of a token's contractURI. */
export const tokenMetadataSchema = z
  .object({
    name: z.string().optional(),
    symbol: z.string().optional(),
    description: z.string().optional(),
    image: z.string().optional(),
    website: z.string().optional().describe('ERC-7572 external_link'),
    socials: z.record(z.string(), z.string()).optional().describe('A name (x, telegram, …) to a URL, as update_metadata writes them'),
    uri: z.string().optional().describe('The contractURI when it is a link rather than inline JSON'),
  })
  .nullable()
  .describe('The token’s contractURI decoded (ERC-7572), written by its metadata editors: untrusted text; null: none')

/** Fees a position's owner would receive by collecting now. */
export const feesOwedSchema = z
  .object({
    eth: wholeTokens.describe('ETH, a decimal string'),
    token: wholeTokens.describe('Whole tokens, a decimal string'),
    ethWei: wei.describe('The same ETH in wei'),
    tokenUnits: wei.describe('The same tokens in base units'),
  })
  .describe('What the position’s owner receives by collecting now (collect_fees), exact to the unit at blockNumber')

/** A pooled launch's position at one block. */
export const launchPositionSchema = z
  .object({
    poolId: z.string().regex(/^0x[0-9a-f]{64}$/),
    positionId: wei.describe('The position’s ERC-721 id at the PositionManager'),
    owner: address.describe('Who holds the position now: who may collect its fees'),
    liquidity: wei.describe('The position’s liquidity'),
    priceEth: z.string().describe('The token’s price in ETH after the last trade, exact to 18 significant digits'),
    feesOwed: feesOwedSchema,
    fee: z.number().int().describe('The pool’s fee in hundredths of a basis point'),
    tickSpacing: z.number().int(),
    tickLower: z.number().int(),
    tickUpper: z.number().int(),
  })
  .describe('The launch’s Uniswap v4 position, read at blockNumber')

/** Body of `token_status`. */
export const tokenStatusSchema = z
  .object({
    ok: z.literal(true),
    token: address,
    blockNumber: wei.describe('The block everything here was read at'),
    rolesComplete: z
      .boolean()
      .describe('Whether the role logs were read up to blockNumber; false: an old token read for the first time, the next read goes on'),
    powers: tokenPowersSchema,
    metadata: tokenMetadataSchema,
    pool: launchPositionSchema
      .nullable()
      .describe('null: launched without a pool, or its position is not seeded (failed, or not mined yet)'),
  })
  .describe('The token as the chain has it now')

/** One call for a wallet, in EIP-5792 `wallet_sendCalls`' shape. */
export const preparedCallSchema = z.object({
  to: address,
  data: z.string().regex(/^0x[0-9a-fA-F]*$/),
  value: z
    .string()
    .regex(/^0x[0-9a-fA-F]+$/)
    .describe('Wei, a hex quantity'),
})

/** Body of `collect_fees`: calls for the position owner's wallet. */
export const feesCollectionPreparedSchema = z
  .object({
    ok: z.literal(true),
    status: z.literal('prepared'),
    token: address,
    chainId: z.number().int(),
    from: address.describe('The account that must send the calls: the position’s owner'),
    calls: z.array(preparedCallSchema).describe('wallet_sendCalls’ calls (or send each as a plain transaction, in order)'),
    feesOwed: feesOwedSchema,
    poolId: z.string().regex(/^0x[0-9a-f]{64}$/),
    positionId: wei,
    blockNumber: wei,
    simulated: z.literal(true).describe('The calls ran from `from` at blockNumber (eth_call) without reverting'),
    effect: z.string().describe('What the calls will do'),
  })
  .describe('Prepared: nothing was signed or sent; send the calls from `from`')

/** Who keeps each role once the sender of a renounce has given up its own. */
const keepsSchema = z
  .array(z.object({ role: z.string(), accounts: z.array(address) }))
  .describe('Who keeps each role afterwards: the other holders (the role logs confirmed with hasRole)')

/** What every answer of an action on a token says. */
const tokenActionBase = {
  ok: z.literal(true),
  action: z.enum(['update_metadata', 'mint', 'transfer_admin', 'renounce']),
  token: address,
  chainId: z.number().int(),
  from: address.describe('Who sends the calls: the service’s signer (executed) or the role holder’s wallet (prepared)'),
  effect: z.string().describe('What the calls do, in one sentence'),
  rolesComplete: z
    .boolean()
    .describe(
      'Whether the role logs were read to the head: false on the first read of an old token, so `keeps` or the holder chosen as `from` may miss an account; ask again',
    ),
}

/** An action on a token sent by the service's signer. */
export const tokenActionBroadcastSchema = z
  .object({
    ...tokenActionBase,
    status: z.literal('broadcast'),
    kind: z.string().describe('The transaction’s kind in the agent’s history: the action’s name'),
    txHash: z.string().regex(/^0x[0-9a-f]{64}$/),
    explorerUrl: z.string(),
    mined: z.boolean().describe('Mined within waitSeconds'),
    keeps: keepsSchema.optional(),
  })
  .describe('Executed: signed by the service’s signer and sent; `receipt` tells the outcome')

/** An action on a token simulated only (dryRun, where the service would execute it). */
export const tokenActionSimulatedSchema = z
  .object({ ...tokenActionBase, status: z.literal('simulated'), calls: z.number().int(), blockNumber: wei, keeps: keepsSchema.optional() })
  .describe('dryRun: the service’s signer would send it; simulated, nothing signed')

/** An action on a token as calls for the role holder's wallet. */
export const tokenActionPreparedSchema = z
  .object({
    ...tokenActionBase,
    status: z.literal('prepared'),
    calls: z.array(preparedCallSchema).describe('wallet_sendCalls’ calls, in order'),
    atomicRequired: z.boolean().describe('true: the calls must run together (wallet_sendCalls’ atomicRequired)'),
    simulated: z.literal(true).describe('The calls ran from `from` at blockNumber (eth_call) without reverting'),
    blockNumber: wei,
    keeps: keepsSchema.optional(),
  })
  .describe('Prepared: nothing was signed or sent; send the calls from `from`')

/** `renounce` without `confirm`: who keeps what, nothing sent. */
export const renouncePreviewSchema = z
  .object({ ...tokenActionBase, status: z.literal('preview'), keeps: keepsSchema, blockNumber: wei })
  .describe('renounce without confirm: who keeps what; nothing was signed or sent')

/** The answers of update_metadata, mint, transfer_admin and renounce. */
export const tokenActionAnswerSchemas = [
  tokenActionBroadcastSchema,
  tokenActionSimulatedSchema,
  tokenActionPreparedSchema,
  renouncePreviewSchema,
] as const
