import { describe, expect, it } from 'vitest'
import { startFakeDexScreener } from '../support/fakeDexScreener.js'
import { startNpmStart } from '../support/npmStart.js'
import { createSyntheticMarket } from '../support/syntheticMarket.js'

const CRON_SECRET = 'npm-start-cron-secret-0123456789'

describe('npm start is always on: it runs the tick in-process', () => {
  it('refreshes, snapshots and reports ticks with no request at all, and /api/tick answers the scheduler only', async () => {
    const upstream = await startFakeDexScreener(createSyntheticMarket())
    const server = await startNpmStart({ DEXSCREENER_BASE_URL: upstream.url, TICK_INTERVAL_SECONDS: '1', CRON_SECRET })
    try {
      expect(server.firstLine).toContain('tick every 1 s')
      // Nobody reads: the ticks alone fetch the market and leave their mark in health.
      let health: { dataAgeSeconds: number | null; lastTickAgeSeconds: number | null } = { dataAgeSeconds: null, lastTickAgeSeconds: null }
      await expect
        .poll(
          async () => {
            health = (await (await fetch(`${server.url}/api/health`)).json()) as typeof health
            return health.dataAgeSeconds !== null && health.lastTickAgeSeconds !== null
          },
          { timeout: 10_000, interval: 100 },
        )
        .toBe(true)
      expect(health.lastTickAgeSeconds).not.toBeNull()
      expect(health.dataAgeSeconds).not.toBeNull()
      expect(upstream.requests.some((p) => p.startsWith('/latest/dex/search'))).toBe(true)
      // The first read is answered from the tick's refresh.
      const room = await fetch(`${server.url}/api/control-room`)
      expect(room.headers.get('x-data-state')).toBe('fresh')
      const history = (await (await fetch(`${server.url}/api/market-history`)).json()) as { volume: { points: unknown[] } }
      expect(history.volume.points.length).toBeGreaterThanOrEqual(1)
      // The endpoint itself: the scheduler's bearer gets a summary; anyone else 401.
      expect((await fetch(`${server.url}/api/tick`)).status).toBe(401)
      const scheduled = await fetch(`${server.url}/api/tick`, { headers: { authorization: `Bearer ${CRON_SECRET}` } })
      expect(scheduled.status).toBe(200)
      expect(await scheduled.json()).toMatchObject({ ok: expect.any(Boolean), ran: expect.any(Boolean), caller: 'vercel-cron' })
      expect(server.lines.join('\n')).not.toContain(CRON_SECRET)
    } finally {
      await server.stop()
      await upstream.close()
    }
  }, 30_000)
})
