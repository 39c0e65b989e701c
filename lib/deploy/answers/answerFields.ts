import { z } from 'zod'

// The parts the service's deploy answers share: hashes, addresses and amounts as they are written, and the token, its
// mints, its pool and its market as every answer (a deploy, a receipt, a list entry) shows them. Plain zod: the
// dashboard's type check reads it too.

/** A transaction hash as answers write it. */
export const txHash = z
  .string()
  .regex(/^0x[0-9a-f]{64}$/)
  .describe('Transaction hash, 0x-prefixed lower-case hex')
/** An address, any case. */
export const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/)
/** An amount in wei (or any base unit), as a decimal string. */
export const wei = z.string().regex(/^\d+$/)

/** An amount in whole tokens, as a decimal string. */
export const wholeTokens = z.string().regex(/^\d+(\.\d+)?$/)

/** What a deploy gives its token at birth besides its name, as a deploy answer, receipt, list entry and event show it. */
export const supplyFields = {
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
  admin: address
    .nullable()
    .describe('Holds the admin role (DEFAULT_ADMIN_ROLE); with a pool, pool.owner unless given; null: no admin, ever (fixedSupply)'),
  minter: address
    .nullable()
    .describe(
      'Holds the mint role (MINT_ROLE), granted at birth: the admin; null: nobody can mint, ever (fixedSupply). Never the service’s signer on a pooled token',
    ),
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
    startPriceEth: wholeTokens.describe(
      'ETH per whole token at the first price, as the pool is really born (sqrtPriceX96: the asked market cap rounded to the tick spacing, up to 1 % off at fee 10000), 18 significant digits',
    ),
    startMarketCapEth: wholeTokens.describe(
      'The token’s fully diluted value in ETH at that price: startPriceEth over the whole supply (the cap when there is one, else initialSupply)',
    ),
  })
  .describe('The Uniswap v4 pool seeded at launch, paired with native ETH')

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
      .describe('Price in USD, as a string (chain: the ETH price times WETH’s in the control room now; null when unknown)'),
    priceEth: z
      .string()
      .nullable()
      .describe(
        'chain: price in ETH from the pool’s slot0 (StateView) or its last swap, a decimal string of 18 significant digits, from the launch’s own block; dexscreener: null',
      ),
    liquidity: z
      .number()
      .nullable()
      .describe(
        'dexscreener: pool liquidity in USD; chain: the pool’s in-range liquidity L as Uniswap’s StateView getLiquidity says it (Uniswap’s unit, not USD; 0 at birth, when the current tick sits at the position’s edge), null until read',
      ),
    marketCapEth: z
      .string()
      .nullable()
      .describe(
        'chain: ETH the whole supply (the cap, else what was minted at birth) is worth at priceEth, a decimal string; dexscreener: null',
      ),
    volume24h: z.number().describe('Trading volume in USD, last 24 hours (chain: through WETH’s price, 0 when unknown)'),
    volume24hEth: z.string().nullable().describe('chain: ETH traded in the last 24 hours, a decimal string; dexscreener: null'),
    trades24h: z.number().int().nullable().describe('chain: swaps in the last 24 hours; dexscreener: null'),
    lastTradeAt: z.string().nullable().describe('chain: the last swap’s block time (ISO 8601), null before the first; dexscreener: null'),
    pairUrl: z.string().describe('The pair on DexScreener'),
    firstSeenAt: z.string().describe('When the service first saw the token trade (ISO 8601)'),
  })
  .describe(
    'The token’s market: a launch with a pool has one from the block its pool is born in (source chain: its price, liquidity and market cap read from StateView, then its swaps, from the chain); else null until it has a pair on DexScreener (checked about once a minute for 7 days)',
  )

/** The token part of a deploy answer. */
export type DeployedToken = z.infer<typeof deployedTokenSchema>
/** A deployed token's market. */
export type TokenMarket = z.infer<typeof tokenMarketSchema>
