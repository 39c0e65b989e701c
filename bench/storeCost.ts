import { issueAgentKey } from '../lib/deploy/agents/agentRegistry.js'
import { setAgentWebhook } from '../lib/deploy/agents/webhookTargets.js'
import { deployServicesFrom } from '../lib/deploy/instance.js'
import { followDeploys } from '../lib/deploy/pipeline/followDeploys.js'
import { createDeployServices } from '../lib/deploy/services.js'
import { createLaunchesEndpoint } from '../lib/launches/endpoint.js'
import { followPoolSwaps } from '../lib/launches/swapFollow.js'
import { refreshDeployMarkets } from '../lib/launches/tokenMarket.js'
import { HISTORY_WINDOW_MS, snapshotTime, THINNED_INTERVAL_MS } from '../lib/market/snapshots.js'
import type { ControlRoom } from '../lib/market/types.js'
import { silentLogger } from '../lib/platform/log.js'
import {
  createControlRoomEndpoint,
  createMarketHistoryEndpoint,
  createTokenHistoryEndpoint,
  createTokenOhlcvEndpoint,
  createTokenSearchEndpoint,
} from '../lib/read/endpoint.js'
import { readKeys } from '../lib/read/keys.js'
import { createReadServices } from '../lib/read/services.js'
import { createUpstashStore } from '../lib/store/upstash.js'
import { runTick } from '../lib/tick/runTick.js'
import { startDeployStack } from '../tests/support/deployStack.js'
import { startFakeDexScreener } from '../tests/support/fakeDexScreener.js'
import { startFakeGeckoTerminal } from '../tests/support/fakeGeckoTerminal.js'
import { startRedisServer } from '../tests/support/redisServer.js'
import { createLongTailMarket, HUBS, makePair } from '../tests/support/syntheticMarket.js'
import { startUpstashRestServer } from '../tests/support/upstashRestServer.js'
import { startWebhookReceiver } from '../tests/support/webhookReceiver.js'

/** Upstash's price: 500,000 commands a month free, then $0.20 per 100,000. */
const FREE_COMMANDS_PER_MONTH = 500_000
const USD_PER_100K = 0.2
const TICKS_PER_MONTH = 30 * 24 * 60

/**
 * What the service itself costs on Upstash, counted at an Upstash-compatible front over redis-server (one per command;
 * a script or an MSET counts once, a pipeline each command in it): commands per tick, cold and steady, per warm read of
 * each endpoint, and what a month of one tick a minute costs (`npm run bench -- store-cost`).
 */
