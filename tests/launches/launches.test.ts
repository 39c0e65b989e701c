import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { followDeploys } from '../../lib/deploy/pipeline/followDeploys.js'
import type { Launch, LaunchesPage } from '../../lib/deploy/records/launches/schema.js'
import type { LaunchesConfig } from '../../lib/launches/config.js'
import { createLaunchesEndpoint } from '../../lib/launches/endpoint.js'
import { LAUNCH_LOOK_MS } from '../../lib/launches/watch.js'
import { systemClock } from '../../lib/platform/clock.js'
import { createLogger } from '../../lib/platform/log.js'
import { createReadServices, type ReadServices } from '../../lib/read/services.js'
import { loadStreamConfig } from '../../lib/stream/config.js'
import { createStreamEndpoint } from '../../lib/stream/endpoint.js'
import { createDexScreenerClient } from '../../lib/upstream/dexscreener.js'
import { AGENT_KEYS, type DeployStack, startDeployStack } from '../support/deployStack.js'
import { type FakeDexScreener, startFakeDexScreener } from '../support/fakeDexScreener.js'
import { withOpenApiCheck } from '../support/openapiCheck.js'
import { manualTimers, readFrames } from '../support/sseFrames.js'
import { createSyntheticMarket } from '../support/syntheticMarket.js'

const ADMIN = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
const ON: LaunchesConfig = { publicLaunches: true, chainId: 8453 }

/**
 * Launches over real parts: anvil with the B20 emulator, the KMS server, Upstash over redis-server shared by the deploy
 * side and two read instances (as two Vercel function instances), the DexScreener-shaped upstream for the room.
 */
