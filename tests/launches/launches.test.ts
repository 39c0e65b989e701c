import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { followDeploys } from '../../lib/deploy/pipeline/followDeploys.js'
import { type ChannelTrade, encodeChainEvent, launchMessage, tradeMessage } from '../../lib/launches/chainEvents.js'
import type { LaunchesConfig } from '../../lib/launches/config.js'
import { createLaunchesEndpoint } from '../../lib/launches/endpoint.js'
import { chainEventsChannel, launchSignalKey } from '../../lib/launches/keys.js'
import type { Launch, LaunchesPage } from '../../lib/launches/schema.js'
import { ECHO_AFTER_QUIET_MS, ECHO_WAIT_MS, launchWatch, RECONNECT_BACKOFF_MS, SUBSCRIBE_WAIT_MS } from '../../lib/launches/watch.js'
import { systemClock } from '../../lib/platform/clock.js'
import { createLogger } from '../../lib/platform/log.js'
import { createReadServices, type ReadServices } from '../../lib/read/services.js'
import { createUpstashStore } from '../../lib/store/upstash.js'
import { loadStreamConfig } from '../../lib/stream/config.js'
import { createStreamEndpoint } from '../../lib/stream/endpoint.js'
import { createDexScreenerClient } from '../../lib/upstream/dexscreener.js'
import { AGENT_KEYS, type DeployStack, startDeployStack } from '../support/deployStack.js'
import { type FakeDexScreener, startFakeDexScreener } from '../support/fakeDexScreener.js'
import { withOpenApiCheck } from '../support/openapiCheck.js'
import { manualTimers, readFrames } from '../support/sseFrames.js'
import { createSyntheticMarket } from '../support/syntheticMarket.js'
import { startUpstashRestServer, type UpstashRestServer } from '../support/upstashRestServer.js'

const ADMIN = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
const ON: LaunchesConfig = { publicLaunches: true, chainId: 8453 }

/**
 * Launches over real parts: anvil with the B20 emulator, the KMS server, one redis-server shared by the deploy side
 * (through its own Upstash front) and the read instances (as Vercel function instances, each with its own Upstash
 * client, all through a second front, so what they spend is counted apart), the DexScreener-shaped upstream for the room.
 */
