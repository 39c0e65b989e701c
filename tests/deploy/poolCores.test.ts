import {
  type Address,
  decodeAbiParameters,
  decodeFunctionData,
  encodeAbiParameters,
  getAddress,
  type Hex,
  keccak256,
  parseAbi,
  parseAbiParameters,
  parseEther,
  parseUnits,
  zeroAddress,
} from 'viem'
import { describe, expect, it } from 'vitest'
import { MAX_TOKEN_UNITS } from '../../lib/chain/tokenAmount.js'
import { loadDeployConfig } from '../../lib/deploy/config.js'
import { BASE_UNISWAP_V4 } from '../../lib/deploy/pool/addresses.js'
import { planLaunchPool } from '../../lib/deploy/pool/launchPool.js'
import { encodePoolApprovals } from '../../lib/deploy/pool/permit2.js'
import { type PoolBirthFields, parsePoolIntent, poolOwnerProblem, startingMarketCapProblem } from '../../lib/deploy/pool/poolFields.js'
import { launchPoolKey, type PlanPoolSeedParameters, planPoolSeed } from '../../lib/deploy/pool/poolSeed.js'
import { startValuation, startValuationUsd } from '../../lib/deploy/pool/startPrice.js'
import { tokenPriceEth, tokenValueEth } from '../../lib/market/poolPrice.js'

const TOKEN: Address = '0xB200000000000000000000f4f69ba108F6504Dc5'
const ADMIN = '0xadadadadadadadadadadadadadadadadadadadad'
const OWNER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
const SUPPLY = parseUnits('1000000000', 18)
// Uniswap's bounds, written out here (v4-core TickMath) rather than taken from the SDK under test.
const MIN_TICK = -887272
const MAX_TICK = 887272
const Q96 = 2n ** 96n

// The PositionManager's surface and the v4 action numbers as v4-periphery's sources name them (IPositionManager,
// IPoolInitializer_v4, IMulticall_v4, libraries/Actions.sol).
const positionManager = parseAbi([
  'function multicall(bytes[] data) payable returns (bytes[] results)',
  'function modifyLiquidities(bytes unlockData, uint256 deadline) payable',
  'function initializePool((address currency0, address currency1, uint24 fee, int24 tickSpacing, address hooks) key, uint160 sqrtPriceX96) payable returns (int24)',
])
const MINT_POSITION = 0x02
const SETTLE_PAIR = 0x0d
const POOL_KEY = '(address currency0, address currency1, uint24 fee, int24 tickSpacing, address hooks)'

const birth = (fields: Partial<PoolBirthFields> = {}): PoolBirthFields => ({
  decimals: 18,
  initialSupply: SUPPLY,
  supplyCap: undefined,
  admin: ADMIN,
  ...fields,
})