describe('the launches feed and the stream’s launch event, across instances', () => {
  let deploy: DeployStack
  let upstream: FakeDexScreener

  /** A read instance over the deploy side's store and clock, with its own launches endpoint and stream (its own timers). */
  function readInstance(launches: LaunchesConfig = ON) {
    const background: Promise<unknown>[] = []
    const services: ReadServices = createReadServices({
      env: { STORE_KEY_PREFIX: deploy.newInstance().services.config.storePrefix, GECKOTERMINAL_BASE_URL: '' },
      store: deploy.store,
      logger: createLogger({ write: () => {} }),
      now: deploy.clock.clock.now,
      upstream: createDexScreenerClient({ baseUrl: upstream.url, backoffBaseMs: 5, ...systemClock }),
      gecko: null,
      waitUntil: (work) => void background.push(work),
    })
    const timers = manualTimers()
    const stream = createStreamEndpoint({
      read: () => services,
      config: () => ({ ...loadStreamConfig({}), maxSeconds: 60 }),
      launches: () => launches,
      schedule: timers.schedule,
    })
    const feed = withOpenApiCheck('/api/launches', createLaunchesEndpoint({ read: () => services, config: () => launches }))
    const launchesPage = async (query = '') => {
      const response = await feed(new Request(`https://svc.test/api/launches${query}`))
      return {
        status: response.status,
        state: response.headers.get('x-data-state'),
        body: (await response.json()) as LaunchesPage & { code?: string },
      }
    }
    return {
      services,
      timers,
      /** Waits for the refreshes this instance started behind stale answers, as `waitUntil` would. */
      drain: async () => {
        while (background.length > 0) await Promise.allSettled(background.splice(0))
      },
      /** Fires the launch looks that are due (the manual scheduler's stand-in for 4 s passing). */
      lookForLaunches: () => timers.fire((ms) => ms === LAUNCH_LOOK_MS),
      open: async (ip = '198.51.100.9') =>
        readFrames(await stream.fetch(new Request('https://svc.test/api/stream', { headers: { 'x-real-ip': ip } }))),
      launches: launchesPage,
      /** A page of the feed as it is now: read past a stale answer until the refresh behind it has landed. */
      freshLaunches: async (query = '') => {
        let page = await launchesPage(query)
        for (let i = 0; i < 3 && page.state === 'stale'; i++) {
          while (background.length > 0) await Promise.allSettled(background.splice(0))
          page = await launchesPage(query)
        }
        return page
      },
    }
  }

  /** Deploys a token born with a supply, a cap and metadata; answers its hash and address. */
  async function deployToken(symbol: string, over: Record<string, unknown> = {}) {
    const answer = await deploy.post({
      action: 'agent_deploy',
      name: `${symbol} <b>Token</b>`,
      symbol,
      admin: ADMIN,
      initialSupply: '1000',
      supplyCap: '5000',
      description: 'Born in a test.',
      website: 'https://example.com',
      ...over,
    })
    expect(answer.body).toMatchObject({ ok: true, status: 'broadcast' })
    return { txHash: answer.body.txHash as string, address: answer.body.predictedAddress as string }
  }

  beforeAll(async () => {
    deploy = await startDeployStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), env: { DEPLOY_DAILY_CAP: '100' } })
    upstream = await startFakeDexScreener(createSyntheticMarket())
  })
  afterAll(async () => {
    await deploy?.close()
    await upstream?.close()
  })

  it('lists both agents’ deploys newest first, with their public facts only, and pages with an opaque cursor', async () => {
    const a = readInstance()
    const first = await deployToken('FEEDA')
    deploy.clock.now += 1000
    const second = await deployToken('FEEDB', { symbol: 'FEEDB' })
    deploy.clock.now += 1000
    const bobs = await deploy.post({ action: 'agent_deploy', name: 'Bob Token', symbol: 'BOBT' }, { key: AGENT_KEYS.bob })
    expect(bobs.body.ok).toBe(true)
    deploy.clock.now += 31_000 // past the feed's window
    const { status, body } = await a.freshLaunches('?limit=2')
    expect(status).toBe(200)
    expect(body.launches.map((l) => l.symbol)).toEqual(['BOBT', 'FEEDB'])
    expect(body.launches[1]).toEqual({
      address: second.address,
      name: 'FEEDB <b>Token</b>',
      symbol: 'FEEDB',
      variant: 'asset',
      decimals: 18,
      initialSupply: '1000',
      supplyCap: '5000',
      createdAt: expect.any(String),
      txHash: second.txHash,
      status: 'broadcast',
      pool: null,
      market: null,
      metadata: { description: 'Born in a test.', website: 'https://example.com' },
    } satisfies Launch)
    const text = JSON.stringify(body)
    for (const secret of [...Object.values(AGENT_KEYS), 'agent', 'digest', 'label']) expect(text).not.toContain(secret)
    const next = await a.launches(`?limit=2&cursor=${body.nextCursor}`)
    expect(next.body.launches.map((l) => l.txHash)).toContain(first.txHash)
    expect((await a.launches('?cursor=not-a-cursor')).body).toMatchObject({ code: 'INVALID_PARAMETER', field: 'cursor' })
  })

  it('answers a warm page from the instance’s copy, and another instance with one store read per window', async () => {
    const a = readInstance()
    deploy.clock.now += 31_000
    expect((await a.freshLaunches()).state).toBe('fresh')
    await deploy.drain() // the deploy side's own work after its answers (webhook outbox) is not the feed's
    const commands = deploy.upstash!.commands.length
    for (const query of ['', '?limit=1', '?limit=100', '?limit=3']) expect((await a.launches(query)).status).toBe(200)
    expect(deploy.upstash!.commands.length).toBe(commands)
    const b = readInstance()
    expect((await b.launches('?limit=7')).status).toBe(200)
    expect((await b.launches('?limit=8')).status).toBe(200)
    expect(deploy.upstash!.commands.slice(commands)).toEqual(['GET'])
  })

  it('sends a launch event on every instance’s open streams within one look (4 s) of a receipt seeing the deploy mined', async () => {
    const a = readInstance()
    const b = readInstance()
    const streams = [await a.open(), await a.open('198.51.100.10'), await b.open()]
    for (const stream of streams) await expect.poll(() => stream.events().length).toBeGreaterThanOrEqual(1) // the room
    const token = await deployToken('LIVE')
    expect((await deploy.post({ action: 'receipt', tx_hash: token.txHash })).body).toMatchObject({ status: 'confirmed' })
    // Each instance looks once per LAUNCH_LOOK_MS while it has streams open: the next look carries it.
    expect(LAUNCH_LOOK_MS).toBeLessThan(5000)
    expect(a.timers.pending()).toContain(LAUNCH_LOOK_MS)
    const before = deploy.upstash!.commands.length
    a.lookForLaunches()
    b.lookForLaunches()
    for (const stream of streams) await expect.poll(() => stream.events().filter((e) => e.event === 'launch').length).toBe(1)
    // One store read per instance for all its streams: nothing per listener.
    expect(deploy.upstash!.commands.slice(before).filter((c) => c === 'EVALSHA' || c === 'EVAL')).toHaveLength(2)
    const event = streams[2]!.events().find((e) => e.event === 'launch')!
    expect(event.id).toBeUndefined() // the stream's id stays the room's
    expect(JSON.parse(event.data!)).toMatchObject({
      txHash: token.txHash,
      address: token.address,
      symbol: 'LIVE',
      status: 'confirmed',
      market: null,
    })
    // Looked at again, the same launch is not sent twice.
    a.lookForLaunches()
    await expect.poll(() => a.timers.pending().includes(LAUNCH_LOOK_MS)).toBe(true)
    expect(streams[0]!.events().filter((e) => e.event === 'launch')).toHaveLength(1)
    for (const stream of streams) await stream.cancel()
    // With no stream open, the instance stops looking: a quiet instance spends nothing.
    await expect.poll(() => a.timers.pending().includes(LAUNCH_LOOK_MS)).toBe(false)
    await expect.poll(() => b.timers.pending().includes(LAUNCH_LOOK_MS)).toBe(false)
  })

  it('sends it too when the tick’s follow-up is what sees the deploy mined, once though a receipt sees it again', async () => {
    const a = readInstance()
    const stream = await a.open()
    await expect.poll(() => stream.events().length).toBeGreaterThanOrEqual(1)
    const token = await deployToken('TICKED')
    // The follow-up confirms every deploy still unmined (this one, and any an earlier case left without a receipt).
    expect((await followDeploys(deploy.newInstance().services)).confirmed).toBeGreaterThanOrEqual(1)
    expect((await deploy.post({ action: 'receipt', tx_hash: token.txHash })).body).toMatchObject({ status: 'confirmed' })
    const launchesOf = () => stream.events().filter((e) => e.event === 'launch' && JSON.parse(e.data!).txHash === token.txHash)
    a.lookForLaunches()
    await expect.poll(() => launchesOf().length).toBe(1)
    expect(JSON.parse(launchesOf()[0]!.data!)).toMatchObject({ txHash: token.txHash, status: 'confirmed' })
    a.lookForLaunches()
    await expect.poll(() => a.timers.pending().includes(LAUNCH_LOOK_MS)).toBe(true)
    expect(launchesOf()).toHaveLength(1)
    // The feed says confirmed once its window has passed.
    deploy.clock.now += 31_000
    const listed = (await a.freshLaunches()).body.launches.find((l) => l.txHash === token.txHash)
    expect(listed).toMatchObject({ status: 'confirmed' })
    await stream.cancel()
  })

  it('with PUBLIC_LAUNCHES off: 404 LAUNCHES_OFF, and streams that never look for launches', async () => {
    const off = readInstance({ publicLaunches: false, chainId: 8453 })
    const answer = await off.launches()
    expect(answer.status).toBe(404)
    expect(answer.body.code).toBe('LAUNCHES_OFF')
    const stream = await off.open()
    await expect.poll(() => stream.events().length).toBeGreaterThanOrEqual(1)
    expect(off.timers.pending()).not.toContain(LAUNCH_LOOK_MS)
    expect(stream.events().filter((e) => e.event === 'launch')).toEqual([])
    await stream.cancel()
  })
})
