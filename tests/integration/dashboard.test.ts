import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { createControlRoomHandler } from '../../api/control-room.js'
import { createHealthHandler } from '../../api/health.js'
import { createTokenSearchHandler } from '../../api/token-search.js'
import { loadHealthConfig } from '../../lib/config.js'
import { defaultDeployServicesSource } from '../../lib/deploy/agentActions.js'
import { startServer, vercelRouting, type RunningServer } from '../../dev/server.js'
import { silentLogger } from '../../lib/log.js'
import { createReadServices } from '../../lib/readServices.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import { createDexScreenerClient } from '../../lib/upstream/dexscreener.js'
import { launchChromium } from '../support/browser.js'
import { startFakeDexScreener, type FakeDexScreener } from '../support/fakeDexScreener.js'
import { createSyntheticMarket, makePair, HUBS } from '../support/syntheticMarket.js'

const EVIL = { address: '0x00000000000000000000000000000000000e7e11', name: '<img src=x onerror="window.pwned=1">Evil', symbol: '<b>EVIL</b>' }

/** The dashboard in a real browser (headless Debian Chromium) against the local server and a local upstream. */
describe('the dashboard page', () => {
  let upstream: FakeDexScreener
  let server: RunningServer
  let browser: Browser
  let page: Page
  const clock = { offset: 0 }
  const pageErrors: string[] = []

  beforeAll(async () => {
    upstream = await startFakeDexScreener([
      ...createSyntheticMarket(),
      makePair({ base: EVIL, quote: HUBS.WETH, pairAddress: '0x00000000000000000000000000000000000e7e12', volume24h: 15_000_000, liquidityUsd: 1_000 }),
    ])
    const services = createReadServices({
      env: {},
      store: createMemoryStore(),
      logger: silentLogger,
      now: () => Date.now() + clock.offset,
      upstream: createDexScreenerClient({ baseUrl: upstream.url, backoffBaseMs: 5 }),
      gecko: null,
    })
    server = await startServer({
      port: 0,
      handlers: {
        'control-room': createControlRoomHandler(() => services),
        'token-search': createTokenSearchHandler(() => services),
        health: createHealthHandler({ read: () => services, deploy: defaultDeployServicesSource, config: () => loadHealthConfig({}) }),
      },
      ...(await vercelRouting()),
    })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
    page.on('pageerror', (error) => pageErrors.push(error.message))
    page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()))
    await page.goto(server.url)
    await page.waitForSelector('[data-testid="tokens"] tbody tr:nth-child(100)')
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await upstream?.close()
  })

  it('shows 100 rows, the commentary, the stats, 15 trending and how fresh the data is', async () => {
    expect(await page.locator('[data-testid="tokens"] tbody tr').count()).toBe(100)
    expect(await page.locator('[data-testid="trending"] li').count()).toBe(15)
    expect(await page.textContent('[data-testid="commentary"]')).toContain('WETH leads 100 tracked Base tokens')
    expect(await page.textContent('[data-testid="stat-total"]')).toBe('100')
    expect(await page.textContent('[data-testid="updated"]')).toMatch(/^updated \d+ s ago$/)
    expect(await page.isHidden('[data-testid="error"]')).toBe(true)
    await page.waitForSelector('[data-testid="health"]:has-text("service up")')
    expect(await page.textContent('[data-testid="health"]')).toMatch(/^service up \(v\d+\.\d+\.\d+, data \d+ s old\)$/)
    if (process.env.UPDATE_SCREENSHOT) await page.screenshot({ path: 'docs/dashboard.png' })
  })


  it('colours price changes and flags liquidity under $50K', async () => {
    expect(await page.locator('[data-testid="tokens"] td.up').count()).toBeGreaterThan(0)
    expect(await page.locator('[data-testid="tokens"] td.down').count()).toBeGreaterThan(0)
    const api = (await (await fetch(`${server.url}/api/control-room`)).json()) as { liveActivity: { liquidity: number }[] }
    const thin = api.liveActivity.filter((t) => t.liquidity < 50_000).length
    expect(thin).toBeGreaterThan(0)
    expect(await page.locator('[data-testid="tokens"] td[data-low-liquidity="true"]').count()).toBe(thin)
  })

  it('renders untrusted names and symbols as text, never as HTML', async () => {
    const row = page.locator('tr[data-address="0x00000000000000000000000000000000000e7e11"]')
    expect(await row.locator('strong').first().textContent()).toBe('<b>EVIL</b>')
    expect(await page.locator('[data-testid="tokens"] img').count()).toBe(0)
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
  })

  it('sorts by a column when its header is clicked, and back', async () => {
    await page.click('th[data-key="liquidity"]')
    expect(await page.getAttribute('th[data-key="liquidity"]', 'aria-sort')).toBe('descending')
    const first = await page.locator('[data-testid="tokens"] tbody tr').first().getAttribute('data-address')
    const api = (await (await fetch(`${server.url}/api/control-room`)).json()) as { liveActivity: { address: string; liquidity: number }[] }
    const richest = [...api.liveActivity].sort((a, b) => b.liquidity - a.liquidity)[0]!
    expect(first).toBe(richest.address)
    await page.click('th[data-key="liquidity"]')
    expect(await page.getAttribute('th[data-key="liquidity"]', 'aria-sort')).toBe('ascending')
    await page.click('th[data-key="rank"]')
    expect(await page.locator('[data-testid="tokens"] tbody tr').first().locator('td').first().textContent()).toBe('1')
  })

  it('finds a known token with the search box', async () => {
    await page.fill('#search-input', 'AERO')
    await page.press('#search-input', 'Enter')
    await page.waitForSelector('[data-testid="search-results"]:not([hidden]) tbody tr')
    expect(await page.textContent('[data-testid="search-status"]')).toMatch(/Base pairs? match “AERO”/)
    expect(await page.locator('[data-testid="search-results"] tbody tr').first().locator('strong').textContent()).toBe('AERO')
  })

  it('shows a clear message when the API errors, and keeps the last data', async () => {
    upstream.failAlways('/', { kind: 'status', status: 503 })
    clock.offset += 11 * 60_000 // past the 600 s a last good body is still served
    try {
      await page.click('#refresh')
      await page.waitForSelector('[data-testid="error"]:not([hidden])')
      const message = await page.textContent('[data-testid="error"]')
      expect(message).toContain('Market data unavailable')
      expect(message).toContain('UPSTREAM_UNAVAILABLE')
      expect(await page.locator('[data-testid="tokens"] tbody tr').count()).toBe(100)
      if (process.env.UPDATE_SCREENSHOT) await page.screenshot({ path: 'docs/dashboard-error.png', clip: { x: 0, y: 0, width: 1400, height: 420 } })
    } finally {
      upstream.clearFaults()
    }
    await page.click('#refresh')
    await page.waitForSelector('[data-testid="error"]', { state: 'hidden' })
  })

  it('ran through every step above without a script error or a failed load (CSP of vercel.json applied)', () => {
    expect(pageErrors.filter((e) => !e.includes('503') && !e.includes('500'))).toEqual([])
  })
})