describe('parsePoolIntent', () => {
  it('reads a pool with the defaults: fee 10000 at tick spacing 200, the admin as owner, the supply as the whole supply', () => {
    expect(parsePoolIntent({ amount: '600000000', startingMarketCapEth: '10' }, birth())).toEqual({
      details: [],
      pool: {
        amount: parseUnits('600000000', 18),
        startingMarketCapWei: parseEther('10'),
        fee: 10000,
        tickSpacing: 200,
        owner: getAddress(ADMIN),
        wholeSupply: SUPPLY,
      },
    })
  })

  it.each([
    [500, 10],
    [3000, 60],
    [10000, 200],
  ] as const)('gives fee %i its tick spacing %i', (fee, tickSpacing) => {
    expect(parsePoolIntent({ amount: '1', startingMarketCapEth: '1', fee }, birth()).pool).toMatchObject({ fee, tickSpacing })
  })

  it('takes the owner given, checksummed; the cap as the whole supply when there is one, not B20’s "no cap"', () => {
    const cap = parseUnits('2000000000', 18)
    expect(
      parsePoolIntent(
        { amount: '1000000000', startingMarketCapEth: '0.000000000000000001', owner: OWNER.toLowerCase() },
        birth({ supplyCap: cap }),
      ).pool,
    ).toMatchObject({ amount: SUPPLY, startingMarketCapWei: 1n, owner: OWNER, wholeSupply: cap })
    expect(parsePoolIntent({ amount: '1', startingMarketCapEth: '2.5' }, birth({ supplyCap: MAX_TOKEN_UNITS })).pool).toMatchObject({
      wholeSupply: SUPPLY,
      startingMarketCapWei: parseEther('2.5'),
    })
    expect(parsePoolIntent({ amount: '1', startingMarketCapEth: '1', owner: OWNER }, birth({ admin: undefined })).pool?.owner).toBe(OWNER)
  })

  it('is nothing when absent', () => {
    expect(parsePoolIntent(undefined, birth())).toEqual({ pool: undefined, details: [] })
  })

  it.each([
    ['not an object', 'x', birth(), [['pool', 'must be an object']]],
    ['null', null, birth(), [['pool', 'must be an object']]],
    ['an unknown field', { amount: '1', startingMarketCapEth: '1', hooks: '0x' }, birth(), [['pool.hooks', 'is not a known field']]],
    [
      'no amount, no cap',
      {},
      birth(),
      [
        ['pool.amount', 'is required'],
        ['pool.startingMarketCapEth', 'is required'],
      ],
    ],
    ['an amount as a number', { amount: 5, startingMarketCapEth: '1' }, birth(), [['pool.amount', 'whole tokens']]],
    ['an amount of 0', { amount: '0', startingMarketCapEth: '1' }, birth(), [['pool.amount', 'more than 0']]],
    [
      'more digits than decimals',
      { amount: '1.5', startingMarketCapEth: '1' },
      birth({ decimals: 0 }),
      [['pool.amount', 'at most 0 digits']],
    ],
    [
      'more than initialSupply',
      { amount: '1000000000.000000000000000001', startingMarketCapEth: '1' },
      birth(),
      [['pool.amount', 'at most initialSupply']],
    ],
    [
      'no initialSupply',
      { amount: '1', startingMarketCapEth: '1' },
      birth({ initialSupply: undefined }),
      [['pool.amount', 'needs initialSupply']],
    ],
    ['a cap of 0', { amount: '1', startingMarketCapEth: '0' }, birth(), [['pool.startingMarketCapEth', 'more than 0']]],
    ['a cap as a number', { amount: '1', startingMarketCapEth: 10 }, birth(), [['pool.startingMarketCapEth', 'decimal number of ETH']]],
    [
      'a cap with an exponent',
      { amount: '1', startingMarketCapEth: '1e3' },
      birth(),
      [['pool.startingMarketCapEth', 'decimal number of ETH']],
    ],
    [
      'a cap past wei',
      { amount: '1', startingMarketCapEth: '0.0000000000000000001' },
      birth(),
      [['pool.startingMarketCapEth', 'at most 18 digits']],
    ],
    ['a negative cap', { amount: '1', startingMarketCapEth: '-1' }, birth(), [['pool.startingMarketCapEth', 'decimal number of ETH']]],
    [
      'a cap past 2^128 wei',
      { amount: '1', startingMarketCapEth: '1'.padEnd(40, '0') },
      birth(),
      [['pool.startingMarketCapEth', '2^128-1 wei']],
    ],
    [
      'a fee Uniswap has no default spacing for',
      { amount: '1', startingMarketCapEth: '1', fee: 100 },
      birth(),
      [['pool.fee', 'must be 500, 3000 or 10000']],
    ],
    ['a fee as a string', { amount: '1', startingMarketCapEth: '1', fee: '3000' }, birth(), [['pool.fee', 'must be 500, 3000 or 10000']]],
    ['a bad owner', { amount: '1', startingMarketCapEth: '1', owner: '0x1234' }, birth(), [['pool.owner', '20-byte']]],
    ['a zero owner', { amount: '1', startingMarketCapEth: '1', owner: zeroAddress }, birth(), [['pool.owner', 'not zero']]],
    [
      'no owner and no admin',
      { amount: '1', startingMarketCapEth: '1' },
      birth({ admin: undefined }),
      [['pool.owner', 'service’s own signer']],
    ],
  ] as const)('names every problem by field: %s', (_, raw, fields, problems) => {
    const { pool, details } = parsePoolIntent(raw, fields)
    expect(pool).toBeUndefined()
    expect(details.map((d) => d.field)).toEqual(problems.map(([field]) => field))
    for (const [i, [, reason]] of problems.entries()) expect(details[i]!.reason).toContain(reason)
  })

  it('lists every problem of one pool at once', () => {
    const { details } = parsePoolIntent({ amount: '0', startingMarketCapEth: 'x', fee: 1, owner: 'y', extra: 1 }, birth())
    expect(details.map((d) => d.field).sort()).toEqual(['pool.amount', 'pool.extra', 'pool.fee', 'pool.owner', 'pool.startingMarketCapEth'])
  })
})

