import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { createDeployServices } from '../../lib/deploy/services.js'
import { silentLogger } from '../../lib/platform/log.js'
import { createReadServices, type ReadServices } from '../../lib/read/services.js'
import { createUpstashStore } from '../../lib/store/upstash.js'
import { runTick } from '../../lib/tick/runTick.js'
import { type FakeDexScreener, startFakeDexScreener } from '../support/fakeDexScreener.js'
import { type FakeGeckoTerminal, startFakeGeckoTerminal } from '../support/fakeGeckoTerminal.js'
import { createLongTailMarket } from '../support/syntheticMarket.js'
import { startUpstashRestServer, type UpstashRestServer } from '../support/upstashRestServer.js'

/**
 * What the service itself costs on Upstash, counted at the Upstash-compatible front (one per command, a script once):
 * a steady tick stays within Upstash's free tier at one tick a minute (500,000 commands a month: 11 a tick).
 */
describe('the store bill of the tick (Upstash over redis-server)', () => {
  let upstash: UpstashRestServer
  let dexscreener: FakeDexScreener
  let gecko: FakeGeckoTerminal
  let read: ReadServices
  const clock = { now: Math.floor(Date.now() / 300_000) * 300_000 + 7_000 }
  beforeAll(async () => {
    const market = createLongTailMarket({ tokens: 400 })
    upstash = await startUpstashRestServer({ redisSocket: inject('redisSocket') })
    dexscreener = await startFakeDexScreener(market)
    gecko = await startFakeGeckoTerminal(market, { now: () => clock.now, perMinute: 1_000 })
    read = createReadServices({
      env: { DEXSCREENER_BASE_URL: dexscreener.url, GECKOTERMINAL_BASE_URL: gecko.url, STORE_KEY_PREFIX: `cost${process.pid}:` },
      store: createUpstashStore({ url: upstash.url, token: upstash.token }),
      logger: silentLogger,
      now: () => clock.now,
    })
  })
  afterAll(async () => {
    await Promise.all([upstash.close(), dexscreener.close(), gecko.close()])
  })

  it('costs at most 10 commands a steady tick on average, one script for the refresh’s whole upstream share', async () => {
    const deploy = deployServicesFrom(() =>
      createDeployServices({ env: { BASE_RPC_URL: 'http://127.0.0.1:9', STORE_KEY_PREFIX: 'cost-nodeploys:' }, store: null }),
    )
    const tick = () => runTick({ read, deploy: deploy.services, caller: 'test', intervalSeconds: 60 })
    // Cold, then the first ten minutes: the universe fills and the price lines of the top 100 are backfilled.
    for (let i = 0; i < 11; i++) {
      clock.now += 60_000
      await tick()
    }
    const spent: string[][] = []
    for (let i = 0; i < 20; i++) {
      clock.now += 60_000
      const before = upstash.commands.length
      const summary = await tick()
      expect(summary.parts?.controlRoom).toMatchObject({ ok: true, refreshed: true })
      spent.push(upstash.commands.slice(before))
    }
    const mean = spent.reduce((sum, s) => sum + s.length, 0) / spent.length
    expect(mean, `mean ${mean} commands a tick`).toBeLessThanOrEqual(10)
    // A refresh makes about 15-30 DexScreener requests; its budget is one script, not one per request.
    for (const commands of spent) expect(commands.filter((c) => c === 'EVAL' || c === 'EVALSHA').length).toBeLessThanOrEqual(4)
  }, 60_000)
})
