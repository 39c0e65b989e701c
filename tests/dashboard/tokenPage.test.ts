import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer, vercelRouting } from '../../dev/server.js'
import { loadHealthConfig } from '../../lib/health/config.js'
import { createHealthEndpoint } from '../../lib/health/endpoint.js'
import { loadLaunchesConfig } from '../../lib/launches/config.js'
import { createLaunchesEndpoint } from '../../lib/launches/endpoint.js'
import { instanceDeploySource } from '../../lib/launches/instance.js'
import { chainEventsChannel, launchSignalKey } from '../../lib/launches/keys.js'
import { announceLaunch } from '../../lib/launches/launchSignal.js'
import type { ControlRoom } from '../../lib/market/types.js'
import { systemClock } from '../../lib/platform/clock.js'
import { silentLogger } from '../../lib/platform/log.js'
import {
  createControlRoomEndpoint,
  createMarketHistoryEndpoint,
  createTokenHistoryEndpoint,
  createTokenOhlcvEndpoint,
  createTokenSearchEndpoint,
} from '../../lib/read/endpoint.js'
import { createReadServices, type ReadServices } from '../../lib/read/services.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import { loadStreamConfig } from '../../lib/stream/config.js'
import { createStreamEndpoint } from '../../lib/stream/endpoint.js'
import { createDexScreenerClient } from '../../lib/upstream/dexscreener.js'
import { createGeckoTerminalClient } from '../../lib/upstream/geckoterminal.js'
import { launchChromium } from '../support/browser.js'
import { type FakeDexScreener, startFakeDexScreener } from '../support/fakeDexScreener.js'
import { type FakeGeckoTerminal, startFakeGeckoTerminal } from '../support/fakeGeckoTerminal.js'
import { seedLaunches } from '../support/seedLaunches.js'
import { createSyntheticMarket, type RawPair } from '../support/syntheticMarket.js'

const ROOT = join(import.meta.dirname, '..', '..')
const EVIL_WEBSITE = 'http://evil.example/phish'
/**
 * axe over the token page, every rule, in the page itself (`setLegacyMode`: `axe.run` where the page is, rather than a
 * partial run per frame finished in a second, blank page; the page has no frames): only the violations are worked out.
 * The token page is a modal <dialog>: the dashboard behind it is inert, and dashboard.test.ts runs axe over that page
 * whole at each width, so the dialog is what is new here. A whole-page run read the 100 rows again (about 2 s of
 * Chromium's CPU).
 */
const axeOf = (page: Page) =>
  new AxeBuilder({ page })
    .setLegacyMode()
    .include('#detail')
    .options({ resultTypes: ['violations'] })
    .analyze()

/** Who a seeded pooled launch's position (and, with no admin given, its roles) go to. */
const POOL_OWNER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'