describe('poolOwnerProblem', () => {
  it('refuses the service’s signer as the owner, in any case, and nobody else', () => {
    expect(poolOwnerProblem(OWNER, OWNER.toLowerCase())).toEqual({ field: 'pool.owner', reason: expect.stringContaining('signer') })
    expect(poolOwnerProblem(OWNER, ADMIN)).toBeNull()
  })
})

describe('launchPoolKey', () => {
  it('pairs native ETH (address zero, currency0) with the token, no hooks; the id is keccak256(abi.encode(key))', () => {
    const { key, poolId } = launchPoolKey({ token: TOKEN, decimals: 18, fee: 3000, tickSpacing: 60 })
    expect(key).toEqual({ currency0: zeroAddress, currency1: TOKEN, fee: 3000, tickSpacing: 60, hooks: zeroAddress })
    expect(poolId).toBe(
      keccak256(
        encodeAbiParameters(parseAbiParameters('address, address, uint24, int24, address'), [zeroAddress, TOKEN, 3000, 60, zeroAddress]),
      ),
    )
    expect(launchPoolKey({ token: TOKEN, decimals: 18, fee: 10000, tickSpacing: 200 }).poolId).not.toBe(poolId)
  })
})

describe('planPoolSeed', () => {
  const parameters = (overrides: Partial<PlanPoolSeedParameters> = {}): PlanPoolSeedParameters => ({
    token: TOKEN,
    decimals: 18,
    amount: parseUnits('600000000', 18),
    startingMarketCapWei: parseEther('10'),
    wholeSupply: SUPPLY,
    fee: 10000,
    tickSpacing: 200,
    owner: OWNER,
    deadline: 1_800_000_000n,
    ...overrides,
  })
  const planned = (overrides: Partial<PlanPoolSeedParameters> = {}) => {
    const result = planPoolSeed(parameters(overrides))
    if (!result.ok) throw new Error(JSON.stringify(result.details))
    return result.seed
  }
  /** The price (token base units per wei) at a sqrtPriceX96, as a float: close enough to compare ticks' worth. */
  const priceOf = (sqrtPriceX96: bigint) => (Number(sqrtPriceX96) / Number(Q96)) ** 2

  it.each([
    [500, 10, '10', SUPPLY],
    [3000, 60, '10', SUPPLY],
    [10000, 200, '10', SUPPLY],
    [10000, 200, '0.5', parseUnits('21000000', 8)],
    [3000, 60, '100000', parseUnits('1', 18)],
    [500, 10, '0.000001', parseUnits('1000000000000', 6)],
  ] as const)(
    'fee %i (spacing %i), %s ETH over the supply: a usable range from the first price down, the price within half a spacing',
    (fee, tickSpacing, capEth, wholeSupply) => {
      const decimals = 18
      const seed = planned({ fee, tickSpacing, startingMarketCapWei: parseEther(capEth), wholeSupply, amount: wholeSupply / 2n, decimals })
      expect(Math.abs(seed.tickUpper % tickSpacing)).toBe(0)
      expect(Math.abs(seed.tickLower % tickSpacing)).toBe(0)
      expect(seed.tickLower).toBeGreaterThanOrEqual(MIN_TICK)
      expect(seed.tickLower - tickSpacing).toBeLessThan(MIN_TICK) // the lowest usable tick
      expect(seed.tickUpper).toBeLessThanOrEqual(MAX_TICK)
      expect(seed.tick).toBe(seed.tickUpper)
      const wanted = Number(wholeSupply) / Number(parseEther(capEth))
      const ratio = priceOf(seed.sqrtPriceX96) / wanted
      const halfSpacing = 1.0001 ** (tickSpacing / 2)
      expect(ratio).toBeGreaterThan(1 / halfSpacing - 1e-9)
      expect(ratio).toBeLessThan(halfSpacing + 1e-9)
      // The pool is born exactly at the range's upper tick: 1.0001^tick, to float precision.
      expect(priceOf(seed.sqrtPriceX96) / 1.0001 ** seed.tickUpper).toBeCloseTo(1, 9)
      expect(seed.liquidity).toBeGreaterThan(0n)
      expect(seed.amount).toBe(wholeSupply / 2n)
      expect(seed.taken).toBeLessThanOrEqual(seed.amount)
      expect(Number(seed.amount - seed.taken)).toBeLessThanOrEqual(Math.max(1, Number(seed.amount) * 1e-12))
    },
  )

  it('puts the amount in the position: liquidity × (√upper − √lower) is the amount, to rounding', () => {
    const seed = planned()
    // The lower bound's √price is tiny next to the upper's: the amount is liquidity × √upper / 2^96 to a billionth.
    const approx = (seed.liquidity * seed.sqrtPriceX96) / Q96
    expect(Math.abs(Number(seed.amount - approx))).toBeLessThan(Number(seed.amount) * 1e-9)
    // Twice the tokens, twice the liquidity (to rounding).
    const doubled = planned({ amount: seed.amount * 2n }).liquidity - seed.liquidity * 2n
    expect(doubled >= 0n && doubled <= 1n).toBe(true)
  })

  it('encodes initializePool then modifyLiquidities (MINT_POSITION with an ETH bound of 0, SETTLE_PAIR) in one multicall', () => {
    const seed = planned()
    const { functionName, args } = decodeFunctionData({ abi: positionManager, data: seed.multicall })
    expect(functionName).toBe('multicall')
    const [calls] = args as readonly [readonly Hex[]]
    expect(calls).toEqual([seed.initializePool, seed.modifyLiquidities])
    const init = decodeFunctionData({ abi: positionManager, data: calls[0]! })
    expect(init.functionName).toBe('initializePool')
    expect(init.args).toEqual([seed.key, seed.sqrtPriceX96])
    const modify = decodeFunctionData({ abi: positionManager, data: calls[1]! })
    expect(modify.functionName).toBe('modifyLiquidities')
    const [unlockData, deadline] = modify.args as readonly [Hex, bigint]
    expect(deadline).toBe(1_800_000_000n)
    const [actions, params] = decodeAbiParameters(parseAbiParameters('bytes, bytes[]'), unlockData)
    expect(actions).toBe(`0x${MINT_POSITION.toString(16).padStart(2, '0')}${SETTLE_PAIR.toString(16).padStart(2, '0')}`)
    const [key, tickLower, tickUpper, liquidity, amount0Max, amount1Max, owner, hookData] = decodeAbiParameters(
      parseAbiParameters(`${POOL_KEY}, int24, int24, uint256, uint128, uint128, address, bytes`),
      params[0]!,
    )
    expect({ key, tickLower, tickUpper, liquidity, amount0Max, amount1Max, owner, hookData }).toEqual({
      key: seed.key,
      tickLower: seed.tickLower,
      tickUpper: seed.tickUpper,
      liquidity: seed.liquidity,
      amount0Max: 0n,
      amount1Max: seed.amount,
      owner: OWNER,
      hookData: '0x',
    })
    expect(decodeAbiParameters(parseAbiParameters('address, address'), params[1]!)).toEqual([zeroAddress, TOKEN])
  })

  it('refuses a first price no pool can hold, or a range with no room, by field', () => {
    // 1 base unit over 10^21 ETH: a price under Uniswap's lowest.
    expect(planPoolSeed(parameters({ wholeSupply: 1n, amount: 1n, startingMarketCapWei: parseEther('1000000000000000000000') }))).toEqual({
      ok: false,
      code: 'INVALID_POOL',
      details: [{ field: 'pool.startingMarketCapEth', reason: expect.stringContaining('outside what a Uniswap v4 pool can hold') }],
    })
    // 2^128-1 base units over 1 wei: a price over Uniswap's highest.
    expect(planPoolSeed(parameters({ wholeSupply: MAX_TOKEN_UNITS, amount: 1n, startingMarketCapWei: 1n })).ok).toBe(false)
    // A price that rounds to the lowest usable tick leaves no range below it.
    const low = planPoolSeed(parameters({ wholeSupply: 1n, amount: 1n, startingMarketCapWei: parseEther('337000000000000000000') }))
    expect(low).toMatchObject({ ok: false, details: [{ field: 'pool.startingMarketCapEth', reason: expect.stringContaining('no room') }] })
    // One base unit at a price of 10^27 units per wei makes no liquidity at all.
    expect(planPoolSeed(parameters({ amount: 1n, startingMarketCapWei: 1n }))).toMatchObject({
      ok: false,
      details: [{ field: 'pool.amount', reason: expect.stringContaining('too small') }],
    })
  })
})

