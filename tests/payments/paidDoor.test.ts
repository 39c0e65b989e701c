import type { Hex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { launchChromium } from '../support/browser.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { definePaidDoorCases, type PaidDoorTarget } from '../support/paidDoorCases.js'
import { startPaidDoorPage } from '../support/paidDoorPage.js'
import { fundedPayer, startPaidDoorParts, TEST_PRICE_UNITS } from '../support/paidDoorParts.js'

// The paid door's case list over `npm start`: two instances of the door over one Upstash front (redis-server), one
// anvil with the test USDC, one KMS server and the local facilitator; a third instance with the paid cap full.
// tests/platform/vercelBuild.test.ts runs the same list over the Vercel build output.

describe('POST /api/x402/deploy over npm start (two instances, the local facilitator, a real x402 client)', () => {
  let target: PaidDoorTarget
  let instances: NpmStart[] = []
  beforeAll(async () => {
    const parts = await startPaidDoorParts({ redisSocket: inject('redisSocket'), storePrefix: `paid${process.pid}:` })
    // No PUBLIC_URL: each instance names itself by the address it listens on, as npm start does when none is set.
    const env = { ...parts.env, PUBLIC_URL: '' }
    instances = await Promise.all([startNpmStart(env), startNpmStart(env), startNpmStart({ ...env, X402_DAILY_CAP: '0' })])
    const [a, b, full] = instances as [NpmStart, NpmStart, NpmStart]
    target = {
      parts,
      doors: [a.url, b.url],
      full: full.url,
      publicOrigin: (door) => door,
      lines: () => instances.flatMap((i) => i.lines),
    }
  }, 120_000)
  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()))
    await target?.parts.close()
  })

  definePaidDoorCases(() => target)

  it('is paid from a web page in Chromium: @x402/fetch bundled for the browser, on another origin than the door', async () => {
    const { parts, doors } = target
    const privateKey: Hex = await fundedPayer(parts)
    const payer = privateKeyToAddress(privateKey)
    const start = await parts.usdc.balanceOf(payer)
    const page = await startPaidDoorPage()
    const browser = await launchChromium()
    try {
      const tab = await browser.newPage()
      await tab.goto(page.url)
      expect(new URL(page.url).origin).not.toBe(new URL(doors[0]).origin)
      const answer = await tab.evaluate((parameters) => (globalThis as any).payAndDeploy(parameters), {
        url: `${doors[0]}/api/x402/deploy`,
        privateKey,
        body: { name: 'Page Token', symbol: 'PAGE' },
      })
      expect(answer).toMatchObject({
        status: 200,
        body: { ok: true, status: 'broadcast', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), payment: { payer } },
      })
      expect(await parts.usdc.balanceOf(payer)).toBe(start - TEST_PRICE_UNITS)
    } finally {
      await browser.close()
      await page.close()
    }
  })
})
