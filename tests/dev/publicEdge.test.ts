import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FakeDexScreener, startFakeDexScreener } from '../support/fakeDexScreener.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { createSyntheticMarket } from '../support/syntheticMarket.js'

/** npm start facing the open internet: what a client's forwarded headers and odd paths can and cannot do. */
describe('npm start at the edge', () => {
  let upstream: FakeDexScreener
  let direct: NpmStart
  let proxied: NpmStart
  beforeAll(async () => {
    upstream = await startFakeDexScreener(createSyntheticMarket())
    ;[direct, proxied] = await Promise.all([
      startNpmStart({ DEXSCREENER_BASE_URL: upstream.url, PUBLIC_URL: 'https://svc.example' }),
      startNpmStart({
        DEXSCREENER_BASE_URL: upstream.url,
        PUBLIC_URL: 'https://svc.example',
        TRUST_PROXY: '1',
        SEARCH_RATE_LIMIT_PER_MINUTE: '2',
      }),
    ])
  })
  afterAll(async () => {
    await Promise.all([direct.stop(), proxied.stop()])
    await upstream.close()
  })

  const spoofed = { 'x-forwarded-proto': 'http', 'x-forwarded-host': 'evil.example' }

  it('believes no client’s X-Forwarded-* without a trusted proxy: no redirect anywhere, least of all to its host', async () => {
    const response = await fetch(`${direct.url}/api/b20-skill`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...spoofed, 'x-service-key': 'k'.repeat(32), 'content-type': 'application/json' },
      body: '{}',
    })
    expect(response.status).not.toBe(308)
    expect(response.headers.get('location')).toBeNull()
    await response.arrayBuffer()
  })

  it('behind a trusted proxy, redirects plain HTTP to PUBLIC_URL only, uncacheable, and throttles by the forwarded client', async () => {
    const redirect = await fetch(`${proxied.url}/api/control-room?x=1`, { redirect: 'manual', headers: spoofed })
    expect(redirect.status).toBe(308)
    expect(redirect.headers.get('location')).toBe('https://svc.example/api/control-room?x=1')
    expect(redirect.headers.get('cache-control')).toBe('no-store')
    const from = (client: string) =>
      fetch(`${proxied.url}/api/token-search?q=weth`, { headers: { 'x-forwarded-for': `198.51.100.1, ${client}` } }).then(async (r) => {
        await r.arrayBuffer()
        return r.status
      })
    expect([await from('203.0.113.5'), await from('203.0.113.5'), await from('203.0.113.5')]).toEqual([200, 200, 429])
    // The leftmost entry is the client's own claim; only the proxy's entry counts.
    expect(await from('203.0.113.6')).toBe(200)
  })

  it('answers a malformed percent escape in a path with 400 JSON, not 500', async () => {
    for (const path of ['/%E0%A4%A', '/%', '/app.js%ZZ']) {
      const response = await fetch(`${direct.url}${path}`)
      expect(response.status, path).toBe(400)
      expect(await response.json()).toMatchObject({ code: 'MALFORMED_PATH' })
    }
  })

  it('refuses to start on a PUBLIC_URL that is not an origin, or a TRUST_PROXY that is not a count', async () => {
    await expect(startNpmStart({ DEXSCREENER_BASE_URL: upstream.url, PUBLIC_URL: 'https://svc.example/api' })).rejects.toThrow(
      /PUBLIC_URL: must be an origin/,
    )
    await expect(startNpmStart({ DEXSCREENER_BASE_URL: upstream.url, TRUST_PROXY: 'yes' })).rejects.toThrow(/TRUST_PROXY/)
  })
})
