import { Ether, Token } from '@uniswap/sdk-core'
import { TickMath } from '@uniswap/v3-sdk'
import { V4PositionManager, V4PositionPlanner } from '@uniswap/v4-sdk'
import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  decodeErrorResult,
  encodeFunctionData,
  type Hex,
  http,
  parseEther,
  parseUnits,
  type TransactionReceipt,
} from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { B20_FACTORY_ADDRESS, encodeCreateB20, predictB20Address } from '../../lib/chain/b20.js'
import { encodeBirthInitCalls } from '../../lib/chain/tokenBirth.js'
import { encodePoolApprovals } from '../../lib/deploy/pool/permit2.js'
import { type PoolSeed, planPoolSeed } from '../../lib/deploy/pool/poolSeed.js'
import { type AnvilChain, startAnvilChain } from '../support/anvil.js'
import { ib20Abi, tokenAt } from '../support/b20Token.js'
import {
  deployUniswapV4,
  poolManagerAbi,
  poolSwapTestAbi,
  positionManagerAbi,
  stateViewAbi,
  swapCalldata,
  type UniswapV4,
  uniswapV4Artifacts,
} from '../support/uniswapV4.js'

// A launch's pool on Uniswap v4's own compiled contracts: the seed planned by lib/deploy/pool, sent here by the token's
// holder as the service's signer would, then bought, sold and its fees collected by their owner.

const SUPPLY = parseUnits('1000000000', 18)
const POOL_AMOUNT = parseUnits('600000000', 18)
// Far past anvil's clock, within Permit2's uint48 expirations.
const DEADLINE = 4_000_000_000n

/** The errors of the PoolManager and the PositionManager, as their compiled ABIs name them. */
const uniswapErrors = [...uniswapV4Artifacts.poolManager().abi, ...uniswapV4Artifacts.positionManager().abi].filter(
  (item) => item.type === 'error',
) as Abi

/** The name of the error a call reverted with, decoded by Uniswap's own ABIs (null when it did not revert). */
async function revertName(attempt: Promise<unknown>): Promise<string | null> {
  try {
    await attempt
    return null
  } catch (error) {
    if (!(error instanceof BaseError)) throw error
    const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError || 'data' in (e as object)) as { data?: unknown } | null
    const data = reverted?.data
    const raw = typeof data === 'string' ? (data as Hex) : ((data as { data?: Hex } | undefined)?.data ?? (error as { data?: Hex }).data)
    if (typeof raw !== 'string') return `undecoded: ${error.shortMessage}`
    // Errors inside the unlock callback come back wrapped: the innermost known one names the cause.
    const names: string[] = []
    let bytes: Hex = raw
    for (;;) {
      try {
        const decoded = decodeErrorResult({ abi: uniswapErrors, data: bytes })
        names.push(decoded.errorName)
        const inner = (decoded.args ?? []).find((arg) => typeof arg === 'string' && arg.length >= 10 && arg.startsWith('0x')) as
          | Hex
          | undefined
        if (!inner || inner === bytes) break
        bytes = inner
      } catch {
        break
      }
    }
    return names.join(' > ') || `undecoded: ${raw.slice(0, 10)}`
  }
}

