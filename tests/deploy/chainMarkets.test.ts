import {
  type Address,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  parseEther,
  parseEventLogs,
  parseUnits,
  toHex,
} from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { B20_FACTORY_ADDRESS, encodeCreateB20, predictB20Address } from '../../lib/chain/b20.js'
import { encodeBirthInitCalls } from '../../lib/chain/tokenBirth.js'
import { loadDeployConfig } from '../../lib/deploy/config.js'
import { deployHistoryKeys } from '../../lib/deploy/keys.js'
import { encodePoolApprovals } from '../../lib/deploy/pool/permit2.js'
import { type PoolSeed, planPoolSeed } from '../../lib/deploy/pool/poolSeed.js'
import {
  listUnmined,
  parseTransactionRecord,
  recordTransaction,
  type TransactionRecord,
} from '../../lib/deploy/sender/signedTransactions.js'
import { createLaunchesEndpoint } from '../../lib/launches/endpoint.js'
import { listLaunches } from '../../lib/launches/feed.js'
import { type LaunchesPage, launchSchema } from '../../lib/launches/schema.js'
import { followPoolSwaps, pooledLaunches } from '../../lib/launches/swapFollow.js'
import { readLaunchTrades } from '../../lib/launches/tradeReader.js'
import { tokenPriceEth, tokenValueEth, weiToEth } from '../../lib/market/poolPrice.js'
import type { TokenOhlcv } from '../../lib/market/types.js'
import { systemClock } from '../../lib/platform/clock.js'
import { createLogger } from '../../lib/platform/log.js'
import { createTokenOhlcvEndpoint } from '../../lib/read/endpoint.js'
import { createReadServices } from '../../lib/read/services.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import type { Store } from '../../lib/store/types.js'
import { createDexScreenerClient } from '../../lib/upstream/dexscreener.js'
import { type AnvilChain, startAnvilChain } from '../support/anvil.js'
import { ib20Abi, tokenAt } from '../support/b20Token.js'
import { type FakeDexScreener, startFakeDexScreener } from '../support/fakeDexScreener.js'
import { type FakeGeckoTerminal, GECKO_NATIVE_ETH, startFakeGeckoTerminal } from '../support/fakeGeckoTerminal.js'
import { withOpenApiCheck } from '../support/openapiCheck.js'
import { makePair } from '../support/syntheticMarket.js'
import { deployUniswapV4, stateViewAbi, swapCalldata, type UniswapV4, uniswapV4Artifacts } from '../support/uniswapV4.js'

// A launch's market read from its own pool on Uniswap v4's own contracts: the pool seeded as the deploy path plans it,
// bought and sold through PoolSwapTest, then one tick's follow of the PoolManager's Swap logs, the launches feed and
// token-ohlcv. Every RPC call the follow makes goes through the chain's counting proxy.

const SUPPLY = parseUnits('1000000000', 18)
const POOL_AMOUNT = parseUnits('600000000', 18)
const DEADLINE = 2n ** 40n
const SIGNER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'

