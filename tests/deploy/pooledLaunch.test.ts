import { Ether, Token } from '@uniswap/sdk-core'
import { TickMath } from '@uniswap/v3-sdk'
import { V4PositionManager, V4PositionPlanner } from '@uniswap/v4-sdk'
import {
  type Address,
  createWalletClient,
  encodeFunctionData,
  formatUnits,
  type Hex,
  http,
  parseEther,
  parseGwei,
  parseUnits,
  type TransactionReceipt,
  toHex,
} from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { recoverAuthorizationAddress } from 'viem/utils'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { B20_FACTORY_ADDRESS, b20FactoryAbi, MINT_ROLE, predictB20Address } from '../../lib/chain/b20.js'
import { decodeExecuteBatch, delegationDesignator, SIMPLE_7702_ACCOUNT_ADDRESS } from '../../lib/chain/batchAccount.js'
import { issueAgentKey } from '../../lib/deploy/agents/agentRegistry.js'
import { setAgentWebhook } from '../../lib/deploy/agents/webhookTargets.js'
import { deployHistoryKeys } from '../../lib/deploy/keys.js'
import { followDeploys } from '../../lib/deploy/pipeline/followDeploys.js'
import { launchPoolKey } from '../../lib/deploy/pool/poolSeed.js'
import { readLaunchFailure } from '../../lib/deploy/records/launchFailure.js'
import { readTransactionRecord } from '../../lib/deploy/sender/signedTransactions.js'
import type { DeployServices } from '../../lib/deploy/services.js'
import { type ChainEvent, readChainEvent } from '../../lib/launches/chainEvents.js'
import { listLaunches } from '../../lib/launches/feed.js'
import { chainEventsChannel, tradeWatchKeys } from '../../lib/launches/keys.js'
import { launchTradeReader } from '../../lib/launches/tradeReader.js'
import { TRADE_LEASE_MS, TRADE_LEASE_RENEW_MS, tradeWatch } from '../../lib/launches/tradeWatch.js'
import { multiplyDecimals, tokenPriceEth, tokenValueEth } from '../../lib/market/poolPrice.js'
import { systemClock } from '../../lib/platform/clock.js'
import { silentLogger } from '../../lib/platform/log.js'
import { createTokenOhlcvEndpoint } from '../../lib/read/endpoint.js'
import { chainMarketKey, readKeys } from '../../lib/read/keys.js'
import { createReadServices } from '../../lib/read/services.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import { createDexScreenerClient } from '../../lib/upstream/dexscreener.js'
import { ib20Abi, ROLES, tokenAt } from '../support/b20Token.js'
import { type DeployStack, startDeployStack } from '../support/deployStack.js'
import { startFakeDexScreener } from '../support/fakeDexScreener.js'
import { withOpenApiCheck } from '../support/openapiCheck.js'
import { deployUniswapV4, poolManagerAbi, positionManagerAbi, stateViewAbi, swapCalldata, type UniswapV4 } from '../support/uniswapV4.js'
import { startWebhookReceiver } from '../support/webhookReceiver.js'

// A pooled launch through POST /api/b20-skill, on Uniswap v4's own compiled contracts beside the B20 emulator and
// Simple7702Account's compiled artifact: the token is born and its pool seeded in ONE transaction, the signer's
// `executeBatch` to itself through its EIP-7702 delegate (set by the first launch, then kept); a second account trades
// it in the next block, and the owner collects the fees with their own key.

const DEADLINE = 4_000_000_000n

