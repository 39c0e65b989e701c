// The `pool` field of a launch: the request's shape and the rules that span the birth fields. Light on purpose (zod
// and the amount parser only, no Uniswap SDK): a request is validated before any chain or pool code is loaded.
import { z } from 'zod'
import { checksumAddress, isValidAddress } from '../../chain/address.js'
import { MAX_TOKEN_UNITS, parseTokenAmount } from '../../chain/tokenAmount.js'
import { unitsToDecimal } from '../../market/poolPrice.js'
import { problemsOf, type RequestProblem } from '../../platform/problems.js'

/** Uniswap v4 fees a launch's pool may take, in hundredths of a basis point, with their usual tick spacings. */
export const POOL_TICK_SPACINGS = { 500: 10, 3000: 60, 10000: 200 } as const

/** A pool fee (`POOL_TICK_SPACINGS`' keys). */
export type PoolFee = keyof typeof POOL_TICK_SPACINGS

/** The fee a pool gets when none is asked for: 1 %, as the launchpads use. */
export const DEFAULT_POOL_FEE: PoolFee = 10000

/** ETH has 18 decimals: a starting market cap is read into wei with them. */
const ETH_DECIMALS = 18

const feeRule = 'must be 500, 3000 or 10000 (hundredths of a basis point: 0.05 %, 0.3 % or 1 %)'
const capRule = 'must be a decimal number of ETH more than 0, like "10" or "2.5", with at most 18 digits after the point'

/** The `pool` object of a launch as agents write it; amounts are checked against the token's decimals later. */
export const poolFieldSchema = z.strictObject({
  amount: z
    .string({ error: 'is required: a string of whole tokens, like "1000000"' })
    .describe('Whole tokens of initialSupply placed in the pool (at most initialSupply); the rest goes to recipient'),
  startingMarketCapEth: z
    .string({ error: `is required: ${capRule}` })
    .regex(/^\d{1,60}(\.\d{1,18})?$/, capRule)
    .describe(
      'The token’s fully diluted value in ETH at the first price: the price is this over the whole supply (the cap if set); between POOL_MIN_MARKET_CAP_ETH and POOL_MAX_MARKET_CAP_ETH (1 and 1,000,000 ETH by default), moved to a usable tick (up to 1 % at fee 10000)',
    ),
  fee: z
    .union([z.literal(500), z.literal(3000), z.literal(10000)], { error: feeRule })
    .optional()
    .describe('Uniswap v4 fee: 500, 3000 or 10000 (default 10000, 1 %), tick spacing 10, 60 or 200'),
  owner: z
    .string()
    .refine((v) => isValidAddress(v) && !/^0x0{40}$/i.test(v), 'must be a 20-byte 0x address, lower-case or checksummed, not zero')
    .optional()
    .describe('Who receives the liquidity position (an ERC-721) and its fees; default admin, never the service’s signer'),
})

/** A launch's pool, validated: amounts in base units, the owner resolved. */
export type PoolIntent = {
  /** Base units of the supply placed in the pool. */
  amount: bigint
  /** The starting fully diluted value, in wei. */
  startingMarketCapWei: bigint
  fee: PoolFee
  tickSpacing: (typeof POOL_TICK_SPACINGS)[PoolFee]
  /** Who receives the position: the one given, else the admin. */
  owner: `0x${string}`
  /** Base units the first price is taken over: the cap when one is set, else the initial supply. */
  wholeSupply: bigint
}

/** The birth fields the pool's rules read (as agents wrote them, amounts already in base units where valid). */
export type PoolBirthFields = {
  /** The token's decimals (what `amount` is read with). */
  decimals: number
  /** The initial supply in base units, undefined when not given or not valid. */
  initialSupply: bigint | undefined
  /** The cap in base units (a fixed supply's is its supply), undefined when none. */
  supplyCap: bigint | undefined
  /** The admin as given; undefined means "the signer". */
  admin: string | undefined
}

/** Result of {@link parsePoolIntent}: the pool (undefined when absent or invalid) and every problem, named `pool.<field>`. */
export type ParsePoolIntentReturnType = { pool: PoolIntent | undefined; details: RequestProblem[] }