describe('planLaunchPool', () => {
  const marketCap = { minWei: parseEther('1'), maxWei: parseEther('1000000') }
  const plan = (startingMarketCapEth: string) =>
    planLaunchPool({
      pool: {
        amount: parseUnits('600000000', 18),
        startingMarketCapWei: parseEther(startingMarketCapEth),
        wholeSupply: SUPPLY,
        fee: 10000,
        tickSpacing: 200,
        owner: OWNER,
      },
      token: TOKEN,
      decimals: 18,
      addresses: BASE_UNISWAP_V4,
      marketCap,
      nowSeconds: 1_800_000_000,
    })

  it('refuses a starting market cap outside the deployment’s bounds, naming the field (1e-18 ETH and 1e20 ETH by default)', () => {
    for (const cap of ['0.000000000000000001', '0.01', '0.999999999999999999', '1000000.000000000000000001', '100000000000000000000'])
      expect(plan(cap), cap).toEqual({
        ok: false,
        code: 'INVALID_POOL',
        details: [{ field: 'pool.startingMarketCapEth', reason: 'must be between 1 and 1000000 ETH on this deployment' }],
      })
    for (const cap of ['1', '10', '1000000']) expect(plan(cap).ok, cap).toBe(true)
  })

  it('says the price and market cap the pool is really born at: the tick’s, up to 1 % off the asked cap at fee 10000', () => {
    for (const cap of ['1', '2.5', '10', '77.7', '1000', '1000000']) {
      const planned = plan(cap)
      if (!planned.ok) throw new Error(cap)
      const { view, seed } = planned.launch
      const born = Number(view.startMarketCapEth)
      expect(Math.abs(born / Number(cap) - 1), cap).toBeLessThanOrEqual(0.01)
      expect(view.startMarketCapEth).toBe(tokenValueEth(seed.sqrtPriceX96, SUPPLY))
      expect(view.startPriceEth).toBe(tokenPriceEth(seed.sqrtPriceX96, 18))
      expect(view.startPriceEth).toBe(tokenValueEth(seed.sqrtPriceX96, 10n ** 18n))
    }
    const ten = plan('10')
    if (!ten.ok) throw new Error('10')
    expect(ten.launch.view).toMatchObject({ startPriceEth: '0.0000000100160296593557367', startMarketCapEth: '10.0160296593557367' })
    // Over a capped supply, the cap is the whole supply the market cap is over.
    expect(startValuation({ sqrtPriceX96: ten.launch.seed.sqrtPriceX96, decimals: 18, wholeSupply: SUPPLY * 2n }).startMarketCapEth).toBe(
      '20.0320593187114733',
    )
  })

  it('prices the start in USD through WETH’s price, or says null for both without one', () => {
    const view = { startPriceEth: '0.0000000100160296593557367', startMarketCapEth: '10.0160296593557367' }
    expect(startValuationUsd(view, null)).toEqual({ startPriceUsd: null, startMarketCapUsd: null })
    expect(startValuationUsd(view, '3000')).toEqual({ startPriceUsd: '0.0000300480889780672101', startMarketCapUsd: '30048.0889780672101' })
  })
})