describe('a pooled launch through the key door (anvil, the B20 emulator, Uniswap v4’s own contracts)', () => {
  let stack: DeployStack
  let base: DeployStack
  let v4: UniswapV4
  let services: DeployServices
  beforeAll(async () => {
    stack = await startDeployStack({ storeKind: 'memory', env: { DEPLOY_DAILY_CAP: '1000' } })
    v4 = await deployUniswapV4(stack.chain)
    base = stack
    stack = { ...stack, ...rebind(stack, v4) }
  })
  afterAll(() => stack?.close())

  /** The stack's door with this chain's Uniswap v4 as configuration (what UNISWAP_V4_* and PERMIT2_ADDRESS name on Base). */
  function rebind(base: DeployStack, at: UniswapV4): Pick<DeployStack, 'handle' | 'post'> {
    const instance = base.newInstance({
      env: {
        UNISWAP_V4_POOL_MANAGER: at.poolManager,
        UNISWAP_V4_POSITION_MANAGER: at.positionManager,
        UNISWAP_V4_STATE_VIEW: at.stateView,
        PERMIT2_ADDRESS: at.permit2,
      },
    })
    services = instance.services
    const { handle } = instance
    return { handle, post: (body, options) => base.post(body, { ...options, instance: options?.instance ?? handle }) }
  }

  const newAccount = async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    await stack.chain.fund(account.address, parseEther('100'))
    return account
  }
  const send = async (account: PrivateKeyAccount, tx: { to: Address; data: Hex; value?: bigint }) => {
    const wallet = createWalletClient({ account, transport: http(stack.chain.rpcUrl) })
    const hash = await wallet.sendTransaction({ ...tx, chain: null })
    return stack.chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
  }
  const gasOf = (receipt: TransactionReceipt) => receipt.gasUsed * receipt.effectiveGasPrice
  const pooledBody = (owner: Address, over: Record<string, unknown> = {}) => ({
    action: 'agent_deploy',
    name: 'Pooled Token',
    symbol: 'POOL',
    admin: owner,
    initialSupply: '1000000000',
    pool: { amount: '600000000', startingMarketCapEth: '10' },
    ...over,
  })
  const receiptOf = async (txHash: string) => {
    await stack.chain.publicClient.waitForTransactionReceipt({ hash: txHash as Hex, pollingInterval: 20 })
    return (await stack.post({ action: 'receipt', tx_hash: txHash })).body
  }

  it('a dry run shows the pool as it would be born, and signs nothing', async () => {
    const owner = await newAccount()
    const salt = toHex(46_001n, { size: 32 })
    const signs = stack.kms.calls.filter((call) => call === 'Sign').length
    const { body } = await stack.post(pooledBody(owner.address, { salt, dryRun: true }))
    const token = predictB20Address('asset', stack.signer, salt)
    const { poolId, key } = launchPoolKey({ token, decimals: 18, fee: 10000, tickSpacing: 200 })
    expect(body).toMatchObject({
      ok: true,
      status: 'simulated',
      predictedAddress: token,
      token: { initialSupply: '1000000000', recipient: owner.address },
      pool: { poolId, ...key, owner: owner.address, tickLower: -887200 },
    })
    // The amount is what the mint takes: the SDK rounds the liquidity down, never up.
    expect(Number(body.pool.amount)).toBeLessThanOrEqual(600_000_000)
    expect(Number(body.pool.amount)).toBeGreaterThan(599_999_999)
    // One transaction's gas, the pool's calls in it: more than a plain deploy's.
    const plain = (await stack.post({ action: 'agent_deploy', name: 'Plain', symbol: 'PLN', dryRun: true })).body
    expect(BigInt(body.gas)).toBeGreaterThan(BigInt(plain.gas))
    expect(stack.kms.calls.filter((call) => call === 'Sign').length).toBe(signs)
  })

  /** The launch's transaction: the signer's own, to itself, calling executeBatch (the creation first, the pool's calls after). */
  const expectOneBatch = async (txHash: Hex) => {
    const tx = await stack.chain.publicClient.getTransaction({ hash: txHash })
    expect(tx.from.toLowerCase()).toBe(stack.signer.toLowerCase())
    expect(tx.to?.toLowerCase()).toBe(stack.signer.toLowerCase())
    const calls = decodeExecuteBatch(tx.input)!
    expect(calls.map((call) => call.target)).toEqual([
      B20_FACTORY_ADDRESS,
      expect.stringMatching(/^0x/i), // the token
      v4.permit2,
      v4.poolManager,
      v4.positionManager,
    ])
    return tx
  }

  it('sets the signer’s delegation with its first launch (the authorization signed by KMS at nonce + 1), then keeps it: one transaction and one KMS call a launch', async () => {
    const owner = await newAccount()
    const code = () => stack.chain.publicClient.getCode({ address: stack.signer })
    const count = () => stack.chain.publicClient.getTransactionCount({ address: stack.signer })
    const signs = () => stack.kms.calls.filter((call) => call === 'Sign').length
    expect(await code()).toBeUndefined()
    const [nonce, signed] = [await count(), signs()]
    const first = (await stack.post(pooledBody(owner.address, { waitSeconds: 6 }))).body
    expect(first).toMatchObject({
      ok: true,
      status: 'broadcast',
      pool: { status: 'sent', seedTxHashes: [] },
      receipt: { status: 'confirmed' },
    })
    const tx = await expectOneBatch(first.txHash)
    // A type-4 transaction: its one authorization is the signer's own, for the delegate, at the transaction's nonce + 1.
    expect(tx.type).toBe('eip7702')
    expect(tx.nonce).toBe(nonce)
    expect(tx.authorizationList).toHaveLength(1)
    expect(tx.authorizationList![0]).toMatchObject({ address: SIMPLE_7702_ACCOUNT_ADDRESS.toLowerCase(), chainId: 8453, nonce: nonce + 1 })
    expect(await recoverAuthorizationAddress({ authorization: tx.authorizationList![0]! })).toBe(stack.signer)
    expect(await code()).toBe(delegationDesignator(SIMPLE_7702_ACCOUNT_ADDRESS))
    expect(await count()).toBe(nonce + 2) // the transaction's nonce, then the authorization's
    expect(signs() - signed).toBe(2) // the authorization and the transaction

    // Kept: the next launch carries no authorization, and is one transaction, one KMS call.
    const second = (await stack.post(pooledBody(owner.address, { waitSeconds: 6 }))).body
    expect(second).toMatchObject({ ok: true, receipt: { status: 'confirmed', pool: { status: 'seeded' } } })
    const again = await expectOneBatch(second.txHash)
    expect(again.type).toBe('eip1559')
    expect(again.nonce).toBe(nonce + 2)
    expect(await count()).toBe(nonce + 3)
    expect(signs() - signed).toBe(3)
    // A plain deploy stays one plain transaction to the factory, with no authorization list.
    const plain = (await stack.post({ action: 'agent_deploy', name: 'Plain', symbol: 'PLN', waitSeconds: 6 })).body
    const plainTx = await stack.chain.publicClient.getTransaction({ hash: plain.txHash })
    expect(plainTx).toMatchObject({ type: 'eip1559', to: B20_FACTORY_ADDRESS.toLowerCase() })
    expect(plainTx.authorizationList).toBeUndefined()
  })

  it('launches with a pool: a second account buys in the next block and sells; the owner collects the fees with their own key', async () => {
    const [owner, trader] = [await newAccount(), await newAccount()]
    const nonce = await stack.chain.publicClient.getTransactionCount({ address: stack.signer })
    const { body } = await stack.post(pooledBody(owner.address))
    expect(body).toMatchObject({ ok: true, status: 'broadcast', pool: { status: 'sent', owner: owner.address, seedTxHashes: [] } })
    const token = body.predictedAddress as Address
    // One transaction from the signer to itself, executeBatch: its nonce rises by one.
    await expectOneBatch(body.txHash)
    await stack.chain.publicClient.waitForTransactionReceipt({ hash: body.txHash, pollingInterval: 20 })
    expect(await stack.chain.publicClient.getTransactionCount({ address: stack.signer })).toBe(nonce + 1)

    const receipt = await receiptOf(body.txHash)
    expect(receipt).toMatchObject({
      ok: true,
      status: 'confirmed',
      tokenAddress: token,
      pool: { status: 'seeded', poolId: body.pool.poolId },
    })
    const positionId = BigInt(receipt.pool.positionId)
    const read = <T>(functionName: 'ownerOf' | 'getPositionLiquidity') =>
      stack.chain.publicClient.readContract({
        address: v4.positionManager,
        abi: positionManagerAbi,
        functionName,
        args: [positionId],
      }) as Promise<T>
    expect(await read<Address>('ownerOf')).toBe(owner.address)
    expect(await read<bigint>('getPositionLiquidity')).toBeGreaterThan(0n)
    // The signer keeps nothing: the pool holds its share, the recipient the rest.
    const erc20 = tokenAt(stack.chain.publicClient as never, token)
    const inPool = await erc20.balanceOf(v4.poolManager)
    expect(formatUnits(inPool, 18)).toBe(receipt.pool.amount)
    expect(await erc20.balanceOf(stack.signer)).toBe(0n)
    expect(await erc20.balanceOf(owner.address)).toBe(parseUnits('1000000000', 18) - inPool)
    expect(receipt.minted).toEqual([
      { to: stack.signer, amount: receipt.pool.amount, units: inPool.toString() },
      {
        to: owner.address,
        amount: formatUnits(parseUnits('1000000000', 18) - inPool, 18),
        units: (parseUnits('1000000000', 18) - inPool).toString(),
      },
    ])

    const key = {
      currency0: receipt.pool.currency0,
      currency1: receipt.pool.currency1,
      fee: 10000,
      tickSpacing: 200,
      hooks: receipt.pool.hooks,
    }
    const swap = (zeroForOne: boolean, amountIn: bigint) => swapCalldata(key, zeroForOne, amountIn)
    const buyEth = parseEther('0.1')
    expect((await send(trader, { to: v4.swapRouter, data: swap(true, buyEth), value: buyEth })).status).toBe('success')
    const bought = await erc20.balanceOf(trader.address)
    expect(bought).toBeGreaterThan(parseUnits('9000000', 18))
    const sold = bought / 2n
    await send(trader, { to: token, data: encodeFunctionData({ abi: ib20Abi, functionName: 'approve', args: [v4.swapRouter, sold] }) })
    expect((await send(trader, { to: v4.swapRouter, data: swap(false, sold) })).status).toBe('success')

    const collect = new V4PositionPlanner()
    collect.addDecrease(positionId.toString(), 0, 0, 0)
    collect.addTakePair(Ether.onChain(8453), new Token(8453, token, 18), owner.address)
    const collectData = V4PositionManager.encodeModifyLiquidities(collect.finalize(), DEADLINE.toString()) as Hex
    const [ethBefore, tokensBefore] = [
      await stack.chain.publicClient.getBalance({ address: owner.address }),
      await erc20.balanceOf(owner.address),
    ]
    const collected = await send(owner, { to: v4.positionManager, data: collectData })
    expect(collected.status).toBe('success')
    const feeEth = (await stack.chain.publicClient.getBalance({ address: owner.address })) - ethBefore + gasOf(collected)
    expect(feeEth).toBeGreaterThan(buyEth / 100n - 10n ** 6n)
    expect(feeEth).toBeLessThanOrEqual(buyEth / 100n)
    expect((await erc20.balanceOf(owner.address)) - tokensBefore).toBeGreaterThan(sold / 100n - 10n ** 6n)
  })

  it('says the price the pool is really born at: the answer’s and the receipt’s match slot0 to the tick; a dry run says it in USD too', async () => {
    const owner = await newAccount()
    // 10 ETH asked at tick spacing 200: the first price moves to a usable tick, so the cap born is near 10, not 10.
    const dry = (await stack.post(pooledBody(owner.address, { dryRun: true }))).body
    expect(dry.pool).toMatchObject({ startPriceUsd: null, startMarketCapUsd: null }) // no control room yet: WETH unpriced
    expect(Number(dry.pool.startMarketCapEth)).toBeGreaterThan(9.9)
    expect(Number(dry.pool.startMarketCapEth)).toBeLessThan(10.1)
    expect(dry.pool.startMarketCapEth).not.toBe('10')
    const wholeSupply = parseUnits('1000000000', 18)
    expect(tokenValueEth(BigInt(dry.pool.sqrtPriceX96), wholeSupply)).toBe(dry.pool.startMarketCapEth)
    // The control room as the read side keeps it in the shared store, WETH at 3000 USD: the dry run prices in USD.
    const room = JSON.stringify({ liveActivity: [{ address: '0x4200000000000000000000000000000000000006', priceUsd: '3000' }] })
    const roomKey = readKeys(services.config.storePrefix).controlRoom
    await stack.store.set(roomKey, JSON.stringify({ body: room, etag: '"r"', fetchedAt: 0, expiresAt: 0 }), 60_000)
    const priced = (await stack.post(pooledBody(owner.address, { dryRun: true }))).body
    expect(priced.pool).toMatchObject({
      startPriceEth: dry.pool.startPriceEth,
      startPriceUsd: multiplyDecimals(dry.pool.startPriceEth, '3000'),
      startMarketCapUsd: multiplyDecimals(dry.pool.startMarketCapEth, '3000'),
    })
    await stack.store.delete(roomKey)

    const { body } = await stack.post(pooledBody(owner.address, { waitSeconds: 6 }))
    expect(body.receipt).toMatchObject({ status: 'confirmed', pool: { status: 'seeded' } })
    expect(body.pool).toMatchObject({ startPriceEth: dry.pool.startPriceEth, startMarketCapEth: dry.pool.startMarketCapEth })
    const [sqrtPriceX96, tick] = await stack.chain.publicClient.readContract({
      address: v4.stateView,
      abi: stateViewAbi,
      functionName: 'getSlot0',
      args: [body.pool.poolId],
    })
    expect(tick).toBe(body.pool.tickUpper)
    expect(tokenPriceEth(sqrtPriceX96, 18)).toBe(body.pool.startPriceEth)
    expect(tokenValueEth(sqrtPriceX96, wholeSupply)).toBe(body.pool.startMarketCapEth)
    expect(body.receipt.pool).toMatchObject({ startPriceEth: body.pool.startPriceEth, startMarketCapEth: body.pool.startMarketCapEth })
    expect((await receiptOf(body.txHash)).pool).toMatchObject({ startPriceEth: body.pool.startPriceEth })
  })

  it('is priced from the block it is born in: the feed, the stream’s launch event and token-ohlcv carry the pool’s StateView before any swap', async () => {
    const owner = await newAccount()
    const channel = chainEventsChannel(services.config.storePrefix, 8453)
    const heard: ChainEvent[] = []
    let open = false
    const listening = stack.store.subscribe(channel, {
      onOpen: () => {
        open = true
      },
      onMessage: (message) => {
        const event = readChainEvent(message)
        if (event) heard.push(event)
      },
      onDrop: () => {},
    })
    try {
      await expect.poll(() => open).toBe(true)
      const before = stack.chain.rpcMethods.length
      const { body } = await stack.post(pooledBody(owner.address, { waitSeconds: 6 }))
      expect(body.receipt).toMatchObject({ status: 'confirmed', pool: { status: 'seeded' } })
      // Who holds which role, in the answer and its receipt: the pool's owner, never the signer.
      expect(body.token).toMatchObject({ admin: owner.address, minter: owner.address })
      expect(body.receipt.token).toMatchObject({ admin: owner.address, minter: owner.address })
      // The confirmation read StateView once, after the answer: getSlot0 and getLiquidity, at one block.
      await stack.drain()
      const calls = stack.chain.rpcMethods.slice(before)
      expect(calls.filter((method) => method === 'eth_call').length).toBeGreaterThanOrEqual(2)
      const token = (body.predictedAddress as string).toLowerCase()
      const state = JSON.parse((await stack.store.get(chainMarketKey(services.config.storePrefix, 8453, token)))!)
      expect(BigInt(state.readBlock)).toBeGreaterThanOrEqual(BigInt(body.receipt.blockNumber))
      const at = BigInt(state.readBlock)
      const [sqrtPriceX96, tick] = await stack.chain.publicClient.readContract({
        address: v4.stateView,
        abi: stateViewAbi,
        functionName: 'getSlot0',
        args: [body.pool.poolId],
        blockNumber: at,
      })
      const liquidity = await stack.chain.publicClient.readContract({
        address: v4.stateView,
        abi: stateViewAbi,
        functionName: 'getLiquidity',
        args: [body.pool.poolId],
        blockNumber: at,
      })
      // At birth the current tick is the position's upper edge: the in-range liquidity is what the chain says (0 here).
      expect(tick).toBe(body.pool.tickUpper)
      const born = {
        source: 'chain',
        priceEth: tokenPriceEth(sqrtPriceX96, 18),
        liquidity: Number(liquidity),
        marketCapEth: body.pool.startMarketCapEth,
        trades24h: 0,
        lastTradeAt: null,
      }
      expect(born.priceEth).toBe(body.pool.startPriceEth)
      // The launches feed, with no swap yet and no tick run.
      const listed = (
        await listLaunches({
          store: stack.store,
          storePrefix: services.config.storePrefix,
          chainId: 8453,
          now: stack.clock.now,
          wethUsd: '3000',
        })
      ).find((launch) => launch.txHash === body.txHash)
      expect(listed).toMatchObject({
        address: body.predictedAddress,
        roles: { admin: owner.address, minter: owner.address },
        pool: { owner: owner.address, startPriceEth: body.pool.startPriceEth, startMarketCapEth: body.pool.startMarketCapEth },
        market: { ...born, priceUsd: multiplyDecimals(born.priceEth, '3000') },
      })
      // The stream's launch event, as published once on the chain's events channel.
      await expect.poll(() => heard.filter((event) => event.kind === 'launch').length).toBe(1)
      const launched = heard.find((event) => event.kind === 'launch')!
      expect(launched.kind === 'launch' && launched.launch).toMatchObject({ address: body.predictedAddress, market: born })
      // token-ohlcv: no aggregator knows the pool, no candle yet: the pool's price, not 404.
      const dexscreener = await startFakeDexScreener([])
      try {
        const read = createReadServices({
          env: { STORE_KEY_PREFIX: services.config.storePrefix, GECKOTERMINAL_BASE_URL: '' },
          store: stack.store,
          logger: silentLogger,
          upstream: createDexScreenerClient({ baseUrl: dexscreener.url, backoffBaseMs: 5, ...systemClock }),
        })
        const ohlcv = withOpenApiCheck(
          '/api/token-ohlcv',
          createTokenOhlcvEndpoint(() => read),
        )
        const response = await ohlcv(new Request(`https://svc.test/api/token-ohlcv?address=${token}&timeframe=minute&currency=token`))
        expect(response.status).toBe(200)
        expect(await response.json()).toMatchObject({
          pairAddress: body.pool.poolId.toLowerCase(),
          dexId: 'uniswap',
          ohlcv: [],
          meta: { pool: { priceEth: born.priceEth, liquidity: born.liquidity, marketCapEth: born.marketCapEth, priceUsd: null } },
        })
      } finally {
        await dexscreener.close()
      }
    } finally {
      listening.close()
    }
  })

  it('with waitSeconds, the answer carries the receipt of a seeded pool', async () => {
    const owner = await newAccount()
    const { body } = await stack.post(pooledBody(owner.address, { waitSeconds: 6 }))
    expect(body).toMatchObject({ ok: true, status: 'broadcast', receipt: { status: 'confirmed', pool: { status: 'seeded' } } })
    expect(body.receipt.pool.positionId).toMatch(/^\d+$/)
  })

  it('a pool initialised first at another price is refused in the simulation: nothing signed, no gas, no cap slot', async () => {
    const [owner, frontRunner] = [await newAccount(), await newAccount()]
    const salt = toHex(46_002n, { size: 32 })
    const dry = (await stack.post(pooledBody(owner.address, { salt, dryRun: true }))).body
    // Someone initialises the launch's pool key first, the token 100 times dearer: inside the planned range.
    const moved = BigInt(TickMath.getSqrtRatioAtTick(dry.pool.tickUpper - 200 * 230).toString())
    const { key } = launchPoolKey({ token: dry.predictedAddress, decimals: 18, fee: 10000, tickSpacing: 200 })
    const init = await send(frontRunner, {
      to: v4.poolManager,
      data: encodeFunctionData({ abi: poolManagerAbi, functionName: 'initialize', args: [key, moved] }),
    })
    expect(init.status).toBe('success')
    const signs = stack.kms.calls.filter((call) => call === 'Sign').length
    const nonce = await stack.chain.publicClient.getTransactionCount({ address: stack.signer })
    const { body } = await stack.post(pooledBody(owner.address, { salt }))
    expect(body).toMatchObject({
      ok: false,
      code: 'SIMULATION_REVERTED',
      revert: { name: 'PoolAlreadyInitialized' },
      failedCall: 3,
      cause: 'pool-initialized',
    })
    expect(body.error).toContain('pool')
    expect(body.error).toContain('initialized')
    expect(stack.kms.calls.filter((call) => call === 'Sign').length).toBe(signs)
    expect(await stack.chain.publicClient.getTransactionCount({ address: stack.signer })).toBe(nonce)
  })

  it('refuses pooled launches with DELEGATION_UNAVAILABLE where the executor is not Simple7702Account v0.8, and plain deploys go on', async () => {
    const elsewhere = base.newInstance({
      env: {
        UNISWAP_V4_POOL_MANAGER: v4.poolManager,
        UNISWAP_V4_POSITION_MANAGER: v4.positionManager,
        UNISWAP_V4_STATE_VIEW: v4.stateView,
        PERMIT2_ADDRESS: v4.permit2,
        EIP7702_DELEGATE: '0x000000000000000000000000000000000000dEaD',
      },
    }).handle
    const signs = stack.kms.calls.filter((call) => call === 'Sign').length
    const pooled = await stack.post(pooledBody((await newAccount()).address), { instance: elsewhere })
    expect(pooled.body).toMatchObject({ ok: false, code: 'DELEGATION_UNAVAILABLE', retryAfterSeconds: 60 })
    expect(pooled.body.error).toContain('0x000000000000000000000000000000000000dEaD')
    expect(stack.kms.calls.filter((call) => call === 'Sign').length).toBe(signs)
    const plain = await stack.post(
      { action: 'agent_deploy', name: 'Still Plain', symbol: 'STILL', waitSeconds: 6 },
      { instance: elsewhere },
    )
    expect(plain.body).toMatchObject({ ok: true, status: 'broadcast', receipt: { status: 'confirmed' } })
  })

  it('refuses a pool whose position would be the signer’s, or that cannot be made, naming each field', async () => {
    const noOwner = await stack.post({ ...pooledBody(stack.signer), admin: undefined, recipient: stack.signer })
    expect(noOwner.body).toMatchObject({ ok: false, code: 'INVALID_INTENT' })
    expect(noOwner.body.details).toContainEqual(expect.objectContaining({ field: 'pool.owner' }))
    const signerOwner = await stack.post(
      pooledBody((await newAccount()).address, { pool: { amount: '1', startingMarketCapEth: '10', owner: stack.signer } }),
    )
    expect(signerOwner.body).toMatchObject({ ok: false, code: 'INVALID_INTENT', details: [{ field: 'pool.owner' }] })
    // The signer as the admin of a pooled token: it would mint without limit into the pool. Refused, nothing signed.
    const signs = stack.kms.calls.filter((call) => call === 'Sign').length
    const signerAdmin = await stack.post(
      pooledBody(stack.signer, { pool: { amount: '1', startingMarketCapEth: '10', owner: (await newAccount()).address } }),
    )
    expect(signerAdmin.body).toMatchObject({ ok: false, code: 'INVALID_INTENT', details: [{ field: 'admin' }] })
    expect(signerAdmin.body.details[0].reason).toContain('signer')
    expect(stack.kms.calls.filter((call) => call === 'Sign').length).toBe(signs)
    const tooMuch = await stack.post(
      pooledBody((await newAccount()).address, { pool: { amount: '2000000000', startingMarketCapEth: '10', fee: 42 } }),
    )
    expect(tooMuch.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['pool.amount', 'pool.fee'])
    // An unknown field inside pool is named there, once (not as a field of the body).
    const unknown = await stack.post(
      pooledBody((await newAccount()).address, { pool: { amount: '1', startingMarketCapEth: '10', colour: 'red' } }),
    )
    expect(unknown.body.details).toEqual([{ field: 'pool.colour', reason: 'is not a known field' }])
  })

  it('makes the pool’s owner the admin and minter when no admin is given: the signer holds no role on a pooled token', async () => {
    const owner = await newAccount()
    const body = pooledBody(owner.address, {
      admin: undefined,
      recipient: owner.address,
      pool: { amount: '600000000', startingMarketCapEth: '10', owner: owner.address },
    })
    const dry = (await stack.post({ ...body, dryRun: true })).body
    expect(dry).toMatchObject({ ok: true, token: { admin: owner.address } })
    const { body: sent } = await stack.post(body)
    expect(sent).toMatchObject({
      ok: true,
      status: 'broadcast',
      token: { admin: owner.address },
      pool: { status: 'sent', owner: owner.address },
    })
    expect(await receiptOf(sent.txHash)).toMatchObject({ status: 'confirmed', pool: { status: 'seeded' } })
    const token = tokenAt(stack.chain.publicClient as never, sent.predictedAddress)
    expect(await token.hasRole(ROLES.admin, owner.address)).toBe(true)
    expect(await token.hasRole(MINT_ROLE, owner.address)).toBe(true)
    for (const role of Object.values(ROLES)) expect(await token.hasRole(role, stack.signer)).toBe(false)
  })

  it('refuses a starting market cap outside the deployment’s bounds (1 to 1,000,000 ETH by default), in a dry run too, signing nothing', async () => {
    const signs = stack.kms.calls.filter((call) => call === 'Sign').length
    for (const [startingMarketCapEth, dryRun] of [
      ['0.000000000000000001', true],
      ['0.01', false],
      ['100000000000000000000', false],
    ] as const) {
      const { body } = await stack.post(
        pooledBody((await newAccount()).address, { pool: { amount: '600000000', startingMarketCapEth }, dryRun }),
      )
      expect(body, startingMarketCapEth).toMatchObject({
        ok: false,
        code: 'INVALID_INTENT',
        details: [{ field: 'pool.startingMarketCapEth', reason: 'must be between 1 and 1000000 ETH on this deployment' }],
      })
    }
    expect(stack.kms.calls.filter((call) => call === 'Sign').length).toBe(signs)
  })

  it('a pool initialised first between the simulation and the block: the whole launch reverts, no token, nothing with the signer, and the receipt says why', async () => {
    const [owner, frontRunner] = [await newAccount(), await newAccount()]
    const salt = toHex(46_003n, { size: 32 })
    const dry = (await stack.post(pooledBody(owner.address, { salt, dryRun: true }))).body
    const { key } = launchPoolKey({ token: dry.predictedAddress, decimals: 18, fee: 10000, tickSpacing: 200 })
    // Blocks wait for the test: the launch and a front-runner's initialise, paying more, share one.
    await stack.chain.testClient.setAutomine(false)
    try {
      const { body } = await stack.post(pooledBody(owner.address, { salt }))
      expect(body).toMatchObject({ ok: true, status: 'broadcast', pool: { status: 'sent' } })
      const wallet = createWalletClient({ account: frontRunner, transport: http(stack.chain.rpcUrl) })
      await wallet.sendTransaction({
        to: v4.poolManager,
        data: encodeFunctionData({
          abi: poolManagerAbi,
          functionName: 'initialize',
          args: [key, BigInt(TickMath.getSqrtRatioAtTick(dry.pool.tickUpper - 200 * 230).toString())],
        }),
        gas: 500_000n,
        maxPriorityFeePerGas: parseGwei('100'),
        maxFeePerGas: parseGwei('200'),
        chain: null,
      })
      await stack.chain.testClient.mine({ blocks: 1 })
      const receipt = await receiptOf(body.txHash)
      expect(receipt).toMatchObject({ ok: false, code: 'REVERTED', status: 'reverted', cause: 'pool-initialized' })
      expect(receipt.error).toContain('pool')
      expect(receipt.error).toContain('initialized')
      // No token, and nothing left with the signer: the batch reverted whole. (The test chain's proxy placed the token
      // emulator's code at the address before the send, as it must for any createB20; the factory never created it.)
      expect(await tokenAt(stack.chain.publicClient as never, body.predictedAddress).balanceOf(stack.signer)).toBe(0n)
      const factory = await stack.chain.publicClient.readContract({
        address: B20_FACTORY_ADDRESS,
        abi: b20FactoryAbi,
        functionName: 'isB20Initialized',
        args: [body.predictedAddress],
      })
      expect(factory).toBe(false)
      // The tick settles the launch's pool as failed and has nothing to give back.
      const done = await followDeploys(services)
      expect(done.pools?.returned ?? 0).toBe(0)
      const keys = deployHistoryKeys({ storePrefix: services.config.storePrefix, chainId: services.config.chainId })
      const record = await readTransactionRecord(services.store!, keys, body.txHash)
      expect(record).toMatchObject({ status: 'reverted', kind: 'launch' })
      expect(record?.pool?.returnTxHash).toBeUndefined()
    } finally {
      await stack.chain.testClient.setAutomine(true)
    }
  })

  it('names the real cause of a launch that ran out of gas, not an early initialize', async () => {
    const owner = await newAccount()
    await stack.chain.testClient.setAutomine(false)
    const nonce = await stack.chain.publicClient.getTransactionCount({ address: stack.signer, blockTag: 'pending' })
    try {
      const { body } = await stack.post(pooledBody(owner.address))
      expect(body).toMatchObject({ ok: true, status: 'broadcast' })
      // The same launch again at the same nonce with too little gas, paying more: it takes the launch's place.
      const raw = await stack.chain.publicClient.getTransaction({ hash: body.txHash })
      await stack.chain.testClient.impersonateAccount({ address: stack.signer })
      const starved = await stack.chain.testClient.request({
        method: 'eth_sendTransaction',
        params: [
          {
            from: stack.signer,
            to: stack.signer,
            data: raw.input,
            nonce: toHex(nonce),
            gas: toHex(200_000n),
            maxFeePerGas: toHex(parseGwei('300')),
            maxPriorityFeePerGas: toHex(parseGwei('150')),
          },
        ],
      } as never)
      await stack.chain.testClient.mine({ blocks: 1 })
      const mined = await stack.chain.publicClient.waitForTransactionReceipt({ hash: starved as Hex, pollingInterval: 20 })
      expect(mined.status).toBe('reverted')
      await stack.chain.testClient.stopImpersonatingAccount({ address: stack.signer })
      const failure = await readLaunchFailure({ services, receipt: mined, poolId: body.pool.poolId })
      expect(failure.cause).toBe('gas')
      expect(failure.why).toContain('gas')
      expect(failure.why).not.toContain('initialized')
    } finally {
      await stack.chain.testClient.setAutomine(true)
    }
  })

  it('tells the agent’s webhook: the broadcast names the pool, and pool.seeded the position once the tick settles it', async () => {
    const receiver = await startWebhookReceiver()
    try {
      const storePrefix = services.config.storePrefix
      const { key } = await issueAgentKey({ store: stack.store, storePrefix, label: 'pooler' })
      await setAgentWebhook({ store: stack.store, storePrefix, which: 'pooler', url: receiver.url, onVercel: false })
      const owner = await newAccount()
      const { body } = await stack.post(pooledBody(owner.address), { key })
      expect(body).toMatchObject({ ok: true, status: 'broadcast' })
      await stack.chain.publicClient.waitForTransactionReceipt({ hash: body.txHash, pollingInterval: 20 })
      expect((await followDeploys(services)).pools).toMatchObject({ seeded: expect.any(Number) })
      await stack.drain()
      const events = receiver.deliveries.map((d) => JSON.parse(d.body) as { type: string; data: Record<string, unknown> })
      const mine = events.filter((event) => event.data.txHash === body.txHash)
      expect(mine.find((event) => event.type === 'deploy.broadcast')?.data).toMatchObject({ poolId: body.pool.poolId })
      const seeded = mine.find((event) => event.type === 'pool.seeded')
      expect(seeded?.data).toMatchObject({ poolId: body.pool.poolId, owner: owner.address, positionId: expect.stringMatching(/^\d+$/) })
      // Settled: the next tick tells nothing again.
      await followDeploys(services)
      await stack.drain()
      expect(receiver.deliveries.filter((d) => d.body.includes('pool.seeded'))).toHaveLength(1)
    } finally {
      await receiver.close()
    }
  })

  it('publishes each swap on a launched pool once, from the one instance holding the trade watch; a new holder goes on where it stopped', async () => {
    const [owner, trader] = [await newAccount(), await newAccount()]
    const { body } = await stack.post(pooledBody(owner.address, { waitSeconds: 6 }))
    expect(body.receipt).toMatchObject({ pool: { status: 'seeded' } })
    const channel = chainEventsChannel(services.config.storePrefix, 8453)
    const heard: ChainEvent[] = []
    let open = false
    const listening = stack.store.subscribe(channel, {
      onOpen: () => {
        open = true
      },
      onMessage: (message) => {
        const event = readChainEvent(message)
        if (event) heard.push(event)
      },
      onDrop: () => {},
    })
    await expect.poll(() => open).toBe(true)
    const trades = () => heard.flatMap((event) => (event.kind === 'trade' ? [event.trade] : []))
    /** An instance's trade watch, its timer run by hand: each `look` is one. */
    const instance = (instanceId: string, reader = async () => launchTradeReader(services)) => {
      let pending: (() => void) | null = null
      const watch = tradeWatch({
        store: stack.store,
        keyPrefix: services.config.storePrefix,
        chainId: 8453,
        logger: silentLogger,
        now: () => stack.clock.now,
        reader,
        instanceId,
      })
      const running = watch(
        () => {},
        (run) => {
          pending = run
          return () => {
            pending = null
          }
        },
      )
      return {
        stop: running.stop,
        heard: watch.launchHeard,
        look: async () => {
          const run = pending!
          pending = null
          run()
          await expect.poll(() => pending, { interval: 5 }).not.toBeNull()
        },
      }
    }
    const getLogs = () => stack.chain.rpcMethods.filter((method) => method === 'eth_getLogs').length
    const keyOf = (pool: typeof body.pool) => ({
      currency0: pool.currency0,
      currency1: pool.currency1,
      fee: 10000,
      tickSpacing: 200,
      hooks: pool.hooks,
    })
    const swap = async (zeroForOne: boolean, amount: bigint, key = keyOf(body.pool)) => {
      if (!zeroForOne)
        await send(trader, {
          to: key.currency1,
          data: encodeFunctionData({ abi: ib20Abi, functionName: 'approve', args: [v4.swapRouter, amount] }),
        })
      return send(trader, {
        to: v4.swapRouter,
        value: zeroForOne ? amount : 0n,
        data: swapCalldata(key, zeroForOne, amount),
      })
    }
    const [a, b] = [instance('instance-a'), instance('instance-b')]
    try {
      await a.look() // a takes the lease; its trades start at the head
      await b.look() // b finds it held: it reads nothing from the chain
      const reads = getLogs()
      const bought = await swap(true, parseEther('0.05'))
      await a.look()
      await b.look()
      expect(getLogs()).toBe(reads + 1) // a's read alone
      await expect.poll(() => trades()).toHaveLength(1)
      expect(trades()[0]).toMatchObject({
        kind: 'trade',
        token: body.predictedAddress.toLowerCase(),
        poolId: body.pool.poolId.toLowerCase(),
        side: 'buy',
        amountEth: '0.05',
        txHash: bought.transactionHash,
      })
      await a.look() // the next look publishes it no second time
      // a's last stream closes: it saves its cursor and frees the lease. A swap comes before b's next try.
      a.stop()
      const sold = await swap(false, 10n ** 18n)
      stack.clock.now += TRADE_LEASE_RENEW_MS
      await b.look() // b takes the lease and goes on from a's cursor: the sell is not lost, the buy not sent again
      await expect.poll(() => trades().map((t) => t.txHash)).toEqual([bought.transactionHash, sold.transactionHash])
      expect(trades()[1]).toMatchObject({ side: 'sell', amountToken: '1' })
      // b goes without a word (no release): past the lease's life, another instance takes it over.
      const c = instance('instance-c')
      await c.look()
      const again = await swap(true, parseEther('0.01'))
      await c.look()
      await b.look()
      await expect.poll(() => trades().length).toBe(3) // b published it, still the holder
      // The lease outlives b's last renewal by TRADE_LEASE_MS, then its key expires (this store's clock is the wall's:
      // the expiry is done by hand), and c's next try takes it.
      stack.clock.now += TRADE_LEASE_MS + 1
      await stack.store.delete(tradeWatchKeys(services.config.storePrefix, 8453).lease)
      await c.look() // c takes it, from b's last renewal: what b had published since, c may send again
      const after = await swap(true, parseEther('0.02'))
      await c.look()
      await expect
        .poll(() =>
          trades()
            .map((t) => t.txHash)
            .at(-1),
        )
        .toBe(after.transactionHash)
      expect(new Set(trades().map((t) => t.txHash))).toEqual(new Set([bought, sold, again, after].map((r) => r.transactionHash)))
      stack.clock.now += TRADE_LEASE_RENEW_MS
      const published = trades().length
      await b.look() // b's renewal finds the lease c's: it reads and publishes nothing more
      await c.look()
      expect(trades()).toHaveLength(published)
      // A quiet stretch: a hundred blocks with no swap. At its next renewal c moves its cursor up to the head it read
      // first, and saves that at the one after: its reads stay a few blocks long.
      await stack.chain.testClient.mine({ blocks: 100 })
      const head = await stack.chain.publicClient.getBlockNumber({ cacheTime: 0 })
      for (let renewal = 0; renewal < 2; renewal++) {
        stack.clock.now += TRADE_LEASE_RENEW_MS
        await c.look()
      }
      const saved = await stack.store.get(tradeWatchKeys(services.config.storePrefix, 8453).cursor)
      expect(JSON.parse(saved!)).toMatchObject({ fromBlock: head.toString(), after: null })
      expect(trades()).toHaveLength(published)
      // A launch with a pool after c took the lease: c reads its list again when it hears it (the stream's launch
      // event does that), so the new pool's first swap is published, from where c had read up to.
      const second = await stack.post(pooledBody(owner.address, { waitSeconds: 6 }))
      expect(second.body.receipt).toMatchObject({ pool: { status: 'seeded' } })
      const first = await swap(true, parseEther('0.01'), keyOf(second.body.pool))
      await c.look()
      expect(trades()).toHaveLength(published) // c's list is the old one yet
      c.heard()
      await c.look()
      await expect.poll(() => trades().map((t) => t.txHash)).toContain(first.transactionHash)
      expect(trades().at(-1)).toMatchObject({ poolId: second.body.pool.poolId.toLowerCase(), side: 'buy' })
      b.stop()
      c.stop()
    } finally {
      listening.close()
    }
    // A store with no pooled launch: the watch asks the chain nothing, takes no lease, never builds its reader.
    const before = stack.chain.rpcMethods.length
    let built = false
    const quietStore = createMemoryStore()
    const quiet = tradeWatch({
      store: quietStore,
      keyPrefix: services.config.storePrefix,
      chainId: 8453,
      logger: silentLogger,
      now: () => stack.clock.now,
      reader: async () => {
        built = true
        return launchTradeReader(services)
      },
    })
    let pending: (() => void) | null = null
    const stop = quiet(
      () => {},
      (run) => {
        pending = run
        return () => {}
      },
    ).stop
    for (let look = 0; look < 2; look++) {
      const run = pending!
      pending = null
      run()
      await expect.poll(() => pending, { interval: 5 }).not.toBeNull()
      stack.clock.now += 61_000 // the next look at the pooled launches' index
    }
    stop()
    expect(stack.chain.rpcMethods.slice(before)).toEqual([])
    expect(built).toBe(false)
    expect(await quietStore.get(tradeWatchKeys(services.config.storePrefix, 8453).lease)).toBeNull()
  })
})
