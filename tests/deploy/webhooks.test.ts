import { createServer } from 'node:http'
import type { AddressInfo, LookupFunction } from 'node:net'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { digestAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { issueAgentKey } from '../../lib/deploy/agents/agentRegistry.js'
import { listAgentsWithWebhooks, setAgentWebhook } from '../../lib/deploy/agents/webhookTargets.js'
import { attemptWebhook, createWebhookAgents } from '../../lib/deploy/webhooks/attempt.js'
import { createWebhookOutbox } from '../../lib/deploy/webhooks/outbox.js'
import { createLogger, silentLogger } from '../../lib/platform/log.js'
import { createReadServices, type ReadServices } from '../../lib/read/services.js'
import { runTick, type TickSummary } from '../../lib/tick/runTick.js'
import { AGENT_KEYS, type DeployStack, startDeployStack } from '../support/deployStack.js'
import { type FakeDexScreener, startFakeDexScreener } from '../support/fakeDexScreener.js'
import { v4PoolIdOf } from '../support/realShapes.js'
import { HUBS, makePair, mixCase } from '../support/syntheticMarket.js'
import { createTestClock } from '../support/testClock.js'
import { startWebhookReceiver, type WebhookDelivery, type WebhookReceiver } from '../support/webhookReceiver.js'

const deployBody = (symbol: string) => ({ action: 'agent_deploy', name: 'Hook Token', symbol })
const HOLDER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
/** An event subject of a deploy born with nothing, its hash made of one repeated byte. */
const plainSubject = (byte: string) => ({
  txHash: `0x${byte.repeat(32)}`,
  predictedAddress: `0x${'cd'.repeat(20)}`,
  name: 'X',
  symbol: 'X',
  initialSupply: null,
  supplyCap: null,
  recipient: null,
})
const typeOf = (delivery: WebhookDelivery) => (JSON.parse(delivery.body) as { type: string }).type

type HookedAgent = { label: string; key: string; secret: string; receiver: WebhookReceiver }

describe('webhooks: every deploy outcome, signed, at least once (anvil, KMS server, Upstash over redis-server, loopback receivers)', () => {
  let stack: DeployStack
  let dexscreener: FakeDexScreener
  let read: ReadServices
  let prefix: string
  const agents: Record<string, HookedAgent> = {}

  beforeAll(async () => {
    stack = await startDeployStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), env: { DEPLOY_DAILY_CAP: '1000' } })
    prefix = stack.newInstance().services.config.storePrefix
    dexscreener = await startFakeDexScreener([])
    read = createReadServices({
      env: { DEXSCREENER_BASE_URL: dexscreener.url, GECKOTERMINAL_BASE_URL: '', STORE_KEY_PREFIX: prefix },
      store: stack.store,
      logger: silentLogger,
      now: () => stack.clock.now,
    })
    // Issued before any request: the instances' registry reads a new key at once on its first look.
    for (const label of ['happy', 'retry', 'giveup', 'gone', 'shared', 'market', 'steady', 'events', 'redeliver', 'stranger', 'manage']) {
      const receiver = await startWebhookReceiver()
      const { key } = await issueAgentKey({ store: stack.store, storePrefix: prefix, label })
      const { secret } = await setAgentWebhook({
        store: stack.store,
        storePrefix: prefix,
        which: label,
        url: receiver.url,
        onVercel: false,
      })
      agents[label] = { label, key, secret: secret!, receiver }
    }
  })
  afterAll(async () => {
    await Promise.all(Object.values(agents).map((a) => a.receiver.close()))
    await Promise.all([stack.close(), dexscreener.close()])
  })

  /** One tick in the next interval, on a fresh instance (as the scheduled function would run). */
  async function tick(): Promise<TickSummary> {
    stack.clock.now += 60_000
    const summary = await runTick({ read, deploy: async () => stack.newInstance().services, caller: 'test', intervalSeconds: 60 })
    expect(summary.ran).toBe(true)
    return summary
  }
  const webhookOf = async (label: string) => (await listAgentsWithWebhooks(stack.store, prefix)).find((a) => a.label === label)!.webhook!

  it('tells the agent deploy.broadcast at once and deploy.confirmed once, each signed with its secret', async () => {
    const { key, secret, receiver } = agents.happy!
    // Born with a supply: every event carries it, as the deploy answer does.
    const supply = { initialSupply: '2500.5', supplyCap: '1000000', recipient: HOLDER }
    const sent = (await stack.post({ ...deployBody('HOOK'), ...supply, admin: HOLDER }, { key })).body
    expect(sent).toMatchObject({ ok: true, status: 'broadcast', token: supply })
    await stack.drain()
    const [broadcast] = receiver.deliveries
    expect(receiver.verify(broadcast!, secret, stack.clock.now)).toEqual({
      type: 'deploy.broadcast',
      timestamp: new Date(stack.clock.now).toISOString(),
      data: {
        txHash: sent.txHash,
        predictedAddress: sent.predictedAddress,
        name: 'Hook Token',
        symbol: 'HOOK',
        ...supply,
        explorerUrl: sent.explorerUrl,
        signer: stack.signer,
        chainId: 8453,
      },
    })
    expect(broadcast!.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': expect.stringMatching(/^msg_/) })
    // The signature covers the body and is the agent's own: a changed byte or another secret does not verify.
    const tampered = { ...broadcast!, body: broadcast!.body.replace('HOOK', 'HOOX') }
    expect(() => receiver.verify(tampered, secret, stack.clock.now)).toThrow()
    expect(() => receiver.verify(broadcast!, agents.retry!.secret, stack.clock.now)).toThrow()
    // An allowlisted agent (DEPLOY_ALLOWLIST) has no webhook: its deploys send nothing anywhere.
    expect((await stack.post(deployBody('QUIET'))).body).toMatchObject({ ok: true })

    // A receipt sees it mined first, then the tick: one deploy.confirmed between them. (Broadcast is not mined: wait
    // for the node's block first, as the answer says nothing more.)
    await stack.chain.publicClient.waitForTransactionReceipt({ hash: sent.txHash })
    expect((await stack.post({ action: 'receipt', tx_hash: sent.txHash }, { key })).body).toMatchObject({
      status: 'confirmed',
      market: null,
    })
    // Its deploy.confirmed went out after the answer (waitUntil on Vercel): done before the clock moves a minute.
    await stack.drain()
    const summary = await tick()
    // It records the deploys other cases left unmined too; this agent's are what its receiver saw.
    expect(summary.parts?.deploys).toMatchObject({ ok: true, confirmed: expect.any(Number) })
    expect(summary.parts?.webhooks).toMatchObject({ ok: true, due: 0 })
    await stack.drain()
    expect(receiver.deliveries.map(typeOf)).toEqual(['deploy.broadcast', 'deploy.confirmed'])
    const confirmed = receiver.deliveries[1]!
    expect(confirmed.headers['webhook-id']).not.toBe(broadcast!.headers['webhook-id'])
    // Signed when the receipt saw it, before the tick's minute passed.
    expect(receiver.verify(confirmed, secret, stack.clock.now - 60_000).data).toEqual({
      txHash: sent.txHash,
      predictedAddress: sent.predictedAddress,
      name: 'Hook Token',
      symbol: 'HOOK',
      ...supply,
      tokenAddress: sent.predictedAddress,
      blockNumber: expect.any(Number),
      gasUsed: expect.stringMatching(/^[1-9]\d*$/),
      minedTxHash: sent.txHash,
    })
    expect(await webhookOf('happy')).toMatchObject({
      state: 'active',
      url: receiver.url,
      failing: 0,
      lastError: null,
      lastDeliveryAt: expect.any(Number),
    })
    expect(JSON.stringify(await listAgentsWithWebhooks(stack.store, prefix))).not.toContain(secret)
  })

  it('lists an agent’s own events, newest first, with how each delivery stands; another agent sees none of them', async () => {
    const { key, receiver } = agents.events!
    receiver.answerWith(503)
    const first = (await stack.post(deployBody('EVA'), { key })).body
    await stack.drain()
    stack.clock.now += 1000 // a second apart: newest first is then one order
    const second = (await stack.post(deployBody('EVB'), { key })).body
    await stack.drain()
    expect([first.ok, second.ok]).toEqual([true, true])
    const listed = (await stack.post({ action: 'list_events', limit: 5 }, { key })).body
    expect(listed.ok).toBe(true)
    expect(listed.events).toHaveLength(2)
    const [newest, oldest] = listed.events
    // The first attempt of the first event was refused: it waits for its retry; the second was delivered.
    expect(oldest).toMatchObject({ type: 'deploy.broadcast', state: 'pending', attempts: 1, lastStatus: 503 })
    expect(oldest.nextAttemptAt).toEqual(expect.any(String))
    expect(newest).toMatchObject({ type: 'deploy.broadcast', state: 'delivered', attempts: 1, lastStatus: 200, nextAttemptAt: null })
    expect(receiver.deliveries.map((d) => d.headers['webhook-id'])).toEqual([oldest.id, newest.id])
    expect(Date.parse(newest.createdAt)).toBeGreaterThanOrEqual(Date.parse(oldest.createdAt))
    expect((await stack.post({ action: 'list_events' }, { key: agents.stranger!.key })).body).toEqual({ ok: true, events: [] })
    expect((await stack.post({ action: 'list_events', limit: 0 }, { key })).body).toMatchObject({
      ok: false,
      code: 'INVALID_INTENT',
      details: [{ field: 'limit' }],
    })
    // The refused one is delivered at its retry, 5 s on, and says so.
    stack.clock.now += 5_000
    expect(await stack.newInstance().services.webhooks!.deliverDue()).toMatchObject({ due: 1, delivered: 1 })
    const [, retried] = (await stack.post({ action: 'list_events', limit: 2 }, { key })).body.events
    expect(retried).toMatchObject({ id: oldest.id, state: 'delivered', attempts: 2, lastStatus: 200, nextAttemptAt: null })
  })

  it('tells token.minted once when an executed mint is mined, and its receipt says so', async () => {
    const { key, secret, receiver } = agents.manage!
    const deployed = (await stack.post({ ...deployBody('MNGD'), waitSeconds: 6 }, { key })).body
    expect(deployed).toMatchObject({ ok: true, receipt: { status: 'confirmed' } })
    const token = deployed.predictedAddress
    const minted = (await stack.post({ action: 'mint', token, to: HOLDER, amount: '5' }, { key })).body
    expect(minted).toMatchObject({ ok: true, status: 'broadcast', kind: 'mint' })
    await stack.chain.publicClient.waitForTransactionReceipt({ hash: minted.txHash })
    expect((await stack.post({ action: 'receipt', tx_hash: minted.txHash }, { key })).body).toEqual({
      ok: true,
      status: 'confirmed',
      kind: 'mint',
      txHash: minted.txHash,
      tokenAddress: token,
      blockNumber: expect.any(Number),
      gasUsed: expect.any(String),
      explorerUrl: minted.explorerUrl,
    })
    await stack.drain()
    await tick()
    await stack.drain()
    expect(receiver.deliveries.map(typeOf)).toEqual(['deploy.broadcast', 'deploy.confirmed', 'token.minted'])
    const event = receiver.verify(receiver.deliveries[2]!, secret, stack.clock.now - 60_000)
    expect(event.data).toMatchObject({ txHash: minted.txHash, predictedAddress: token, kind: 'mint', tokenAddress: token })
  })

  it('sends one deploy’s events from an instance in the order they happened, and holds no other deploy behind them', async () => {
    const receiver = await startWebhookReceiver()
    // The outbox's first store command waits until the test lets it go: deploy.broadcast is held before it is filed.
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const emits: Promise<unknown>[] = []
    try {
      await issueAgentKey({ store: stack.store, storePrefix: prefix, label: 'ordered' })
      await setAgentWebhook({ store: stack.store, storePrefix: prefix, which: 'ordered', url: receiver.url, onVercel: false })
      const agent = (await stack.store.get(`${prefix}agents:v1:label:ordered`))!
      const commands: string[] = []
      const firstHeld = new Proxy(stack.store, {
        get(target, name) {
          const value = Reflect.get(target, name)
          if (typeof value !== 'function') return value
          return (...args: unknown[]) => {
            commands.push(String(name))
            return commands.length === 1 ? held.then(() => value.apply(target, args)) : value.apply(target, args)
          }
        },
      })
      const outbox = createWebhookOutbox({
        store: firstHeld,
        storePrefix: prefix,
        chainId: 8453,
        logger: silentLogger,
        clock: stack.clock.clock,
        onVercel: false,
      })
      const subject = plainSubject('ef')
      const broadcast = outbox.emit({ agentDigest: agent, type: 'deploy.broadcast', subject })
      const confirmed = outbox.emit({ agentDigest: agent, type: 'deploy.confirmed', subject, details: { blockNumber: 7 } })
      emits.push(broadcast, confirmed)
      await new Promise(setImmediate)
      // deploy.confirmed has not started: it would have read the agent's webhook by now.
      expect(commands).toEqual(['getMany'])
      // Another deploy's event goes out meanwhile (polled, so that a held one fails the case rather than hanging it).
      const other = plainSubject('fe')
      const otherEmitted = outbox.emit({ agentDigest: agent, type: 'deploy.broadcast', subject: other })
      emits.push(otherEmitted)
      await expect.poll(() => receiver.deliveries.length, { timeout: 10_000 }).toBe(1)
      release()
      expect(await Promise.all([broadcast, confirmed, otherEmitted])).toEqual([{ queued: true }, { queued: true }, { queued: true }])
      const sent = receiver.deliveries.map((d) => JSON.parse(d.body) as { type: string; data: { txHash: string } })
      expect(sent.map((e) => [e.data.txHash, e.type])).toEqual([
        [other.txHash, 'deploy.broadcast'],
        [subject.txHash, 'deploy.broadcast'],
        [subject.txHash, 'deploy.confirmed'],
      ])
    } finally {
      // Whatever the outcome, no attempt of this case is left to fail later, in another case's tick.
      release()
      await Promise.allSettled(emits)
      await receiver.close()
    }
  })

  it('redelivers one of its own events with the same webhook-id, and refuses another agent’s', async () => {
    const { key, secret, receiver } = agents.redeliver!
    const sent = (await stack.post(deployBody('RDL'), { key })).body
    await stack.drain()
    const [event] = (await stack.post({ action: 'list_events', limit: 1 }, { key })).body.events
    const before = receiver.deliveries.length
    const again = (await stack.post({ action: 'redeliver', event_id: event.id }, { key })).body
    expect(again).toEqual({ ok: true, eventId: event.id, outcome: 'delivered' })
    expect(receiver.deliveries).toHaveLength(before + 1)
    const redelivered = receiver.deliveries.at(-1)!
    expect(redelivered.headers['webhook-id']).toBe(event.id)
    expect(receiver.verify(redelivered, secret, stack.clock.now).data).toMatchObject({ txHash: sent.txHash })
    // Another agent can neither see nor trigger it: the same answer as an id that does not exist.
    const theirs = (await stack.post({ action: 'redeliver', event_id: event.id }, { key: agents.stranger!.key })).body
    expect(theirs).toMatchObject({ ok: false, code: 'EVENT_NOT_FOUND' })
    expect((await stack.post({ action: 'redeliver', event_id: 'msg_nothing' }, { key })).body).toMatchObject({ code: 'EVENT_NOT_FOUND' })
    expect(receiver.deliveries).toHaveLength(before + 1)
    expect((await stack.post({ action: 'redeliver', event_id: 'not an id' }, { key })).body).toMatchObject({
      code: 'INVALID_INTENT',
      details: [{ field: 'event_id' }],
    })
  })

  it('spends no store command on the events of an allowlisted agent, which can have no webhook', async () => {
    const outbox = stack.newInstance().services.webhooks!
    const subject = plainSubject('ef')
    const before = stack.upstash!.commands.length
    const emitted = await outbox.emit({ agentDigest: digestAgentKey(AGENT_KEYS.alice), type: 'deploy.broadcast', subject })
    expect(emitted).toEqual({ queued: false })
    expect(stack.upstash!.commands.length - before).toBe(0)
    // A runtime agent's event does read its webhook.
    await outbox.emit({ agentDigest: 'f'.repeat(64), type: 'deploy.broadcast', subject })
    expect(stack.upstash!.commands.length - before).toBe(1)
  })

  it('retries a failing receiver on the schedule: the same webhook-id, a fresh timestamp and signature each time', async () => {
    const { key, secret, receiver } = agents.retry!
    receiver.answerWith(500, 503)
    const sent = (await stack.post(deployBody('RETRY'), { key })).body
    await stack.drain()
    expect(receiver.deliveries).toHaveLength(1)
    const signedAt = [stack.clock.now]
    const instance = () => stack.newInstance().services.webhooks!
    // 5 s after the first attempt, not before; then 5 minutes after the second.
    stack.clock.now += 4_999
    expect(await instance().deliverDue()).toMatchObject({ due: 0 })
    stack.clock.now += 1
    expect(await instance().deliverDue()).toEqual({ due: 1, delivered: 0, retrying: 1, failed: 0, disabled: 0 })
    signedAt.push(stack.clock.now)
    expect(await webhookOf('retry')).toMatchObject({ state: 'active', failing: 2, lastError: 'deploy.broadcast attempt 2: answered 503' })
    stack.clock.now += 299_999
    expect(await instance().deliverDue()).toMatchObject({ due: 0 })
    stack.clock.now += 1
    expect(await instance().deliverDue()).toEqual({ due: 1, delivered: 1, retrying: 0, failed: 0, disabled: 0 })
    signedAt.push(stack.clock.now)

    expect(receiver.deliveries).toHaveLength(3)
    expect(new Set(receiver.deliveries.map((d) => d.headers['webhook-id'])).size).toBe(1)
    expect(receiver.deliveries.map((d) => Number(d.headers['webhook-timestamp']) * 1000)).toEqual(
      signedAt.map((t) => Math.floor(t / 1000) * 1000),
    )
    receiver.deliveries.forEach((delivery, i) => {
      expect(receiver.verify(delivery, secret, signedAt[i]!).data).toMatchObject({ txHash: sent.txHash })
    })
    // The first attempt's signature is refused 5 minutes later: a retry that replayed it would be dropped.
    expect(() => receiver.verify(receiver.deliveries[0]!, secret, signedAt[2]!)).toThrow()
    expect(await webhookOf('retry')).toMatchObject({ failing: 0, lastDeliveryAt: stack.clock.now, failedEvents: 0 })
    // Delivered: nothing is due again.
    stack.clock.now += 86_400_000
    expect(await instance().deliverDue()).toMatchObject({ due: 0 })
  })

  it('gives an event up after its last retry (about 3.3 days), and says so in the agent’s status', async () => {
    const { key, receiver } = agents.giveup!
    receiver.answerWith(...Array.from({ length: 10 }, () => 503))
    expect((await stack.post(deployBody('GIVEUP'), { key })).body).toMatchObject({ ok: true })
    await stack.drain()
    const instance = () => stack.newInstance().services.webhooks!
    for (const seconds of [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400]) {
      stack.clock.now += seconds * 1000
      expect((await instance().deliverDue()).due, `the retry ${seconds} s after the previous attempt`).toBe(1)
    }
    expect(receiver.deliveries).toHaveLength(10)
    expect(await webhookOf('giveup')).toMatchObject({
      state: 'active',
      failing: 10,
      failedEvents: 1,
      lastError: 'deploy.broadcast attempt 10: answered 503',
    })
    stack.clock.now += 7 * 86_400_000
    expect(await instance().deliverDue()).toMatchObject({ due: 0 })
    expect(receiver.deliveries).toHaveLength(10)
  })

  it('disables the webhook on 410 Gone: the failure is listed and later events are not sent', async () => {
    const { key, receiver } = agents.gone!
    receiver.answerWith(410)
    expect((await stack.post(deployBody('GONE'), { key })).body).toMatchObject({ ok: true })
    await stack.drain()
    expect(await webhookOf('gone')).toMatchObject({
      state: 'disabled',
      disabledReason: 'the receiver answered 410 Gone: webhook disabled',
      lastError: 'deploy.broadcast attempt 1: the receiver answered 410 Gone: webhook disabled',
      failedEvents: 1,
    })
    expect((await stack.post(deployBody('GONE2'), { key })).body).toMatchObject({ ok: true })
    await stack.drain()
    stack.clock.now += 3_600_000
    await stack.newInstance().services.webhooks!.deliverDue()
    expect(receiver.deliveries).toHaveLength(1)
  })

  it('makes each due attempt once when three instances claim at the same moment', async () => {
    const { key, receiver } = agents.shared!
    receiver.answerWith(500, 500, 500)
    expect((await stack.post(deployBody('SHARE'), { key })).body).toMatchObject({ ok: true })
    await stack.drain()
    expect(receiver.deliveries).toHaveLength(1)
    for (const [step, expected] of [
      [5_000, 2],
      [300_000, 3],
      [1_800_000, 4],
    ] as const) {
      stack.clock.now += step
      const instances = [0, 1, 2].map(() => stack.newInstance().services.webhooks!)
      const rounds = await Promise.all(instances.map((outbox) => outbox.deliverDue()))
      expect(rounds.reduce((sum, r) => sum + r.due, 0)).toBe(1)
      expect(receiver.deliveries).toHaveLength(expected)
    }
    expect(receiver.deliveries.at(-1)!.headers['webhook-id']).toBe(receiver.deliveries[0]!.headers['webhook-id'])
  })

  /**
   * Deploys for `agent`, confirms it, and lists its token as young tokens start trading: a shallow v4 pool (32-byte id,
   * no liquidity reported), a deeper v2 pool, and a pool where it is the quote side (not its own market); the address
   * comes checksummed. Answers the deploy and the market it was listed with.
   */
  async function deployUntilListed(agent: HookedAgent, symbol: string) {
    const { key } = agent
    const sent = (await stack.post(deployBody(symbol), { key })).body
    await stack.drain()
    const first = await tick()
    await stack.drain()
    expect(first.parts?.deploys).toMatchObject({ ok: true, confirmed: expect.any(Number) })
    expect((await tick()).parts?.markets).toMatchObject({ ok: true, listed: 0, calls: expect.any(Number) })
    await stack.drain()
    const listed = async () => (await stack.post({ action: 'list_deploys', limit: 1 }, { key })).body.deploys[0]
    expect(await listed()).toMatchObject({ txHash: sent.txHash, status: 'confirmed', market: null })

    const token = { address: mixCase(sent.predictedAddress.toLowerCase()), name: 'Hook Token', symbol }
    const deep = '0x00000000000000000000000000000000000d0e01'
    const v4 = makePair({ base: token, quote: HUBS.WETH, pairAddress: v4PoolIdOf(deep), volume24h: 900, dexId: 'uniswap' })
    delete (v4 as Record<string, unknown>).liquidity
    dexscreener.setPairs([
      v4,
      makePair({
        base: token,
        quote: HUBS.USDC,
        pairAddress: deep,
        volume24h: 4_000,
        liquidityUsd: 12_000,
        priceUsd: '0.0042',
        dexId: 'aerodrome',
      }),
      makePair({
        base: HUBS.WETH,
        quote: token,
        pairAddress: '0x00000000000000000000000000000000000d0e02',
        volume24h: 9_000_000,
        liquidityUsd: 5e6,
      }),
    ])
    const listing = await tick()
    await stack.drain()
    expect(listing.parts?.markets).toMatchObject({ ok: true, tokens: expect.any(Number), listed: 1, failedCalls: 0 })
    const market = {
      source: 'dexscreener',
      pairAddress: deep,
      dexId: 'aerodrome',
      priceUsd: '0.0042',
      priceEth: null,
      marketCapEth: null,
      liquidity: 12_000,
      volume24h: 4_000,
      volume24hEth: null,
      trades24h: null,
      lastTradeAt: null,
      pairUrl: `https://dexscreener.com/base/${deep}`,
      firstSeenAt: new Date(stack.clock.now).toISOString(),
    }
    expect((await listed()).market).toEqual(market)
    return { sent, market, token, deep, listed }
  }

  it('follows the deployed token to the market: market in list_deploys and receipt, and token.listed once', async () => {
    const { key, secret, receiver } = agents.market!
    const { sent, market, token, deep, listed } = await deployUntilListed(agents.market!, 'MKT')
    expect((await stack.post({ action: 'receipt', tx_hash: sent.txHash }, { key })).body).toMatchObject({ status: 'confirmed', market })

    const tokenListed = receiver.deliveries.find((d) => typeOf(d) === 'token.listed')!
    expect(receiver.verify(tokenListed, secret, stack.clock.now).data).toEqual({
      txHash: sent.txHash,
      predictedAddress: sent.predictedAddress,
      name: 'Hook Token',
      symbol: 'MKT',
      initialSupply: null,
      supplyCap: null,
      recipient: null,
      tokenAddress: sent.predictedAddress,
      pairAddress: deep,
      dexId: 'aerodrome',
      priceUsd: '0.0042',
      liquidity: 12_000,
      pairUrl: `https://dexscreener.com/base/${deep}`,
    })

    // Trading goes on: the market follows, first seen stays, and the agent is not told twice.
    dexscreener.setPairs([
      makePair({
        base: token,
        quote: HUBS.USDC,
        pairAddress: deep,
        volume24h: 8_000,
        liquidityUsd: 20_000,
        priceUsd: '0.005',
        dexId: 'aerodrome',
      }),
    ])
    expect((await tick()).parts?.markets).toMatchObject({ ok: true, listed: 0, updated: 1 })
    await stack.drain()
    expect((await listed()).market).toEqual({ ...market, priceUsd: '0.005', liquidity: 20_000, volume24h: 8_000 })
    expect(receiver.deliveries.filter((d) => typeOf(d) === 'token.listed')).toHaveLength(1)
  })

  it('keeps the market when DexScreener fails, and says so in the tick', async () => {
    const { key } = agents.steady!
    const { market: before } = await deployUntilListed(agents.steady!, 'STDY')
    dexscreener.failAlways('/tokens/v1', { kind: 'status', status: 503 })
    try {
      expect((await tick()).parts?.markets).toMatchObject({ ok: true, failedCalls: expect.any(Number), updated: 0 })
      expect((await stack.post({ action: 'list_deploys', limit: 1 }, { key })).body.deploys[0].market).toEqual(before)
    } finally {
      dexscreener.clearFaults()
    }
  })
})