/**
 * Reads a request's `pool` against its birth fields: the shape (zod), `amount` in base units and at most the initial
 * supply, the cap in wei, the fee's tick spacing, and an owner that is given or is the admin, so that the position is
 * never the service's own (the signer's check is {@link poolOwnerProblem}, once the signer is known).
 */
export function parsePoolIntent(raw: unknown, birth: PoolBirthFields): ParsePoolIntentReturnType {
  if (raw === undefined) return { pool: undefined, details: [] }
  const parsed = poolFieldSchema.safeParse(raw)
  const notAnObject = 'must be an object: amount, startingMarketCapEth, fee, owner'
  const details: RequestProblem[] = parsed.success ? [] : problemsOf(parsed.error, { root: 'pool', nested: true, notAnObject })
  const fields = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>
  let amount: bigint | undefined
  if (typeof fields.amount === 'string') {
    const read = parseTokenAmount(fields.amount, birth.decimals)
    if (!read.ok) details.push({ field: 'pool.amount', reason: read.reason })
    else if (birth.initialSupply === undefined)
      details.push({ field: 'pool.amount', reason: 'needs initialSupply: the pool’s tokens are part of the supply minted at birth' })
    else if (read.units > birth.initialSupply) details.push({ field: 'pool.amount', reason: 'must be at most initialSupply' })
    else amount = read.units
  }
  let startingMarketCapWei: bigint | undefined
  if (typeof fields.startingMarketCapEth === 'string' && /^\d{1,60}(\.\d{1,18})?$/.test(fields.startingMarketCapEth)) {
    const read = parseTokenAmount(fields.startingMarketCapEth, ETH_DECIMALS)
    if (read.ok) startingMarketCapWei = read.units
    else details.push({ field: 'pool.startingMarketCapEth', reason: read.reason.replace('base units', 'wei') })
  }
  const ownerText = typeof fields.owner === 'string' ? fields.owner : fields.owner === undefined ? birth.admin : undefined
  if (fields.owner === undefined && birth.admin === undefined)
    details.push({
      field: 'pool.owner',
      reason: 'is required when admin is not given: the position and its fees would be the service’s own signer’s',
    })
  if (!parsed.success || details.length > 0 || amount === undefined || startingMarketCapWei === undefined || ownerText === undefined)
    return { pool: undefined, details }
  const fee = parsed.data.fee ?? DEFAULT_POOL_FEE
  return {
    details,
    pool: {
      amount,
      startingMarketCapWei,
      fee,
      tickSpacing: POOL_TICK_SPACINGS[fee],
      owner: checksumAddress(ownerText),
      // type(uint128).max is B20's "no cap": then the supply minted at birth is the whole supply.
      wholeSupply: birth.supplyCap !== undefined && birth.supplyCap !== MAX_TOKEN_UNITS ? birth.supplyCap : (birth.initialSupply as bigint),
    },
  }
}

/** The starting market caps a launch may ask for, in wei (the deploy settings': `POOL_MIN_MARKET_CAP_ETH`, `POOL_MAX_MARKET_CAP_ETH`). */
export type MarketCapBounds = { minWei: bigint; maxWei: bigint }

/**
 * The problem with a starting market cap outside the deployment's bounds (null when inside): a typo of "0.01" for "10"
 * would price the pool a thousand times too low and hand half of it to the first buyer for a few thousandths of an ETH.
 */
export function startingMarketCapProblem(startingMarketCapWei: bigint, bounds: MarketCapBounds): RequestProblem | null {
  if (startingMarketCapWei >= bounds.minWei && startingMarketCapWei <= bounds.maxWei) return null
  const eth = (wei: bigint) => unitsToDecimal(wei, ETH_DECIMALS)
  return {
    field: 'pool.startingMarketCapEth',
    reason: `must be between ${eth(bounds.minWei)} and ${eth(bounds.maxWei)} ETH on this deployment`,
  }
}

/** The problem with a pool's owner once the signer is known: the service keeps no position (null when there is none). */
export function poolOwnerProblem(owner: string, signer: string): RequestProblem | null {
  return owner.toLowerCase() === signer.toLowerCase()
    ? { field: 'pool.owner', reason: 'must not be the service’s signer: the service keeps no liquidity position and no fees' }
    : null
}
