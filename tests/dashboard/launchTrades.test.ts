import { TickMath } from '@uniswap/v3-sdk'
import type { Browser } from 'playwright-core'
import { createWalletClient, encodeFunctionData, http, parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { generateAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { launchChromium } from '../support/browser.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { type ServiceParts, startServiceParts } from '../support/serviceParts.js'
import { deployUniswapV4, poolSwapTestAbi, type UniswapV4 } from '../support/uniswapV4.js'

// A launch that trades from birth, on the dashboard: its token page (opened from a link) says its pool and who holds
// the position, and a swap on its pool shows there within seconds of its block, over the stream, with no reload. The
// page also says what the chain says of a launch now (GET /api/launches/{address}): who can mint, pause and edit it,
// its cap, what the service still holds, the fees its position earned, and a plain warning when anyone can still mint.

const OWNER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'

const agent = generateAgentKey()
const CRON_SECRET = 'launch-trades-cron-secret-0123456789'

describe('a pooled launch’s token page over npm start (anvil, Uniswap v4’s contracts, Chromium)', () => {
  let parts: ServiceParts
  let v4: UniswapV4
  let service: NpmStart
  let browser: Browser
  /** Launched before any page reads the launches feed (its body is kept 30 s): the powers case's two tokens. */
  let kept: string
  let earning: Record<string, any>
  beforeAll(async () => {
    parts = await startServiceParts({ redisSocket: inject('redisSocket'), allowlist: [agent.digest], storePrefix: `trades${process.pid}:` })
    v4 = await deployUniswapV4(parts.chain)
    service = await startNpmStart({
      ...parts.env,
      UNISWAP_V4_POOL_MANAGER: v4.poolManager,
      UNISWAP_V4_POSITION_MANAGER: v4.positionManager,
      UNISWAP_V4_STATE_VIEW: v4.stateView,
      PERMIT2_ADDRESS: v4.permit2,
      CRON_SECRET,
      TICK_INTERVAL_SECONDS: '0',
    })
    // The service keeps the admin and mint roles of a token launched with no admin (its supply to a recipient).
    kept = (await deploy({ name: 'Kept Page', symbol: 'KPGE', recipient: OWNER, initialSupply: '1000', supplyCap: '5000' }))
      .predictedAddress
    // A pooled launch whose admin (and position) is its owner's: the service keeps nothing.
    earning = await deploy({
      name: 'Earning Page',
      symbol: 'EARN',
      admin: OWNER,
      initialSupply: '1000000',
      pool: { amount: '500000', startingMarketCapEth: '5' },
    })
    browser = await launchChromium()
  }, 120_000)
  /** An agent deploy that waits for its receipt; answers the confirmed answer. */
  async function deploy(body: Record<string, unknown>) {
    const answer = await fetch(`${service.url}/api/b20-skill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-key': agent.key },
      body: JSON.stringify({ action: 'agent_deploy', waitSeconds: 6, ...body }),
    })
    const launched = (await answer.json()) as Record<string, any>
    expect(launched).toMatchObject({ ok: true, receipt: { status: 'confirmed' } })
    return launched
  }
  afterAll(async () => {
    await browser?.close()
    await service?.stop()
    await parts?.close()
  })

  it('shows the pool and its owner, the first swap as it happens, and after a tick its candles from the chain', async () => {
    const owner = OWNER
    const answer = await fetch(`${service.url}/api/b20-skill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-key': agent.key },
      body: JSON.stringify({
        action: 'agent_deploy',
        name: 'Page Pool',
        symbol: 'PGPL',
        admin: owner,
        initialSupply: '1000000',
        pool: { amount: '500000', startingMarketCapEth: '5' },
        waitSeconds: 6,
      }),
    })
    const launched = (await answer.json()) as Record<string, any>
    expect(launched).toMatchObject({ ok: true, receipt: { status: 'confirmed', pool: { status: 'seeded' } } })
    const token = (launched.predictedAddress as string).toLowerCase()

    const page = await browser.newPage()
    try {
      const watchedFrom = parts.chain.rpcMethods.length
      await page.goto(`${service.url}/#/token/${token}`)
      await expect.poll(() => page.locator('dd[data-field="pool"]').textContent(), { timeout: 15_000 }).toContain('Uniswap v4')
      expect(await page.locator('dd[data-field="owner"]').textContent()).toBe(owner)
      expect(await page.locator('dd[data-field="minter"]').textContent()).toBe(owner)
      expect(await page.locator('dd[data-field="pool"]').textContent()).toContain('Nothing is locked')
      // The page's stream is open and its instance has read the chain's head and the launched pools' logs once: from
      // there on every swap of these pools is news to it.
      await expect
        .poll(() => parts.chain.rpcMethods.slice(watchedFrom).join(' '), { timeout: 15_000 })
        .toMatch(/eth_blockNumber.*eth_getLogs/)

      const trader = privateKeyToAccount(generatePrivateKey())
      await parts.chain.fund(trader.address, parseEther('1'))
      const { pool } = launched
      const wallet = createWalletClient({ account: trader, transport: http(parts.chain.rpcUrl) })
      const hash = await wallet.sendTransaction({
        to: v4.swapRouter,
        value: parseEther('0.01'),
        chain: null,
        data: encodeFunctionData({
          abi: poolSwapTestAbi,
          functionName: 'swap',
          args: [
            { currency0: pool.currency0, currency1: pool.currency1, fee: pool.fee, tickSpacing: pool.tickSpacing, hooks: pool.hooks },
            { zeroForOne: true, amountSpecified: -parseEther('0.01'), sqrtPriceLimitX96: BigInt(TickMath.MIN_SQRT_RATIO.toString()) + 1n },
            { takeClaims: false, settleUsingBurn: false },
            '0x',
          ],
        }),
      })
      const mined = await parts.chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })
      expect(mined.status).toBe('success')
      // Within a few seconds of its block, on the open page, with no request of the page's own.
      await expect
        .poll(() => page.locator('dd[data-field="lastTrade"]').textContent(), { timeout: 8000 })
        .toMatch(new RegExp(`^buy of [0-9.]+ for 0\\.01 ETH, at [0-9.e-]+ ETH \\(block ${mined.blockNumber}\\)$`))

      // One tick later (the follow reads up to 5 blocks behind the head), before any aggregator: the token's candles
      // come from its pool's swap (the launches feed's market too, once its 30 s cached body is renewed; the feed's own
      // case is in tests/deploy/chainMarkets.test.ts).
      await parts.chain.testClient.mine({ blocks: 6 })
      const tick = await fetch(`${service.url}/api/tick`, { headers: { authorization: `Bearer ${CRON_SECRET}` } })
      expect(tick.status).toBe(200)
      expect(((await tick.json()) as { parts: Record<string, unknown> }).parts.chainMarkets).toMatchObject({ swaps: 1, updated: 1 })
      const candles = (await (await fetch(`${service.url}/api/token-ohlcv?address=${token}&timeframe=minute`)).json()) as {
        pairAddress: string
        ohlcv: number[][]
      }
      expect(candles.pairAddress).toBe(pool.poolId.toLowerCase())
      expect(candles.ohlcv).toHaveLength(1)
    } finally {
      await page.close()
    }
  })
  it('says who can mint, pause and edit, the cap, what the service holds and the fees earned, and warns who can still mint', async () => {
    // A buy on the owner's pool: its position earns 1 % of it.
    const trader = privateKeyToAccount(generatePrivateKey())
    await parts.chain.fund(trader.address, parseEther('1'))
    const { pool } = earning
    const wallet = createWalletClient({ account: trader, transport: http(parts.chain.rpcUrl) })
    const hash = await wallet.sendTransaction({
      to: v4.swapRouter,
      value: parseEther('0.02'),
      chain: null,
      data: encodeFunctionData({
        abi: poolSwapTestAbi,
        functionName: 'swap',
        args: [
          { currency0: pool.currency0, currency1: pool.currency1, fee: pool.fee, tickSpacing: pool.tickSpacing, hooks: pool.hooks },
          { zeroForOne: true, amountSpecified: -parseEther('0.02'), sqrtPriceLimitX96: BigInt(TickMath.MIN_SQRT_RATIO.toString()) + 1n },
          { takeClaims: false, settleUsingBurn: false },
          '0x',
        ],
      }),
    })
    expect((await parts.chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status).toBe('success')

    const page = await browser.newPage()
    const field = (name: string) => page.locator(`dd[data-field="${name}"]`).textContent()
    try {
      // The owner's pooled launch: one account can mint, the service holds nothing, and the fees its position earned.
      const token = (earning.predictedAddress as string).toLowerCase()
      await page.goto(`${service.url}/#/token/${token}`)
      await expect.poll(() => field('feesOwed'), { timeout: 15_000 }).toMatch(/ ETH and /)
      const detail = (await (await fetch(`${service.url}/api/launches/${token}`)).json()) as Record<string, any>
      const { feesOwed } = detail.pool
      expect(BigInt(feesOwed.ethWei)).toBeGreaterThan(0n)
      expect(await field('feesOwed')).toBe(`${feesOwed.eth} ETH and ${feesOwed.token} EARN (the position owner’s to collect)`)
      expect(await page.getByTestId('detail-warning').textContent()).toBe(
        '1 account can still mint this token: its supply may grow without limit.',
      )
      expect(await field('minter')).toBe(OWNER)
      expect(await field('admin')).toBe(OWNER)
      expect(await field('pausers')).toBe('nobody now')
      expect(await field('metadataEditors')).toBe('nobody now')
      expect(await field('signerRoles')).toBe('no role: it can no longer touch this token')
      expect(await field('supplyCap')).toBe('none · 1000000 in supply now')

      // The token the service kept: the warning names the service, and the roles it still holds.
      await page.evaluate((address) => {
        window.location.hash = `#/token/${address}`
      }, kept.toLowerCase())
      await expect
        .poll(() => page.getByTestId('detail-warning').textContent(), { timeout: 15_000 })
        .toBe('The service can still mint this token: its supply may grow up to its cap of 5000.')
      expect(await page.getByTestId('detail-warning').isVisible()).toBe(true)
      expect(await field('signerRoles')).toBe('DEFAULT_ADMIN_ROLE, MINT_ROLE')
      expect(await field('minter')).toBe(parts.signer)
      expect(await field('supplyCap')).toBe('5000 · 1000 in supply now')
      expect(await page.locator('dd[data-field="feesOwed"]').count()).toBe(0)
    } finally {
      await page.close()
    }
  })
})