describe('startingMarketCapProblem', () => {
  const defaults = loadDeployConfig({}).poolMarketCap
  it('takes the default bounds, 1 and 1,000,000 ETH, both included, and refuses a wei outside either', () => {
    const cases: [bigint, boolean][] = [
      [1n, false], // 1e-18 ETH
      [parseEther('0.01'), false], // "0.01" typed for "10"
      [parseEther('1') - 1n, false],
      [parseEther('1'), true],
      [parseEther('10'), true],
      [parseEther('1000000'), true],
      [parseEther('1000000') + 1n, false],
      [parseEther('100000000000000000000'), false], // 1e20 ETH
    ]
    for (const [wei, ok] of cases)
      expect(startingMarketCapProblem(wei, defaults), wei.toString()).toEqual(
        ok ? null : { field: 'pool.startingMarketCapEth', reason: 'must be between 1 and 1000000 ETH on this deployment' },
      )
  })

  it('says the deployment’s own bounds, as decimals of ETH', () => {
    const bounds = loadDeployConfig({ POOL_MIN_MARKET_CAP_ETH: '0.5', POOL_MAX_MARKET_CAP_ETH: '250.25' }).poolMarketCap
    expect(startingMarketCapProblem(parseEther('0.5'), bounds)).toBeNull()
    expect(startingMarketCapProblem(parseEther('0.4'), bounds)?.reason).toBe('must be between 0.5 and 250.25 ETH on this deployment')
  })
})