/** The token page in Chromium against the local server, the fake upstreams and launches in the deploy records. */
describe('the token page (candles from lightweight-charts) and New launches', () => {
  let upstream: FakeDexScreener
  let gecko: FakeGeckoTerminal
  let server: RunningServer
  let browser: Browser
  let services: ReadServices
  let room: ControlRoom
  let market: RawPair[]
  let launched: { address: string; txHash: string }[]
  const clock = { offset: 0 }
  const pageErrors: string[] = []

  /** A page at a width, loaded: its console errors (a CSP refusal among them) and page errors are collected. */
  async function openPage(width: number, path = '/'): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: width < 700 ? 800 : 1000 } })
    const page = await context.newPage()
    page.on('pageerror', (error) => pageErrors.push(`${width}px: ${error.message}`))
    page.on('console', (m) => m.type() === 'error' && pageErrors.push(`${width}px: ${m.text()} (${m.location().url})`))
    await page.goto(`${server.url}${path}`)
    return page
  }
  /** Waits until the token page shows candles drawn on its canvas. */
  async function candlesDrawn(page: Page): Promise<number> {
    await page.waitForSelector('[data-testid="candle-chart"][data-candles]:not([data-candles=""]) canvas')
    return Number(await page.getByTestId('candle-chart').getAttribute('data-candles'))
  }
  /** How many distinct colours the chart's canvases hold: one when nothing is drawn. */
  const colours = (page: Page) =>
    page.evaluate(() => {
      const seen = new Set<string>()
      for (const canvas of document.querySelectorAll<HTMLCanvasElement>('#candle-chart canvas')) {
        if (canvas.width === 0 || canvas.height === 0) continue
        const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data
        for (let i = 0; i < data.length; i += 4 * 97) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]},${data[i + 3]}`)
      }
      return seen.size
    })

  beforeAll(async () => {
    market = createSyntheticMarket()
    upstream = await startFakeDexScreener(market)
    gecko = await startFakeGeckoTerminal(market, { now: () => Date.now() + clock.offset })
    services = createReadServices({
      env: { GECKOTERMINAL_BASE_URL: gecko.url, TOKEN_OHLCV_RATE_LIMIT_PER_MINUTE: '1000' },
      store: createMemoryStore(),
      logger: silentLogger,
      now: () => Date.now() + clock.offset,
      upstream: createDexScreenerClient({ baseUrl: upstream.url, backoffBaseMs: 5, ...systemClock }),
      gecko: createGeckoTerminalClient({ baseUrl: gecko.url, backoffBaseMs: 5, maxRetryAfterMs: 0, ...systemClock }),
    })
    const launches = () => loadLaunchesConfig({})
    server = await startServer({
      port: 0,
      endpoints: {
        'control-room': createControlRoomEndpoint(() => services),
        'token-search': createTokenSearchEndpoint(() => services),
        'token-history': createTokenHistoryEndpoint(() => services),
        'market-history': createMarketHistoryEndpoint(() => services),
        'token-ohlcv': createTokenOhlcvEndpoint(() => services),
        launches: createLaunchesEndpoint({ read: () => services, config: launches }),
        health: createHealthEndpoint({ read: () => services, deploy: instanceDeploySource, config: () => loadHealthConfig({}) }),
        stream: createStreamEndpoint({ read: () => services, config: () => loadStreamConfig({}), launches }),
      },
      ...(await vercelRouting()),
    })
    room = (await (await fetch(`${server.url}/api/control-room`)).json()) as ControlRoom
    const now = Date.now()
    launched = await seedLaunches(services.store, services.keyPrefix, [
      {
        name: '<img src=x onerror="window.pwned=1">Evil Launch',
        symbol: 'EVL',
        createdAt: now - 120_000,
        metadata: { description: '<script>window.pwned=2</script> free tokens', website: EVIL_WEBSITE },
      },
      {
        name: 'Good Launch',
        symbol: 'GOOD',
        createdAt: now - 60_000,
        initialSupply: 10n ** 24n,
        metadata: { description: 'A token with a site.', website: 'https://good.example/' },
      },
      {
        name: 'Pooled Launch',
        symbol: 'POOLD',
        createdAt: now - 180_000,
        initialSupply: 10n ** 27n,
        pool: { amount: '600000000', startingMarketCapEth: '10', owner: POOL_OWNER },
      },
    ])
    browser = await launchChromium()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await upstream?.close()
    await gecko?.close()
  })

  it('serves lightweight-charts byte for byte as its package ships it, with its licence', () => {
    for (const [served, shipped] of [
      [
        'public/vendor/lightweight-charts.standalone.production.mjs',
        'node_modules/lightweight-charts/dist/lightweight-charts.standalone.production.mjs',
      ],
      ['public/vendor/lightweight-charts.LICENSE.txt', 'node_modules/lightweight-charts/LICENSE'],
    ])
      expect(readFileSync(join(ROOT, served!)).equals(readFileSync(join(ROOT, shipped!))), served).toBe(true)
  })

  it('opens from a link to #/token/0x…: the title, candles drawn on the canvas, TradingView’s attribution, the pair link', async () => {
    const token = room.liveActivity[1]!
    const page = await openPage(1400, `/#/token/${token.address}`)
    try {
      await page.getByTestId('detail').waitFor({ state: 'visible' })
      expect(await page.textContent('#detail-title')).toBe(`${token.symbol} · ${token.name}`)
      expect(await candlesDrawn(page)).toBeGreaterThan(10)
      expect(await colours(page)).toBeGreaterThan(3)
      expect(await page.getByTestId('candle-legend').textContent()).toMatch(/^O \$[\d.,e-]+ H \$.+ L \$.+ C \$.+$/)
      const attribution = page.locator('.candle-foot a')
      expect(await attribution.getAttribute('href')).toBe('https://www.tradingview.com/')
      expect(await attribution.getAttribute('rel')).toBe('noopener noreferrer')
      expect(await page.locator('.candle-foot').textContent()).toContain('TradingView Lightweight Charts™')
      expect(await page.locator('#detail-links a').first().getAttribute('href')).toBe(token.pairUrl)
      expect(await page.locator('dd[data-field]').count()).toBe(24)
      // The library is loaded only now that a token page is open, from this site (the CSP allows nothing else).
      expect(
        await page.evaluate(() =>
          performance.getEntriesByType('resource').some((e) => e.name.endsWith('/vendor/lightweight-charts.standalone.production.mjs')),
        ),
      ).toBe(true)
    } finally {
      await page.context().close()
    }
  })

  it('switches timeframe: 5m asks for 5-minute candles and draws them; the choice shows as pressed', async () => {
    const token = room.liveActivity[2]!
    const page = await openPage(1400, `/#/token/${token.address}`)
    try {
      await candlesDrawn(page)
      const asked = page.waitForRequest((r) => r.url().includes('/api/token-ohlcv') && r.url().includes('timeframe=minute&aggregate=5'))
      await page.click('#candle-frames button[data-frame="5m"]')
      await asked
      await page.waitForSelector('#candle-frames button[data-frame="5m"][aria-pressed="true"]')
      await page.waitForFunction(() => document.getElementById('candle-note')?.textContent?.includes('of 5m'))
      expect(await candlesDrawn(page)).toBeGreaterThan(50)
      expect(await page.locator('#candle-frames button[aria-pressed="true"]').count()).toBe(1)
    } finally {
      await page.context().close()
    }
  })

  it('moves the open candle’s close with the price the stream brings', async () => {
    const token = room.liveActivity[3]!
    const page = await openPage(1400, `/#/token/${token.address}`)
    try {
      await page.waitForSelector('[data-testid="live"][data-mode="live"]')
      await candlesDrawn(page)
      const moved = (Number(token.priceUsd) * 1.37).toPrecision(6)
      upstream.setPairs(market.map((p) => (p.baseToken.address.toLowerCase() === token.address ? { ...p, priceUsd: moved } : p)))
      // The window ends and a read elsewhere refreshes the room on the server: the page hears of it on its stream.
      clock.offset += 31_000
      await expect
        .poll(async () => {
          await (await fetch(`${server.url}/api/control-room`)).arrayBuffer()
          return page.getByTestId('candle-legend').getAttribute('data-live')
        })
        .toBe('true')
      const price = await page.evaluate((p) => {
        const n = Number(p)
        return n >= 1 ? `$${new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }).format(n)}` : `$${n.toPrecision(4)}`
      }, moved)
      expect(await page.getByTestId('candle-legend').textContent()).toMatch(/ C \$[\d.,]+$/)
      expect((await page.getByTestId('candle-legend').textContent())!.endsWith(` C ${price}`)).toBe(true)
    } finally {
      upstream.setPairs(market)
      await page.context().close()
    }
  }, 60_000)

  it('fits a phone: at 360 px the page, its timeframes and its drawn chart stay inside the screen', async () => {
    const token = room.liveActivity[0]!
    const page = await openPage(360, `/#/token/${token.address}`)
    try {
      await candlesDrawn(page)
      const box = (await page.getByTestId('detail').boundingBox())!
      expect(box.x).toBeGreaterThanOrEqual(0)
      expect(box.x + box.width).toBeLessThanOrEqual(360)
      const chart = (await page.getByTestId('candle-chart').boundingBox())!
      expect(chart.width).toBeGreaterThan(250)
      expect(chart.x + chart.width).toBeLessThanOrEqual(360)
      const frames = (await page.locator('#candle-frames').boundingBox())!
      expect(frames.x + frames.width).toBeLessThanOrEqual(360)
      expect(await colours(page)).toBeGreaterThan(3)
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true)
      expect((await axeOf(page)).violations.map((v) => v.id)).toEqual([])
    } finally {
      await page.context().close()
    }
  })

  it('opens from a row, puts the token in the URL, and Escape or Back closes it; from a search result too', async () => {
    const page = await openPage(1400)
    try {
      await page.getByTestId('table-wrap').scrollIntoViewIfNeeded()
      const token = room.liveActivity[4]!
      await page.locator(`tr[data-address="${token.address}"] .token`).click()
      await page.getByTestId('detail').waitFor({ state: 'visible' })
      expect(new URL(page.url()).hash).toBe(`#/token/${token.address}`)
      await candlesDrawn(page)
      expect((await axeOf(page)).violations.map((v) => v.id)).toEqual([])
      await page.keyboard.press('Escape')
      await page.getByTestId('detail').waitFor({ state: 'hidden' })
      await expect.poll(() => new URL(page.url()).hash).toBe('')
      await page.goForward()
      await page.getByTestId('detail').waitFor({ state: 'visible' })
      await page.goBack()
      await page.getByTestId('detail').waitFor({ state: 'hidden' })
      // A search result outside the top 100: its page with the search's row, and candles from its own pool.
      const outside = market.find(
        (p) => p.chainId === 'base' && !room.liveActivity.some((t) => t.address === p.baseToken.address.toLowerCase()),
      )!
      await page.fill('#search-input', outside.baseToken.symbol)
      await page.press('#search-input', 'Enter')
      const result = page.locator(`[data-testid="search-results"] tr[data-address="${outside.baseToken.address.toLowerCase()}"] .token`)
      await result.first().click()
      await page.getByTestId('detail').waitFor({ state: 'visible' })
      expect(await page.textContent('#detail-title')).toContain(outside.baseToken.symbol)
      expect(await candlesDrawn(page)).toBeGreaterThan(0)
      await page.keyboard.press('Escape')
    } finally {
      await page.context().close()
    }
    // A link straight to that token, known neither from the room nor from a search: the pool its candles are of is
    // its pair link, once, before BaseScan's.
    const outside = market.find(
      (p) => p.chainId === 'base' && !room.liveActivity.some((t) => t.address === p.baseToken.address.toLowerCase()),
    )!
    const linked = await openPage(768, `/#/token/${outside.baseToken.address.toLowerCase()}`)
    try {
      await linked.getByTestId('detail').waitFor({ state: 'visible' })
      expect(await candlesDrawn(linked)).toBeGreaterThan(0)
      const pool = linked.locator('#detail-links a[data-pool]')
      await expect.poll(() => pool.count()).toBe(1)
      const address = outside.baseToken.address.toLowerCase()
      const candles = (await (await fetch(`${server.url}/api/token-ohlcv?address=${address}`)).json()) as { pairAddress: string }
      expect(await pool.getAttribute('href')).toBe(`https://dexscreener.com/base/${candles.pairAddress}`)
      expect(await pool.getAttribute('rel')).toBe('noopener noreferrer')
      expect(await linked.locator('#detail-links a').last().getAttribute('href')).toMatch(/basescan\.org\/token\//)
    } finally {
      await linked.context().close()
    }
  }, 60_000)

  it('lists new launches as text only, opens a launch’s page, links only its https URLs, and adds one the stream announces', async () => {
    const page = await openPage(768)
    try {
      await page.waitForSelector('[data-testid="launches"] button.launch')
      const symbols = await page.locator('[data-testid="launches"] button.launch strong').allTextContents()
      expect(symbols.slice(0, 2)).toEqual(['GOOD', 'EVL'])
      const evil = page.locator(`[data-testid="launches"] button[data-address="${launched[0]!.address}"]`)
      expect(await evil.locator('.name').textContent()).toBe('<img src=x onerror="window.pwned=1">Evil Launch')
      expect(await page.locator('[data-testid="launches"] img, [data-testid="launches"] script').count()).toBe(0)
      await evil.click()
      await page.getByTestId('detail').waitFor({ state: 'visible' })
      expect(await page.textContent('dd[data-field="description"]')).toBe('<script>window.pwned=2</script> free tokens')
      expect(await page.textContent('dd[data-field="website"]')).toBe(EVIL_WEBSITE)
      expect(await page.locator('dd[data-field="website"] a').count()).toBe(0) // http: shown, never linked
      // The candles are asked for once the page is open: the note comes with their (empty) answer.
      await expect.poll(() => page.getByTestId('candle-note').textContent()).toContain('No candles')
      await page.keyboard.press('Escape')
      await page.locator(`[data-testid="launches"] button[data-address="${launched[1]!.address}"]`).click()
      const site = page.locator('dd[data-field="website"] a')
      expect(await site.getAttribute('href')).toBe('https://good.example/')
      expect(await site.getAttribute('rel')).toBe('noopener noreferrer')
      expect(await page.textContent('dd[data-field="initialSupply"]')).toBe('1000000')
      await page.keyboard.press('Escape')
      expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
      // A deploy confirmed now, on any instance: announced and published, the stream pushes it and the panel shows it first.
      await page.waitForSelector('[data-testid="live"][data-mode="live"]')
      const [fresh] = await seedLaunches(services.store, services.keyPrefix, [
        { name: 'Fresh Launch', symbol: 'FRSH', createdAt: Date.now() },
      ])
      const { listLaunches } = await import('../../lib/launches/feed.js')
      const launch = (
        await listLaunches({ store: services.store, storePrefix: services.keyPrefix, chainId: 8453, now: services.now(), wethUsd: null })
      ).find((l) => l.txHash === fresh!.txHash)!
      await announceLaunch({
        store: services.store,
        key: launchSignalKey(services.keyPrefix, 8453),
        channel: chainEventsChannel(services.keyPrefix, 8453),
        launch,
        now: services.now(),
      })
      await page.waitForSelector(`[data-testid="launches"] li:first-child button[data-address="${fresh!.address}"]`, { timeout: 8000 })
      expect(await page.getByTestId('launches-status').textContent()).toContain('FRSH')
    } finally {
      await page.context().close()
    }
  }, 60_000)

  it('shows a pooled launch’s start price and market cap, where to trade it, the position’s owner and who can mint, and its price before any trade', async () => {
    const page = await openPage(390)
    try {
      const pooled = page.locator(`[data-testid="launches"] button[data-address="${launched[2]!.address}"]`)
      await pooled.click()
      await page.getByTestId('detail').waitFor({ state: 'visible' })
      expect(await page.textContent('dd[data-field="minter"]')).toBe(POOL_OWNER)
      expect(await page.textContent('dd[data-field="admin"]')).toBe(POOL_OWNER)
      expect(await page.textContent('dd[data-field="owner"]')).toBe(POOL_OWNER)
      // 10 ETH asked for a billion tokens, born on the tick: 10.016 ETH, as the chain's slot0 says.
      expect(await page.textContent('dd[data-field="start"]')).toBe(
        '0.0000000100160296593557367 ETH a token · market cap 10.0160296593557367 ETH (as the pool was born)',
      )
      const trade = page.locator('dd[data-field="trade"] a')
      expect((await trade.getAttribute('href'))?.toLowerCase()).toBe(
        `https://app.uniswap.org/swap?chain=base&inputcurrency=native&outputcurrency=${launched[2]!.address}`,
      )
      expect(await trade.getAttribute('rel')).toBe('noopener noreferrer')
      expect(await page.textContent('dd[data-field="market"]')).toContain('market cap 10.0160296593557367 ETH')
      expect(await page.textContent('dd[data-field="market"]')).toContain('no trade yet')
      // No candle: the pool's own price from its birth, not "no candle" with no price at all.
      await expect
        .poll(() => page.locator('#candle-legend').textContent())
        .toMatch(
          /^No trade yet: the pool prices it at 0\.0000000100160296593557367 ETH \(\$0\.0000\d+\), a market cap of 10\.0160296593557367 ETH\.$/,
        ) // USD through the room's WETH
    } finally {
      await page.context().close()
    }
  }, 60_000)

  it('ran through every step above without a script error, a CSP refusal or a failed load', () => {
    // The only failed loads allowed: the documented 404 of a token with no Base pool, and a launch's powers, which this
    // server (launches written into the records, no chain) does not serve: the page does without them.
    const unexpected = pageErrors.filter((e) => !/status of 404 .*\/api\/(token-ohlcv\?|launches\/0x)/.test(e))
    expect(unexpected, unexpected.join('\n')).toEqual([])
  })
})