describe('a launch’s pool on Uniswap v4’s own contracts (anvil, the B20 emulator, v4-core and v4-periphery artifacts)', () => {
  let chain: AnvilChain
  let v4: UniswapV4

  beforeAll(async () => {
    chain = await startAnvilChain()
    v4 = await deployUniswapV4(chain)
  })
  afterAll(async () => {
    await chain?.stop()
  })

  const newAccount = async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    await chain.fund(account.address, parseEther('100'))
    return account
  }
  /** Sends a transaction through the chain's proxy (which places B20 token code) and waits for its receipt. */
  const send = async (account: PrivateKeyAccount, tx: { to: Address; data: Hex; value?: bigint; gas?: bigint }) => {
    const wallet = createWalletClient({ account, transport: http(chain.rpcUrl) })
    const hash = await wallet.sendTransaction({ ...tx, chain: null })
    return chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
  }
  const gasOf = (receipt: TransactionReceipt) => receipt.gasUsed * receipt.effectiveGasPrice
  const balance = (address: Address) => chain.publicClient.getBalance({ address })

  /** A B20 asset with its whole supply minted to `holder`, as the deploy path creates one (createB20 with initCalls). */
  async function createToken(holder: PrivateKeyAccount): Promise<Address> {
    const salt = generatePrivateKey()
    const spec = { variant: 'asset', name: 'Pool Token', symbol: 'POOL', admin: holder.address, decimals: 18 } as const
    const initCalls = encodeBirthInitCalls({ minter: holder.address, mint: { to: holder.address, units: SUPPLY } })
    const receipt = await send(holder, { to: B20_FACTORY_ADDRESS, data: encodeCreateB20(spec, salt, initCalls) })
    expect(receipt.status).toBe('success')
    return predictB20Address('asset', holder.address, salt)
  }

  const plan = (token: Address, owner: Address): PoolSeed => {
    const planned = planPoolSeed({
      token,
      decimals: 18,
      amount: POOL_AMOUNT,
      startingMarketCapWei: parseEther('10'),
      wholeSupply: SUPPLY,
      fee: 10000,
      tickSpacing: 200,
      owner,
      deadline: DEADLINE,
    })
    if (!planned.ok) throw new Error(JSON.stringify(planned.details))
    return planned.seed
  }

  /** The holder's seeding transactions: the two Permit2 approvals, then initializePool + MINT_POSITION in one multicall. */
  async function seed(holder: PrivateKeyAccount, token: Address, planned: PoolSeed, gas?: bigint) {
    for (const approval of encodePoolApprovals({
      token,
      amount: planned.amount,
      permit2: v4.permit2,
      positionManager: v4.positionManager,
      expiration: DEADLINE,
    }))
      expect((await send(holder, approval)).status).toBe('success')
    return send(holder, { to: v4.positionManager, data: planned.multicall, ...(gas ? { gas } : {}) })
  }

  it('seeds a single-sided pool at the planned price; a second account buys and sells; the owner collects the fees with their own key', async () => {
    const [holder, owner, trader] = [await newAccount(), await newAccount(), await newAccount()]
    const token = await createToken(holder)
    const planned = plan(token, owner.address)
    const nextTokenId = await chain.publicClient.readContract({
      address: v4.positionManager,
      abi: positionManagerAbi,
      functionName: 'nextTokenId',
    })
    const holderEthBefore = await balance(holder.address)

    const seeded = await seed(holder, token, planned)
    expect(seeded.status).toBe('success')
    // The pool is born at the planned price, holding only the token: the holder paid gas and no ETH.
    const [sqrtPriceX96, tick, , lpFee] = await chain.publicClient.readContract({
      address: v4.stateView,
      abi: stateViewAbi,
      functionName: 'getSlot0',
      args: [planned.poolId],
    })
    expect({ sqrtPriceX96, tick, lpFee }).toEqual({ sqrtPriceX96: planned.sqrtPriceX96, tick: planned.tickUpper, lpFee: 10000 })
    const pm = tokenAt(chain.publicClient as never, token)
    const inPool = await pm.balanceOf(v4.poolManager)
    expect(inPool).toBe(planned.taken) // exactly what the plan said the mint takes
    expect(inPool).toBeGreaterThan(POOL_AMOUNT - 10n ** 6n)
    expect(inPool).toBeLessThanOrEqual(POOL_AMOUNT)
    expect(await pm.balanceOf(holder.address)).toBe(SUPPLY - inPool)
    expect(await balance(v4.poolManager)).toBe(0n)
    expect(await balance(holder.address)).toBeGreaterThan(holderEthBefore - parseEther('0.01')) // gas only, at anvil's fees
    // The position is the owner's ERC-721, with the planned liquidity.
    const read = <T>(functionName: 'ownerOf' | 'getPositionLiquidity', args: readonly [bigint]) =>
      chain.publicClient.readContract({ address: v4.positionManager, abi: positionManagerAbi, functionName, args }) as Promise<T>
    expect(await read<Address>('ownerOf', [nextTokenId])).toBe(owner.address)
    expect(await read<bigint>('getPositionLiquidity', [nextTokenId])).toBe(planned.liquidity)

    // A second account buys with 0.1 ETH through the swap router, then sells half of what it got back.
    const buyEth = parseEther('0.1')
    const swap = (zeroForOne: boolean, amountIn: bigint) => swapCalldata(planned.key, zeroForOne, amountIn)
    expect((await send(trader, { to: v4.swapRouter, data: swap(true, buyEth), value: buyEth })).status).toBe('success')
    const bought = await pm.balanceOf(trader.address)
    // 0.1 ETH at a 10 ETH market cap for 1e9 tokens, less the 1 % fee: about 9.9M tokens, a little less for the move.
    expect(bought).toBeGreaterThan(parseUnits('9000000', 18))
    expect(bought).toBeLessThan(parseUnits('9900000', 18))
    const sold = bought / 2n
    await send(trader, { to: token, data: encodeFunctionData({ abi: ib20Abi, functionName: 'approve', args: [v4.swapRouter, sold] }) })
    const traderEthBeforeSell = await balance(trader.address)
    const sell = await send(trader, { to: v4.swapRouter, data: swap(false, sold) })
    expect(sell.status).toBe('success')
    expect(await pm.balanceOf(trader.address)).toBe(bought - sold)
    const ethBack = (await balance(trader.address)) - traderEthBeforeSell + gasOf(sell)
    expect(ethBack).toBeGreaterThan(parseEther('0.045'))
    expect(ethBack).toBeLessThan(parseEther('0.05'))

    // Only the owner collects: DECREASE_LIQUIDITY of 0 then TAKE_PAIR, with the owner's own key.
    const eth = Ether.onChain(8453)
    const currency = new Token(8453, token, 18)
    const collect = new V4PositionPlanner()
    collect.addDecrease(nextTokenId.toString(), 0, 0, 0)
    collect.addTakePair(eth, currency, owner.address)
    const collectData = V4PositionManager.encodeModifyLiquidities(collect.finalize(), DEADLINE.toString()) as Hex
    const stranger = await newAccount()
    expect(await revertName(send(stranger, { to: v4.positionManager, data: collectData }))).toContain('NotApproved')
    const ownerEthBefore = await balance(owner.address)
    const collected = await send(owner, { to: v4.positionManager, data: collectData })
    expect(collected.status).toBe('success')
    const feeEth = (await balance(owner.address)) - ownerEthBefore + gasOf(collected)
    // 1 % of the 0.1 ETH bought with, to Uniswap's rounding down; and 1 % of the tokens sold.
    expect(feeEth).toBeLessThanOrEqual(buyEth / 100n)
    expect(feeEth).toBeGreaterThan(buyEth / 100n - 10n ** 6n)
    const feeTokens = await pm.balanceOf(owner.address)
    expect(feeTokens).toBeLessThanOrEqual(sold / 100n)
    expect(feeTokens).toBeGreaterThan(sold / 100n - 10n ** 6n)
    // The liquidity stays in the pool: collecting took the fees only.
    expect(await read<bigint>('getPositionLiquidity', [nextTokenId])).toBe(planned.liquidity)
  })

  it('a pool initialised first above the range (the token cheaper) gains its initialiser nothing: buyers pay the planned prices', async () => {
    const buyEth = parseEther('0.1')
    const buyWith = async (trader: PrivateKeyAccount, planned: PoolSeed) => {
      const data = encodeFunctionData({
        abi: poolSwapTestAbi,
        functionName: 'swap',
        args: [
          planned.key,
          { zeroForOne: true, amountSpecified: -buyEth, sqrtPriceLimitX96: BigInt(TickMath.MIN_SQRT_RATIO.toString()) + 1n },
          { takeClaims: false, settleUsingBurn: false },
          '0x',
        ],
      })
      expect((await send(trader, { to: v4.swapRouter, data, value: buyEth })).status).toBe('success')
    }
    // The same launch twice: one pool born as planned, one initialised first by someone else at 100 times as many
    // tokens per ETH. The position is minted either way (only the token is needed above the range).
    const [holder, owner, frontRunner] = [await newAccount(), await newAccount(), await newAccount()]
    const planned = plan(await createToken(holder), owner.address)
    expect((await seed(holder, planned.key.currency1, planned)).status).toBe('success')
    const early = plan(await createToken(holder), owner.address)
    const cheap = BigInt(TickMath.getSqrtRatioAtTick(early.tickUpper + 200 * 230).toString())
    await send(frontRunner, {
      to: v4.poolManager,
      data: encodeFunctionData({ abi: poolManagerAbi, functionName: 'initialize', args: [early.key, cheap] }),
    })
    expect((await seed(holder, early.key.currency1, early)).status).toBe('success')
    // The first buyer of each, the front-runner included, gets exactly the same: there is no liquidity above the range.
    await buyWith(frontRunner, early)
    const trader = await newAccount()
    await buyWith(trader, planned)
    const boughtEarly = await tokenAt(chain.publicClient as never, early.key.currency1).balanceOf(frontRunner.address)
    expect(boughtEarly).toBe(await tokenAt(chain.publicClient as never, planned.key.currency1).balanceOf(trader.address))
    expect(boughtEarly).toBeLessThan(parseUnits('9900000', 18))
  })

  it('a pool initialised first at another price makes the mint revert (ETH bound 0): the holder keeps every token and pays only gas', async () => {
    const [holder, owner, frontRunner] = [await newAccount(), await newAccount(), await newAccount()]
    const token = await createToken(holder)
    const planned = plan(token, owner.address)
    // Someone initialises the same key first, at a price inside the planned range (the token 100 times dearer), where
    // a position would need ETH as well as the token.
    const movedTick = planned.tickUpper - 200 * 230
    const moved = BigInt(TickMath.getSqrtRatioAtTick(movedTick).toString())
    const init = await send(frontRunner, {
      to: v4.poolManager,
      data: encodeFunctionData({ abi: poolManagerAbi, functionName: 'initialize', args: [planned.key, moved] }),
    })
    expect(init.status).toBe('success')

    // A simulation names why: the mint would need ETH above its bound of 0.
    await send(
      holder,
      encodePoolApprovals({
        token,
        amount: planned.amount,
        permit2: v4.permit2,
        positionManager: v4.positionManager,
        expiration: DEADLINE,
      })[0]!,
    )
    await send(
      holder,
      encodePoolApprovals({
        token,
        amount: planned.amount,
        permit2: v4.permit2,
        positionManager: v4.positionManager,
        expiration: DEADLINE,
      })[1]!,
    )
    expect(await revertName(chain.publicClient.call({ account: holder.address, to: v4.positionManager, data: planned.multicall }))).toMatch(
      /MaximumAmountExceeded/,
    )
    // Sent anyway (a fixed gas limit skips the estimate), it reverts on chain and moves nothing.
    const ethBefore = await balance(holder.address)
    const reverted = await send(holder, { to: v4.positionManager, data: planned.multicall, gas: 1_000_000n })
    expect(reverted.status).toBe('reverted')
    expect(await tokenAt(chain.publicClient as never, token).balanceOf(holder.address)).toBe(SUPPLY)
    expect(await tokenAt(chain.publicClient as never, token).balanceOf(v4.poolManager)).toBe(0n)
    expect(await balance(holder.address)).toBe(ethBefore - gasOf(reverted))
    const [sqrtPriceX96] = await chain.publicClient.readContract({
      address: v4.stateView,
      abi: stateViewAbi,
      functionName: 'getSlot0',
      args: [planned.poolId],
    })
    expect(sqrtPriceX96).toBe(moved)
    expect(
      await chain.publicClient.readContract({
        address: v4.stateView,
        abi: stateViewAbi,
        functionName: 'getLiquidity',
        args: [planned.poolId],
      }),
    ).toBe(0n)
  })
})