export async function benchStoreCost(): Promise<Record<string, number | string>> {
  const redis = await startRedisServer()
  const upstash = await startUpstashRestServer({ redisSocket: redis.socket })
  const market = createLongTailMarket()
  const clock = { now: Math.floor(Date.now() / 300_000) * 300_000 + 7_000 }
  const dexscreener = await startFakeDexScreener(market)
  const gecko = await startFakeGeckoTerminal(market, { now: () => clock.now, perMinute: 1_000 })
  const store = createUpstashStore({ url: upstash.url, token: upstash.token })
  const read = createReadServices({
    env: { DEXSCREENER_BASE_URL: dexscreener.url, GECKOTERMINAL_BASE_URL: gecko.url, STORE_KEY_PREFIX: 'cost:' },
    store,
    logger: silentLogger,
    now: () => clock.now,
  })
  const deploy = deployServicesFrom(() =>
    createDeployServices({ env: { BASE_RPC_URL: 'http://127.0.0.1:9', STORE_KEY_PREFIX: 'cost:' }, store: null }),
  )
  const counted = async (run: () => unknown) => {
    const before = upstash.commands.length
    await run()
    return upstash.commands.slice(before)
  }
  const tick = () => runTick({ read, deploy: deploy.services, caller: 'bench', intervalSeconds: 60 })
  try {
    const cold = await counted(tick)
    // An hour of ticks, one a minute: refreshes, snapshots, backfills and discoveries as they fall due.
    const steady: number[] = []
    const byName = new Map<string, number>()
    for (let i = 0; i < 60; i++) {
      clock.now += 60_000
      const spent = await counted(tick)
      steady.push(spent.length)
      for (const name of spent) byName.set(name, (byName.get(name) ?? 0) + 1)
    }
    const perTick = steady.reduce((a, b) => a + b, 0) / steady.length
    const get = (path: string) => new Request(`https://svc.test${path}`, { headers: { 'x-real-ip': '198.51.100.1' } })
    const room = (await (await createControlRoomEndpoint(() => read).fetch(get('/api/control-room'))).json()) as ControlRoom
    // Each endpoint is read once to warm it; the second read is counted (the per-client throttle's script included).
    const handlers = {
      'control-room': [createControlRoomEndpoint(() => read), '/api/control-room'],
      'token-search (cached term)': [createTokenSearchEndpoint(() => read), '/api/token-search?q=weth'],
      'token-history': [createTokenHistoryEndpoint(() => read), `/api/token-history?address=${room.liveActivity[0]!.address}`],
      'market-history': [createMarketHistoryEndpoint(() => read), '/api/market-history'],
      'token-history, 7 d': [
        createTokenHistoryEndpoint(() => read),
        `/api/token-history?address=${room.liveActivity[0]!.address}&range=7d`,
      ],
      'market-history, 7 d': [createMarketHistoryEndpoint(() => read), '/api/market-history?range=7d'],
      'token-ohlcv': [createTokenOhlcvEndpoint(() => read), `/api/token-ohlcv?address=${room.liveActivity[0]!.address}`],
      launches: [createLaunchesEndpoint({ read: () => read, config: () => ({ publicLaunches: true, chainId: 8453 }) }), '/api/launches'],
    } as const
    const warm: Record<string, string[]> = {}
    for (const [name, [handle, path]] of Object.entries(handlers)) {
      await handle.fetch(get(path))
      warm[name] = await counted(() => handle.fetch(get(path)))
    }
    const monthly = perTick * TICKS_PER_MONTH
    // The history's bytes: a snapshot of the top 100 as the last tick wrote it; 288 written a day, each kept a day, or a
    // week on a 30-minute mark (48 a day): a week held is 288 + 6 × 48 of them.
    const snapshotBytes = (await store.get(readKeys('cost:').snapshot(snapshotTime(clock.now))))?.length ?? 0
    const perDay = HISTORY_WINDOW_MS / 300_000
    const thinnedPerDay = HISTORY_WINDOW_MS / THINNED_INTERVAL_MS
    const figures: Record<string, number | string> = {
      'history: bytes of one snapshot (100 tokens)': snapshotBytes,
      'history: bytes written a day (288 snapshots)': snapshotBytes * perDay,
      'history: bytes held for a week (288 + 6 × 48 snapshots)': snapshotBytes * (perDay + 6 * thinnedPerDay),
      'tick, cold (commands)': cold.length,
      'tick, steady (commands, mean of 60)': Number(perTick.toFixed(1)),
      'tick, steady (largest of 60)': Math.max(...steady),
      'steady ticks by command': [...byName]
        .sort((a, b) => b[1] - a[1])
        .map(([name, n]) => `${name} ${(n / steady.length).toFixed(1)}`)
        .join(', '),
      'a month at one tick a minute (commands)': Math.round(monthly),
      'a month at one tick a minute (USD)': Number((Math.max(0, monthly - FREE_COMMANDS_PER_MONTH) / 100_000) * USD_PER_100K).toFixed(2),
      'a month at one tick every 5 minutes (commands)': Math.round(monthly / 5),
    }
    for (const [name, commands] of Object.entries(warm)) figures[`warm read: ${name} (commands)`] = commands.length
    return { ...figures, ...(await deployCosts(redis.socket)) }
  } finally {
    await Promise.all([dexscreener.close(), gecko.close(), upstash.close()])
    await redis.stop()
  }
}

/**
 * The deploy side's bill, on anvil, the KMS server and the same redis-server: commands per deploy (with and without a
 * webhook's first delivery), per receipt and list_deploys, and the tick's three deploy parts, idle and while the
 * deployed tokens are followed to the market.
 */