describe('webhooks never reach a private address (server-side request forgery)', () => {
  let stack: DeployStack
  let prefix: string
  let receiver: WebhookReceiver
  beforeAll(async () => {
    stack = await startDeployStack({ storeKind: 'upstash', redisSocket: inject('redisSocket') })
    prefix = stack.newInstance().services.config.storePrefix
    receiver = await startWebhookReceiver()
  })
  afterAll(async () => {
    await receiver.close()
    await stack.close()
  })

  /** A resolver that answers `address` for every name, recording what it was asked. */
  const resolvingTo = (address: string, asked: string[]): LookupFunction =>
    ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      asked.push(hostname)
      const family = address.includes(':') ? 6 : 4
      if (options.all) callback(null, [{ address, family }])
      else callback(null, address, family)
    }) as unknown as LookupFunction

  it('refuses, on Vercel, a name that resolves to a private address, at connect time after DNS, and records why', async () => {
    const port = new URL(receiver.url).port
    const logs: string[] = []
    let n = 0
    for (const [address, onVercel] of [
      ['127.0.0.1', true],
      ['10.0.0.7', true],
      ['169.254.169.254', true],
      ['::ffff:192.168.1.1', true],
      ['fd00::1', true],
      ['10.0.0.7', false],
    ] as const) {
      const label = `rebind-${++n}`
      await issueAgentKey({ store: stack.store, storePrefix: prefix, label })
      // A public-looking name passes registration: only the connection can tell where it leads.
      await setAgentWebhook({
        store: stack.store,
        storePrefix: prefix,
        which: label,
        url: `https://hooks-${n}.rebind.test:${port}/x`,
        onVercel,
      })
      const asked: string[] = []
      const outbox = createWebhookOutbox({
        store: stack.store,
        storePrefix: prefix,
        chainId: 8453,
        logger: createLogger({ write: (line) => logs.push(line) }),
        clock: stack.clock.clock,
        onVercel,
        lookup: resolvingTo(address, asked),
      })
      const digest = (await listAgentsWithWebhooks(stack.store, prefix)).find((a) => a.label === label)!.digestPrefix
      const agent = (await stack.store.get(`${prefix}agents:v1:label:${label}`))!
      expect(agent.startsWith(digest)).toBe(true)
      const subject = plainSubject('ab')
      expect(await outbox.emit({ agentDigest: agent, type: 'deploy.broadcast', subject, key: label })).toEqual({ queued: true })
      expect(asked, `${address}: the name was resolved`).toEqual([`hooks-${n}.rebind.test`])
      const webhook = (await listAgentsWithWebhooks(stack.store, prefix)).find((a) => a.label === label)!.webhook!
      expect(webhook.lastError).toBe(
        `deploy.broadcast attempt 1: refused: hooks-${n}.rebind.test resolves to a non-public address (${address})`,
      )
    }
    expect(receiver.deliveries).toHaveLength(0)
    expect(logs.join('\n')).not.toContain(receiver.url)
  })

  it('takes the status and hangs up: a receiver streaming an endless answer holds nothing', async () => {
    let closed!: () => void
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve))
    const endless = createServer((req, res) => {
      req.resume()
      res.writeHead(200, { 'content-type': 'text/plain' })
      const drip = setInterval(() => res.write('x'.repeat(1024)), 5)
      res.on('close', () => {
        clearInterval(drip)
        closed()
      })
    })
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/hook`
      const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`
      const clock = createTestClock()
      const result = await attemptWebhook({
        url,
        secret,
        id: 'msg_endless',
        body: '{}',
        now: clock.now,
        sleep: clock.clock.sleep,
        onVercel: false,
        agents: createWebhookAgents({ onVercel: false }),
      })
      expect(result).toEqual({ ok: true, status: 200 })
      await connectionClosed
    } finally {
      endless.closeAllConnections()
      endless.close()
    }
  })

  it('refuses a private IP literal, and plain http or loopback on Vercel, at registration: nothing is written', async () => {
    await issueAgentKey({ store: stack.store, storePrefix: prefix, label: 'literal' })
    for (const [url, onVercel] of [
      ['https://10.1.2.3/hook', false],
      ['https://169.254.169.254/latest/meta-data', false],
      ['https://[::ffff:169.254.169.254]/x', false],
      ['https://[fe80::1]/x', false],
      ['https://100.64.0.1/x', false],
      ['http://example.com/hook', false],
      ['http://127.0.0.1:8080/hook', true],
      ['https://localhost/hook', true],
      ['https://user:pass@example.com/hook', false],
      ['ftp://example.com/hook', false],
    ] as const) {
      await expect(
        setAgentWebhook({ store: stack.store, storePrefix: prefix, which: 'literal', url, onVercel }),
        `${url} (onVercel ${onVercel})`,
      ).rejects.toThrow(/the webhook URL .*nothing was written/)
    }
    const literal = (await listAgentsWithWebhooks(stack.store, prefix)).find((a) => a.label === 'literal')!
    expect(literal.webhook).toBeNull()
  })
})