describe('a launch’s market from its pool’s swaps, before any aggregator (anvil, Uniswap v4’s contracts, the tick’s follow)', () => {
  let chain: AnvilChain
  let v4: UniswapV4
  let upstream: FakeDexScreener
  let gecko: FakeGeckoTerminal

  beforeAll(async () => {
    chain = await startAnvilChain()
    v4 = await deployUniswapV4(chain)
    upstream = await startFakeDexScreener([])
    gecko = await startFakeGeckoTerminal([])
  })
  afterAll(async () => {
    await Promise.all([chain?.stop(), upstream?.close(), gecko?.close()])
  })

  const newAccount = async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    await chain.fund(account.address, parseEther('100'))
    return account
  }
  const send = async (account: PrivateKeyAccount, tx: { to: Address; data: Hex; value?: bigint }) => {
    const wallet = createWalletClient({ account, transport: http(chain.rpcUrl) })
    const hash = await wallet.sendTransaction({ ...tx, chain: null })
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    expect(receipt.status).toBe('success')
    return receipt
  }

  /** The deploy side a follow runs on: this chain's v4 addresses, a store of its own, RPC through the counting proxy. */
  function followServices(store: Store, prefix: string) {
    const config = loadDeployConfig({
      STORE_KEY_PREFIX: prefix,
      UNISWAP_V4_POOL_MANAGER: v4.poolManager,
      UNISWAP_V4_STATE_VIEW: v4.stateView,
    })
    return { store, config, publicClient: createPublicClient({ transport: http(chain.rpcUrl) }), clock: systemClock }
  }
  /** One tick's follow, with the RPC methods it called. */
  async function tick(store: Store, prefix: string, wethUsd: string | null = '3000') {
    const before = chain.rpcMethods.length
    const result = await followPoolSwaps({ services: followServices(store, prefix), wethUsd })
    return { result, methods: chain.rpcMethods.slice(before) }
  }
  /** Mines the blocks the follow stays behind the head, so every swap sent is old enough to be read. */
  const settle = () => chain.testClient.mine({ blocks: 5 })

  /** A token born with its whole supply to `holder`, and its pool seeded as planned, recorded as a confirmed launch. */
  async function launch(store: Store, prefix: string): Promise<{ token: Address; planned: PoolSeed }> {
    const holder = await newAccount()
    const salt = generatePrivateKey()
    const spec = { variant: 'asset', name: 'Chain Token', symbol: 'CHN', admin: holder.address, decimals: 18 } as const
    const initCalls = encodeBirthInitCalls({ minter: holder.address, mint: { to: holder.address, units: SUPPLY } })
    const data = encodeCreateB20(spec, salt, initCalls)
    const created = await send(holder, { to: B20_FACTORY_ADDRESS, data })
    const token = predictB20Address('asset', holder.address, salt)
    const planned = planPoolSeed({
      token,
      decimals: 18,
      amount: POOL_AMOUNT,
      startingMarketCapWei: parseEther('10'),
      wholeSupply: SUPPLY,
      fee: 10000,
      tickSpacing: 200,
      owner: holder.address,
      deadline: DEADLINE,
    })
    if (!planned.ok) throw new Error(JSON.stringify(planned.details))
    const seedTxHashes: Hex[] = []
    for (const approval of encodePoolApprovals({
      token,
      amount: planned.seed.amount,
      permit2: v4.permit2,
      positionManager: v4.positionManager,
      expiration: DEADLINE,
    }))
      seedTxHashes.push((await send(holder, approval)).transactionHash)
    seedTxHashes.push((await send(holder, { to: v4.positionManager, data: planned.seed.multicall })).transactionHash)
    await recordLaunch(store, prefix, { txHash: created.transactionHash, token, data, seed: planned.seed, seedTxHashes })
    return { token, planned: planned.seed }
  }

  /** Writes a launch's deploy record through the record functions, as the deploy path does once it is confirmed. */
  async function recordLaunch(
    store: Store,
    prefix: string,
    { txHash, token, data, seed, seedTxHashes }: { txHash: Hex; token: Address; data: Hex; seed: PoolSeed; seedTxHashes: Hex[] },
  ) {
    const now = Date.now()
    const record: TransactionRecord = {
      txHash,
      kind: 'launch',
      to: B20_FACTORY_ADDRESS,
      agent: 'a'.repeat(64),
      predictedAddress: token,
      name: 'Chain Token',
      symbol: 'CHN',
      variant: 'asset',
      decimals: 18,
      createdAt: now,
      sentAt: now,
      status: 'confirmed',
      nonce: 0,
      gas: '1000000',
      maxFeePerGas: '1',
      maxPriorityFeePerGas: '1',
      data,
      pool: {
        poolId: seed.poolId,
        currency0: seed.key.currency0,
        currency1: seed.key.currency1,
        fee: seed.key.fee,
        tickSpacing: seed.key.tickSpacing,
        hooks: seed.key.hooks,
        sqrtPriceX96: seed.sqrtPriceX96.toString(),
        tickLower: seed.tickLower,
        tickUpper: seed.tickUpper,
        amount: seed.amount.toString(),
        owner: seed.owner,
        seedTxHashes,
      },
    }
    await recordTransaction({
      store,
      keys: deployHistoryKeys({ storePrefix: prefix, chainId: 8453 }),
      signer: SIGNER,
      record,
      inAgentHistory: true,
    })
  }

  /** Swaps through PoolSwapTest: a buy of the token with `eth` (exact input), or a sale of `tokens`; the Swap log's amounts. */
  async function swap(trader: PrivateKeyAccount, planned: PoolSeed, side: { buyEth: bigint } | { sellTokens: bigint }) {
    const zeroForOne = 'buyEth' in side
    const amountIn = 'buyEth' in side ? side.buyEth : side.sellTokens
    if (!zeroForOne)
      await send(trader, {
        to: planned.key.currency1,
        data: encodeFunctionData({ abi: ib20Abi, functionName: 'approve', args: [v4.swapRouter, amountIn] }),
      })
    const receipt = await send(trader, {
      to: v4.swapRouter,
      value: zeroForOne ? amountIn : 0n,
      data: swapCalldata(planned.key, zeroForOne, amountIn),
    })
    // Read with the PoolManager's own compiled ABI, not ours.
    const [event] = parseEventLogs({ abi: uniswapV4Artifacts.poolManager().abi, eventName: 'Swap', logs: receipt.logs }) as unknown as {
      args: { amount0: bigint; amount1: bigint; sqrtPriceX96: bigint }
    }[]
    return event!.args
  }

  const slot0 = async (poolId: Hex) =>
    (await chain.publicClient.readContract({ address: v4.stateView, abi: stateViewAbi, functionName: 'getSlot0', args: [poolId] }))[0]

  it('buys and sells appear as the launch’s market after one tick, and as candles from /api/token-ohlcv; a second tick counts nothing twice', async () => {
    const prefix = `cm1:${Date.now()}:`
    const store = createMemoryStore()
    // A first tick before the launch: no pooled launch, so no RPC call at all (one store read says so).
    expect((await tick(store, prefix)).methods).toEqual([])
    const { token, planned } = await launch(store, prefix)
    const trader = await newAccount()
    const buy = await swap(trader, planned, { buyEth: parseEther('0.1') })
    const bought = await tokenAt(chain.publicClient as never, token).balanceOf(trader.address)
    const sell = await swap(trader, planned, { sellTokens: bought / 2n })
    expect(buy.amount0).toBe(-parseEther('0.1'))
    expect(sell.amount0).toBeGreaterThan(0n)
    await settle()

    const first = await tick(store, prefix)
    // The head, the logs, and StateView's getSlot0 and getLiquidity of the one pool that traded.
    expect(first.methods).toEqual(['eth_getBlockByNumber', 'eth_getLogs', 'eth_call', 'eth_call'])
    expect(first.result).toMatchObject({ pools: 1, swaps: 2, updated: 1, rpcCalls: 4 })

    const now = Date.now()
    const [listed] = await listLaunches({ store, storePrefix: prefix, chainId: 8453, now, wethUsd: '3000' })
    expect(launchSchema.parse(listed)).toEqual(listed)
    expect(listed!.pool).toEqual({
      poolId: planned.poolId,
      fee: 10000,
      owner: planned.owner,
      startPriceEth: tokenPriceEth(planned.sqrtPriceX96, 18),
      startMarketCapEth: tokenValueEth(planned.sqrtPriceX96, SUPPLY),
    })
    const liquidityNow = await chain.publicClient.readContract({
      address: v4.stateView,
      abi: stateViewAbi,
      functionName: 'getLiquidity',
      args: [planned.poolId],
    })
    expect(liquidityNow).toBeGreaterThan(0n) // bought into the range: the position's liquidity is in range now
    const priceNow = tokenPriceEth(await slot0(planned.poolId), 18)
    expect(sell.sqrtPriceX96).toBe(await slot0(planned.poolId))
    const volumeWei = parseEther('0.1') + sell.amount0
    expect(listed!.market).toMatchObject({
      source: 'chain',
      pairAddress: planned.poolId.toLowerCase(),
      dexId: 'uniswap',
      priceEth: priceNow,
      volume24hEth: weiToEth(volumeWei),
      trades24h: 2,
      liquidity: Number(liquidityNow),
      marketCapEth: tokenValueEth(await slot0(planned.poolId), SUPPLY),
    })
    expect(Number(listed!.market!.priceUsd)).toBeCloseTo(Number(priceNow) * 3000, 18)
    // 0.1 ETH at a 10 ETH market cap for 1e9 tokens, then a sale of half: the price stays near 1e-8 ETH.
    expect(Number(priceNow)).toBeGreaterThan(1e-8)
    expect(Number(priceNow)).toBeLessThan(1.05e-8)

    // The next tick reads only the blocks after the last one read: no swap is counted twice.
    await settle()
    const second = await tick(store, prefix)
    expect(second.result).toMatchObject({ swaps: 0, updated: 0 })
    expect(BigInt(second.result.fromBlock!)).toBe(BigInt(first.result.toBlock!) + 1n)
    await swap(trader, planned, { buyEth: parseEther('0.05') })
    await settle()
    expect((await tick(store, prefix)).result).toMatchObject({ swaps: 1, updated: 1 })
    const [again] = await listLaunches({ store, storePrefix: prefix, chainId: 8453, now: Date.now(), wethUsd: '3000' })
    expect(again!.market).toMatchObject({ trades24h: 3, volume24hEth: weiToEth(volumeWei + parseEther('0.05')) })

    const read = createReadServices({
      env: { STORE_KEY_PREFIX: prefix, GECKOTERMINAL_BASE_URL: gecko.url },
      store,
      logger: createLogger({ write: () => {} }),
      upstream: createDexScreenerClient({ baseUrl: upstream.url, backoffBaseMs: 5, ...systemClock }),
    })
    // GET /api/launches answers the same, held to the OpenAPI document.
    const launchesEndpoint = withOpenApiCheck(
      '/api/launches',
      createLaunchesEndpoint({ read: () => read, config: () => ({ publicLaunches: true, chainId: 8453 }) }),
    )
    const page = (await (await launchesEndpoint(new Request('https://svc.test/api/launches'))).json()) as LaunchesPage
    expect(page.launches[0]!.market).toMatchObject({ source: 'chain', trades24h: 3 })

    // token-ohlcv: the aggregators know nothing of the token (DexScreener lists no pair, nor does GeckoTerminal).
    const ohlcv = withOpenApiCheck(
      '/api/token-ohlcv',
      createTokenOhlcvEndpoint(() => read),
    )
    const candles = async (query: string) => {
      const response = await ohlcv(new Request(`https://svc.test/api/token-ohlcv?address=${token}&${query}`))
      expect(response.status).toBe(200)
      return (await response.json()) as TokenOhlcv
    }
    const inEth = await candles('timeframe=day&currency=token')
    expect(inEth).toMatchObject({ pairAddress: planned.poolId.toLowerCase(), dexId: 'uniswap', timeframe: 'day', currency: 'token' })
    expect(inEth.ohlcv).toHaveLength(1)
    const [, open, high, low, close, volume] = inEth.ohlcv[0]!
    expect(open).toBe(Number(tokenPriceEth(planned.sqrtPriceX96, 18))) // the pool's first price
    expect(close).toBe(Number(tokenPriceEth(await slot0(planned.poolId), 18)))
    expect(high).toBeGreaterThanOrEqual(close)
    expect(low).toBe(open)
    expect(volume).toBeCloseTo(Number(weiToEth(volumeWei + parseEther('0.05'))), 12)
    const minutes = await candles('timeframe=minute&currency=usd')
    expect(minutes.ohlcv.length).toBeGreaterThanOrEqual(1)
    expect(minutes.ohlcv.reduce((sum, row) => sum + row[5], 0)).toBeCloseTo(Number(weiToEth(volumeWei + parseEther('0.05'))) * 3000, 6)

    // The aggregators index the pool: once the token's pool is looked up again (the 10 minutes a token without one is
    // remembered, passed here by forgetting it), its candles are GeckoTerminal's, of the same pool.
    const pair = makePair({
      base: { address: token, name: 'Chain Token', symbol: 'CHN' },
      quote: GECKO_NATIVE_ETH,
      pairAddress: planned.poolId,
      volume24h: 900,
      liquidityUsd: 50_000,
    })
    upstream.setPairs([pair])
    gecko.setPairs([pair])
    await store.delete(read.keys.chartedPool(token.toLowerCase()))
    const geckoCalls = gecko.requests.length
    const fromAggregator = await candles('timeframe=hour&currency=token')
    expect(gecko.requests.length).toBe(geckoCalls + 1)
    expect(fromAggregator).toMatchObject({ pairAddress: planned.poolId.toLowerCase(), timeframe: 'hour' })
    expect(fromAggregator.meta.base?.address).toBe(token.toLowerCase())
    // GeckoTerminal's rows (the fake draws a long history for the pool), not the one hour the chain's swaps make.
    expect(fromAggregator.ohlcv.length).toBeGreaterThan(1)
  })

  it('a tick costs the same RPC calls with one launch or forty: one for the head, one eth_getLogs over every pool id, StateView for the pool that traded', async () => {
    const prefix = `cm2:${Date.now()}:`
    const store = createMemoryStore()
    const { planned } = await launch(store, prefix)
    await settle()
    await tick(store, prefix) // the cursor set
    await swap(await newAccount(), planned, { buyEth: parseEther('0.01') })
    await settle()
    const one = await tick(store, prefix)
    expect(one.methods).toEqual(['eth_getBlockByNumber', 'eth_getLogs', 'eth_call', 'eth_call']) // StateView of the pool that traded
    expect(one.result).toMatchObject({ pools: 1, swaps: 1 })
    // Forty more launches with pools (their records only: pools nobody trades).
    for (let i = 0; i < 40; i++) {
      const fake = { ...planned, poolId: keccak256(toHex(`pool ${i} ${prefix}`)) }
      await recordLaunch(store, prefix, {
        txHash: keccak256(toHex(`tx ${i} ${prefix}`)),
        token: `0x${(i + 1).toString(16).padStart(40, '0')}`,
        data: '0x',
        seed: fake,
        seedTxHashes: [],
      })
    }
    await swap(await newAccount(), planned, { buyEth: parseEther('0.01') })
    await settle()
    const many = await tick(store, prefix)
    expect(many.methods).toEqual(one.methods)
    expect(many.result).toMatchObject({ pools: 41, swaps: 1, updated: 1, rpcCalls: 4 })
    // A quiet tick: the head and the logs, nothing written but the block read, no StateView read.
    await settle()
    expect((await tick(store, prefix)).methods).toEqual(['eth_getBlockByNumber', 'eth_getLogs'])
  })

  it('reads the swaps since a block as trade events in one eth_getLogs, up to the head (what a stream would send)', async () => {
    const prefix = `cm3:${Date.now()}:`
    const store = createMemoryStore()
    const { token, planned } = await launch(store, prefix)
    const from = (await chain.publicClient.getBlockNumber()) + 1n
    await swap(await newAccount(), planned, { buyEth: parseEther('0.02') })
    const keys = deployHistoryKeys({ storePrefix: prefix, chainId: 8453 })
    const launches = pooledLaunches([
      parseTransactionRecord(await store.get(keys.recordPrefix + (await listUnmined(store, keys, SIGNER))[0]!.txHash.toLowerCase())),
    ])
    const before = chain.rpcMethods.length
    const client = createPublicClient({ transport: http(chain.rpcUrl) })
    const { trades, cursor } = await readLaunchTrades({
      client,
      poolManager: v4.poolManager,
      launches,
      cursor: { fromBlock: from, after: null },
    })
    expect(chain.rpcMethods.slice(before)).toEqual(['eth_getLogs'])
    expect(trades).toEqual([
      expect.objectContaining({
        kind: 'trade',
        token: token.toLowerCase(),
        side: 'buy',
        amountEth: '0.02',
        priceEth: tokenPriceEth(await slot0(planned.poolId), 18),
      }),
    ])
    expect(cursor).toEqual({
      fromBlock: BigInt(trades[0]!.blockNumber),
      after: { blockNumber: BigInt(trades[0]!.blockNumber), logIndex: trades[0]!.logIndex },
    })
    // Read again from there: nothing is sent twice; the next swap is the only one.
    const again = await readLaunchTrades({ client, poolManager: v4.poolManager, launches, cursor })
    expect(again).toEqual({ trades: [], cursor })
    await swap(await newAccount(), planned, { buyEth: parseEther('0.03') })
    const next = await readLaunchTrades({ client, poolManager: v4.poolManager, launches, cursor })
    expect(next.trades.map((t) => t.amountEth)).toEqual(['0.03'])
  })
})