async function deployCosts(redisSocket: string): Promise<Record<string, number>> {
  const stack = await startDeployStack({ storeKind: 'upstash', redisSocket, env: { DEPLOY_DAILY_CAP: '1000' } })
  const dexscreener = await startFakeDexScreener([])
  const receiver = await startWebhookReceiver()
  try {
    const upstash = stack.upstash!
    const counted = async (run: () => unknown) => {
      const before = upstash.commands.length
      await run()
      return upstash.commands.length - before
    }
    const { services } = stack.newInstance()
    const read = createReadServices({
      env: { DEXSCREENER_BASE_URL: dexscreener.url, GECKOTERMINAL_BASE_URL: '', STORE_KEY_PREFIX: services.config.storePrefix },
      store: stack.store,
      logger: silentLogger,
    })
    const deployParts = () =>
      Promise.all([
        followDeploys(services),
        refreshDeployMarkets({ services, upstream: read.upstream, reserveUpstream: read.reserveUpstream }),
        services.webhooks!.deliverDue(),
        // The launched pools' follow: no launch here has a pool, so its index read alone.
        followPoolSwaps({ services, wethUsd: null }),
      ])
    const idleParts = await counted(deployParts)
    const { key } = await issueAgentKey({ store: stack.store, storePrefix: services.config.storePrefix, label: 'bench' })
    await setAgentWebhook({
      store: stack.store,
      storePrefix: services.config.storePrefix,
      which: 'bench',
      url: receiver.url,
      onVercel: false,
    })
    await stack.post({ action: 'agent_deploy', name: 'Warm', symbol: 'WARM' }) // the instance's first deploy reads its signer
    const plain: number[] = []
    const hooked: number[] = []
    const hashes: string[] = []
    const plainHashes: string[] = []
    for (let i = 0; i < 5; i++) {
      plain.push(
        await counted(async () =>
          plainHashes.push((await stack.post({ action: 'agent_deploy', name: 'Cost', symbol: `C${i}` })).body.txHash),
        ),
      )
      hooked.push(
        await counted(async () => {
          const body = (await stack.post({ action: 'agent_deploy', name: 'Hooked', symbol: `H${i}` }, { key })).body
          hashes.push(body.txHash)
          await stack.drain() // the first delivery, as waitUntil keeps it alive
        }),
      )
    }
    await stack.drain()
    const receipt = await counted(async () => {
      await stack.post({ action: 'receipt', tx_hash: hashes[0] }, { key })
      await stack.drain() // the deploy.confirmed event's first delivery
    })
    // Without a webhook: the record, the token's market and the launch announced to open streams.
    const plainReceipt = await counted(() => stack.post({ action: 'receipt', tx_hash: plainHashes[0] }))
    const listed = await counted(() => stack.post({ action: 'list_deploys', limit: 20 }, { key }))
    await deployParts() // records the mined deploys (and sends deploy.confirmed)
    await stack.drain()
    const tokens = (await stack.post({ action: 'list_deploys', limit: 20 })).body.deploys as { predictedAddress: string }[]
    dexscreener.setPairs(
      tokens.map((t, i) =>
        makePair({
          base: { address: t.predictedAddress, name: 'Cost', symbol: 'C' },
          quote: HUBS.WETH,
          pairAddress: `0x${(i + 1).toString(16).padStart(40, '0')}`,
          volume24h: 1000,
        }),
      ),
    )
    await deployParts() // every token listed once
    await stack.drain()
    const following = await counted(deployParts)
    const mean = (values: number[]) => Number((values.reduce((a, b) => a + b, 0) / values.length).toFixed(1))
    return {
      'deploy: agent_deploy (commands, mean of 5)': mean(plain),
      'deploy: agent_deploy with a webhook, first delivery included (commands, mean of 5)': mean(hooked),
      'deploy: receipt, confirmed, webhook delivery included (commands)': receipt,
      'deploy: receipt, confirmed, no webhook (commands)': plainReceipt,
      'deploy: list_deploys of 5 (commands)': listed,
      'tick: deploys + markets + webhooks + launched pools parts, idle (commands)': idleParts,
      [`tick: deploys + markets + webhooks + launched pools parts, following ${tokens.length} tokens (commands)`]: following,
    }
  } finally {
    await receiver.close()
    await Promise.all([stack.close(), dexscreener.close()])
  }
}