describe('encodePoolApprovals', () => {
  const approvalAbi = parseAbi([
    'function approve(address spender, uint256 amount) returns (bool)',
    'function approve(address token, address spender, uint160 amount, uint48 expiration)',
  ])

  it('approves Permit2 on the token, then the PositionManager on Permit2 for the amount until the expiration', () => {
    const [token, permit2] = encodePoolApprovals({ token: TOKEN, amount: 5n, ...BASE_UNISWAP_V4, expiration: 1_800_000_000n })
    expect(token!.to).toBe(TOKEN)
    expect(decodeFunctionData({ abi: approvalAbi, data: token!.data }).args).toEqual([BASE_UNISWAP_V4.permit2, 5n])
    expect(permit2!.to).toBe(BASE_UNISWAP_V4.permit2)
    expect(decodeFunctionData({ abi: approvalAbi, data: permit2!.data }).args).toEqual([
      TOKEN,
      BASE_UNISWAP_V4.positionManager,
      5n,
      1_800_000_000,
    ])
  })

  it('refuses what Permit2 cannot hold', () => {
    const base = { token: TOKEN, ...BASE_UNISWAP_V4 }
    expect(() => encodePoolApprovals({ ...base, amount: 2n ** 160n, expiration: 1n })).toThrow('2^160-1')
    expect(() => encodePoolApprovals({ ...base, amount: 1n, expiration: 2n ** 48n })).toThrow('uint48')
  })
})