describe('the launches feed and the stream’s launch event, across instances', () => {
  let deploy: DeployStack
  let upstream: FakeDexScreener
  /** The read instances' Upstash front: every command they send, and their subscriptions. */
  let readFront: UpstashRestServer

  /** A read instance over the deploy side's clock and Redis, with its own store client, launches endpoint and stream (its own timers). */
  function readInstance(launches: LaunchesConfig = ON) {
    const background: Promise<unknown>[] = []
    const services: ReadServices = createReadServices({
      env: { STORE_KEY_PREFIX: deploy.newInstance().services.config.storePrefix, GECKOTERMINAL_BASE_URL: '' },
      store: createUpstashStore({ url: readFront.url, token: readFront.token }),
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
  /** Waits for the chain's receipt of a deploy the service broadcast. */
  const minedOnChain = (hash: string) =>
    deploy.chain.publicClient.waitForTransactionReceipt({ hash: hash as `0x${string}`, pollingInterval: 20 })

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
    readFront = await startUpstashRestServer({ redisSocket: inject('redisSocket') })
  })
  afterAll(async () => {
    await deploy?.close()
    await upstream?.close()
    await readFront?.close()
  })

  /** The read instances' reads of the launch signal so far: each is a subscription's catch-up read. */
  const signalReads = () => {
    const key = launchSignalKey(deploy.newInstance().services.config.storePrefix, 8453)
    return readFront.calls.filter(([name, , count, first]) => name?.startsWith('EVAL') && count === '1' && first === key).length
  }
  /** The launch events a stream has had, by symbol. */
  const launchSymbols = (stream: { events: () => { event?: string; data?: string }[] }) =>
    stream
      .events()
      .filter((e) => e.event === 'launch')
      .map((e) => (JSON.parse(e.data!) as Launch).symbol)

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
      roles: { admin: ADMIN, minter: ADMIN }, // who holds which role, as the creation set them
      status: 'broadcast',
      pool: null,
      powers: null, // not mined yet as the records say, and this instance reads no chain
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
    const commands = readFront.commands.length
    for (const query of ['', '?limit=1', '?limit=100', '?limit=3']) expect((await a.launches(query)).status).toBe(200)
    expect(readFront.commands.length).toBe(commands)
    const b = readInstance()
    expect((await b.launches('?limit=7')).status).toBe(200)
    expect((await b.launches('?limit=8')).status).toBe(200)
    expect(readFront.commands.slice(commands)).toEqual(['GET'])
  })

  it('pushes a launch seen confirmed on the deploy side to every instance’s open streams within 5 s, reading nothing to do it', async () => {
    const a = readInstance()
    const b = readInstance()
    const [subscriptions, reads] = [readFront.subscriptions, signalReads()]
    const streams = [await a.open(), await a.open('198.51.100.10'), await b.open()]
    for (const stream of streams) await expect.poll(() => stream.events().length).toBeGreaterThanOrEqual(1) // the room
    // One subscription per instance (not per stream), each followed by its one catch-up read of the signal.
    await expect.poll(() => readFront.subscriptions).toBe(subscriptions + 2)
    await expect.poll(() => signalReads()).toBe(reads + 2)
    await Promise.all([a.drain(), b.drain()]) // a stale room's refresh behind a first read is the room's, not the launches'
    const before = readFront.calls.length
    // Another kind on the same channel (a trade, published by a part that follows pools): skipped, and it breaks nothing.
    const channel = chainEventsChannel(deploy.newInstance().services.config.storePrefix, 8453)
    await deploy.store.publish(channel, encodeChainEvent('trade', deploy.clock.now, { token: `0x${'1'.repeat(40)}` }))
    const published = deploy.upstash!.commands.filter((c) => c === 'PUBLISH').length
    const token = await deployToken('LIVE')
    await minedOnChain(token.txHash)
    expect((await deploy.post({ action: 'receipt', tx_hash: token.txHash })).body).toMatchObject({ status: 'confirmed' })
    // No timer of either instance fires: the message itself carries the launch to every stream.
    for (const stream of streams) await expect.poll(() => launchSymbols(stream), { timeout: 5000 }).toEqual(['LIVE'])
    expect(readFront.calls.slice(before)).toEqual([]) // the listening instances sent no command at all
    expect(deploy.upstash!.commands.filter((c) => c === 'PUBLISH')).toHaveLength(published + 1) // the publisher's one
    for (const stream of streams) expect(stream.events().filter((e) => e.event !== 'control-room')).toHaveLength(1) // the launch alone
    const event = streams[2]!.events().find((e) => e.event === 'launch')!
    expect(event.id).toBeUndefined() // the stream's id stays the room's
    expect(JSON.parse(event.data!)).toMatchObject({
      txHash: token.txHash,
      address: token.address,
      symbol: 'LIVE',
      roles: { admin: ADMIN, minter: ADMIN },
      status: 'confirmed',
      market: null,
    })
    // Seen mined again (another receipt): nothing new in the signal, nothing published, nothing sent twice.
    expect((await deploy.post({ action: 'receipt', tx_hash: token.txHash })).body).toMatchObject({ status: 'confirmed' })
    expect(deploy.upstash!.commands.filter((c) => c === 'PUBLISH')).toHaveLength(published + 1)
    await streams[0]!.cancel()
    await expect.poll(() => a.timers.pending()).toContain(ECHO_AFTER_QUIET_MS) // a's other stream is open: a still listens
    expect(readFront.subscriptions).toBe(subscriptions + 2)
    await streams[1]!.cancel()
    await expect.poll(() => readFront.subscriptions).toBe(subscriptions + 1) // a's last closed: a no longer does
    expect(a.timers.pending()).not.toContain(ECHO_AFTER_QUIET_MS)
    await streams[2]!.cancel()
    await expect.poll(() => readFront.subscriptions).toBe(subscriptions)
    expect(b.timers.pending()).not.toContain(ECHO_AFTER_QUIET_MS)
    expect(streams[0]!.events().filter((e) => e.event === 'launch')).toHaveLength(1)
  })

  it('hands a trade published on the channel to every instance’s streams once, and one published again no second time', async () => {
    const a = readInstance()
    const b = readInstance()
    const subscriptions = readFront.subscriptions
    // Each watch reads the launch signal once when its subscription opens: counted before the trades, so a busy
    // machine's late catch-up read is not taken for a command the trades cost.
    const catchUps = () => readFront.calls.filter((call) => call.some((part) => String(part).endsWith(':launches:confirmed'))).length
    const catchUpsBefore = catchUps()
    const streams = [await a.open(), await b.open()]
    for (const stream of streams) await expect.poll(() => stream.events().length).toBeGreaterThanOrEqual(1)
    await expect.poll(() => readFront.subscriptions).toBe(subscriptions + 2)
    await expect.poll(catchUps).toBeGreaterThanOrEqual(catchUpsBefore + 2)
    await Promise.all([a.drain(), b.drain()])
    const before = readFront.calls.length
    const channel = chainEventsChannel(deploy.newInstance().services.config.storePrefix, 8453)
    const trade = {
      kind: 'trade',
      token: `0x${'a'.repeat(40)}`,
      poolId: `0x${'b'.repeat(64)}`,
      side: 'buy',
      amountEth: '0.05',
      amountToken: '1234.5',
      priceEth: '0.00004',
      txHash: `0x${'c'.repeat(64)}`,
      blockNumber: '42',
      logIndex: 3,
      at: '2026-11-28T12:00:00.000Z',
    } satisfies ChannelTrade
    // The trade watch's holder publishes it; a new holder, going on from the cursor its predecessor saved, again.
    await deploy.store.publish(channel, tradeMessage(trade, deploy.clock.now))
    await deploy.store.publish(
      channel,
      tradeMessage({ ...trade, txHash: trade.txHash.toUpperCase().replace('0X', '0x') }, deploy.clock.now),
    )
    await deploy.store.publish(channel, tradeMessage({ ...trade, logIndex: 4, side: 'sell' }, deploy.clock.now))
    // A trade whose data is not one (no pool id): skipped.
    await deploy.store.publish(channel, encodeChainEvent('trade', deploy.clock.now, { ...trade, poolId: undefined }))
    const trades = (stream: (typeof streams)[number]) => stream.events().filter((e) => e.event === 'trade')
    for (const stream of streams) await expect.poll(() => trades(stream).map((e) => JSON.parse(e.data!).side)).toEqual(['buy', 'sell'])
    expect(JSON.parse(trades(streams[1]!)[0]!.data!)).toEqual(trade)
    expect(trades(streams[0]!)[0]!.id).toBeUndefined() // the stream's id stays the room's
    expect(readFront.calls.slice(before)).toEqual([]) // the listening instances sent no command at all
    for (const stream of streams) await stream.cancel()
    await expect.poll(() => readFront.subscriptions).toBe(subscriptions)
  })

  it('tells the trade watch when it hears a launch with a pool, and not for one without', async () => {
    deploy.clock.now += 60_000 // launches of earlier cases are no news here
    const a = readInstance()
    const subscriptions = readFront.subscriptions
    let heard = 0
    const frames: string[] = []
    const running = launchWatch({ services: a.services, chainId: 8453, onPooledLaunch: () => heard++ })(
      (frame) => frames.push(new TextDecoder().decode(frame)),
      a.timers.schedule,
    )
    await expect.poll(() => readFront.subscriptions).toBe(subscriptions + 1)
    const launch = (symbol: string, pool: Launch['pool']): Launch => ({
      address: `0x${'d'.repeat(40)}`,
      name: `${symbol} Token`,
      symbol,
      variant: 'asset',
      decimals: 18,
      initialSupply: '1000',
      supplyCap: null,
      createdAt: new Date(deploy.clock.now).toISOString(),
      txHash: `0x${symbol === 'POOLED' ? 'e'.repeat(64) : 'f'.repeat(64)}`,
      roles: { admin: null, minter: null },
      status: 'confirmed',
      pool,
      powers: null,
      market: null,
      metadata: null,
    })
    const channel = chainEventsChannel(deploy.newInstance().services.config.storePrefix, 8453)
    await deploy.store.publish(channel, launchMessage(launch('PLAIN', null), deploy.clock.now))
    const pool = { poolId: `0x${'9'.repeat(64)}`, fee: 10000, owner: ADMIN, startPriceEth: '0.00000001', startMarketCapEth: '10' }
    await deploy.store.publish(channel, launchMessage(launch('POOLED', pool), deploy.clock.now))
    const symbols = () => frames.filter((frame) => frame.startsWith('event: launch')).map((frame) => /"symbol":"(\w+)"/.exec(frame)?.[1])
    await expect.poll(symbols).toEqual(['PLAIN', 'POOLED'])
    expect(heard).toBe(1)
    running.stop()
    await expect.poll(() => readFront.subscriptions).toBe(subscriptions)
  })

  it('costs an open stream with no launches nothing past its subscription, but an echo after a quiet stretch', async () => {
    deploy.clock.now += 60_000 // launches of earlier cases are no news here
    const a = readInstance()
    const [subscriptions, reads] = [readFront.subscriptions, signalReads()]
    const stream = await a.open()
    await expect.poll(() => stream.events().length).toBeGreaterThanOrEqual(1)
    await expect.poll(() => signalReads()).toBe(reads + 1)
    await a.drain()
    const before = readFront.calls.length
    // The launches' only timer is the quiet stretch's: no look on a cadence.
    expect(a.timers.pending()).toContain(ECHO_AFTER_QUIET_MS)
    for (let beat = 0; beat < 20; beat++) a.timers.fire((ms) => ms === 15_000) // five minutes of heartbeats
    await expect.poll(() => stream.frames.filter((f) => f.comment === 'heartbeat').length).toBe(20)
    expect(readFront.calls.slice(before)).toEqual([])
    // After ECHO_AFTER_QUIET_MS with nothing heard, one PUBLISH of its own checks the stream; it comes back.
    a.timers.fire((ms) => ms === ECHO_AFTER_QUIET_MS)
    await expect.poll(() => a.timers.pending()).toContain(ECHO_AFTER_QUIET_MS)
    expect(readFront.commands.slice(before)).toEqual(['PUBLISH'])
    expect(readFront.subscriptions).toBe(subscriptions + 1)
    expect(stream.events().filter((e) => e.event === 'launch')).toEqual([]) // an echo is no event
    await stream.cancel()
    await expect.poll(() => readFront.subscriptions).toBe(subscriptions)
  })

  it('catches up with one read when its subscription comes back, after a silent drop and subscribes refused with backoff', async () => {
    deploy.clock.now += 60_000 // launches of earlier cases are no news here
    const a = readInstance()
    const reads = signalReads()
    const stream = await a.open()
    await expect.poll(() => stream.events().length).toBeGreaterThanOrEqual(1)
    await expect.poll(() => signalReads()).toBe(reads + 1)
    // The front lets the stream go without a word, and refuses every request for a while.
    readFront.setUnreachable(true)
    readFront.dropSubscriptions()
    const token = await deployToken('MISSED')
    await minedOnChain(token.txHash) // anvil mines just after it takes a transaction, not before the answer
    expect((await deploy.post({ action: 'receipt', tx_hash: token.txHash })).body).toMatchObject({ status: 'confirmed' })
    // The quiet stretch ends; the echo cannot go out, let alone come back: the subscription is given up.
    a.timers.fire((ms) => ms === ECHO_AFTER_QUIET_MS)
    expect(a.timers.pending()).toContain(ECHO_WAIT_MS)
    a.timers.fire((ms) => ms === ECHO_WAIT_MS)
    expect(a.timers.pending()).toContain(RECONNECT_BACKOFF_MS[0])
    // Each refused subscribe waits longer before the next, on the feed's timers.
    for (const [wait, next] of [
      [RECONNECT_BACKOFF_MS[0]!, RECONNECT_BACKOFF_MS[1]!],
      [RECONNECT_BACKOFF_MS[1]!, RECONNECT_BACKOFF_MS[2]!],
    ]) {
      a.timers.fire((ms) => ms === wait)
      expect(a.timers.pending()).toContain(SUBSCRIBE_WAIT_MS)
      await expect.poll(() => a.timers.pending()).toContain(next)
    }
    expect(launchSymbols(stream)).toEqual([])
    readFront.setUnreachable(false)
    a.timers.fire((ms) => ms === RECONNECT_BACKOFF_MS[2])
    // Subscribed again, one read of the signal covers what was published meanwhile.
    await expect.poll(() => launchSymbols(stream)).toEqual(['MISSED'])
    expect(signalReads()).toBe(reads + 2)
    await expect.poll(() => a.timers.pending()).toContain(ECHO_AFTER_QUIET_MS)
    // And it listens again: the next launch comes as a message.
    const next = await deployToken('HEARD')
    await minedOnChain(next.txHash)
    expect((await deploy.post({ action: 'receipt', tx_hash: next.txHash })).body).toMatchObject({ status: 'confirmed' })
    await expect.poll(() => launchSymbols(stream), { timeout: 5000 }).toEqual(['MISSED', 'HEARD'])
    expect(signalReads()).toBe(reads + 2)
    await stream.cancel()
  })

  it('sends it too when the tick’s follow-up is what sees the deploy mined, once though a receipt sees it again', async () => {
    deploy.clock.now += 60_000
    const a = readInstance()
    const reads = signalReads()
    const stream = await a.open()
    await expect.poll(() => stream.events().length).toBeGreaterThanOrEqual(1)
    await expect.poll(() => signalReads()).toBe(reads + 1)
    const token = await deployToken('TICKED')
    // Mined (anvil mines just after it takes a transaction, and a follow-up at that instant saw it still pending): the
    // chain says so, and nothing of the service has seen it yet.
    await minedOnChain(token.txHash)
    // The follow-up confirms every deploy still unmined (this one, and any an earlier case left without a receipt).
    expect((await followDeploys(deploy.newInstance().services)).confirmed).toBeGreaterThanOrEqual(1)
    expect((await deploy.post({ action: 'receipt', tx_hash: token.txHash })).body).toMatchObject({ status: 'confirmed' })
    const launchesOf = () => stream.events().filter((e) => e.event === 'launch' && JSON.parse(e.data!).txHash === token.txHash)
    await expect.poll(() => launchesOf().length, { timeout: 5000 }).toBe(1)
    expect(JSON.parse(launchesOf()[0]!.data!)).toMatchObject({ txHash: token.txHash, status: 'confirmed' })
    // The feed says confirmed once its window has passed.
    deploy.clock.now += 31_000
    const listed = (await a.freshLaunches()).body.launches.find((l) => l.txHash === token.txHash)
    expect(listed).toMatchObject({ status: 'confirmed' })
    expect(launchesOf()).toHaveLength(1)
    await stream.cancel()
  })

  it('with PUBLIC_LAUNCHES off: 404 LAUNCHES_OFF, and streams that never subscribe to launches', async () => {
    const off = readInstance({ publicLaunches: false, chainId: 8453 })
    const answer = await off.launches()
    expect(answer.status).toBe(404)
    expect(answer.body.code).toBe('LAUNCHES_OFF')
    const subscribes = () => readFront.commands.filter((c) => c === 'SUBSCRIBE').length
    const before = subscribes()
    const stream = await off.open()
    await expect.poll(() => stream.events().length).toBeGreaterThanOrEqual(1)
    expect(subscribes()).toBe(before)
    expect(off.timers.pending()).not.toContain(ECHO_AFTER_QUIET_MS)
    expect(stream.events().filter((e) => e.event === 'launch')).toEqual([])
    await stream.cancel()
  })
})
