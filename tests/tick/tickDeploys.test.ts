import type { Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createLogger } from '../../lib/platform/log.js'
import { createReadServices, type ReadServices } from '../../lib/read/services.js'
import { runTick, type TickSummary } from '../../lib/tick/runTick.js'
import { type DeployStack, startDeployStack } from '../support/deployStack.js'

const deployBody = (symbol: string) => ({ action: 'agent_deploy', name: 'Tick Token', symbol })
const events = (logs: string[]) => logs.map((l) => JSON.parse(l) as { event: string; [k: string]: unknown })

describe('the tick follows deploys with nobody asking (anvil, the fake KMS, Upstash over redis-server)', () => {
  let stack: DeployStack
  let read: ReadServices
  const readLogs: string[] = []
  beforeAll(async () => {
    stack = await startDeployStack({
      storeKind: 'upstash',
      redisSocket: inject('redisSocket'),
      env: { DEPLOY_DAILY_CAP: '1000', DEPLOY_STUCK_SECONDS: '60' },
    })
    // The read side points at nothing: its parts fail every tick, and the deploy part must not care.
    read = createReadServices({
      env: { DEXSCREENER_BASE_URL: 'http://127.0.0.1:9', GECKOTERMINAL_BASE_URL: '', STORE_KEY_PREFIX: 'tickdeploys:' },
      store: stack.store,
      logger: createLogger({ write: (line) => readLogs.push(line) }),
      now: () => stack.clock.now,
    })
  })
  afterAll(() => stack.close())

  const instance = () => stack.newInstance()
  /** One tick in the next interval, on a fresh instance's deploy services (as a new function instance would). */
  async function tick(advanceMs = 60_000): Promise<TickSummary> {
    stack.clock.now += advanceMs
    const services = instance().services
    const summary = await runTick({ read, deploy: async () => services, caller: 'vercel-cron', intervalSeconds: 60 })
    expect(summary.ran).toBe(true)
    return summary
  }
  const listed = async () => (await stack.post({ action: 'list_deploys', limit: 10 })).body.deploys as Record<string, unknown>[]

  it('records a mined deploy as confirmed in list_deploys, with no receipt call', async () => {
    const sent = (await stack.post(deployBody('TCK'))).body
    expect(sent).toMatchObject({ ok: true, status: 'broadcast' })
    expect((await listed()).find((d) => d.txHash === sent.txHash)).toMatchObject({ status: 'broadcast' })
    const summary = await tick()
    expect(summary.parts?.deploys).toMatchObject({ ok: true, unmined: 1, confirmed: 1 })
    // The read parts failed (no upstream), and the deploy part did its work anyway.
    expect(summary.failed).toContain('controlRoom')
    // So did the launched pools' follow (no launch has a pool here: no RPC call at all), with no WETH price.
    expect(summary.parts?.chainMarkets).toMatchObject({ ok: true, pools: 0, swaps: 0, rpcCalls: 0 })
    expect((await listed()).find((d) => d.txHash === sent.txHash)).toMatchObject({ status: 'confirmed' })
    expect((await tick()).parts?.deploys).toMatchObject({ ok: true, unmined: 0 })
  })

  it('replaces a deploy stuck with mining paused by ticks alone; once mined, list_deploys says how it ended', async () => {
    await stack.chain.testClient.setAutomine(false)
    stack.clock.now = (Math.floor(stack.clock.now / 60_000) + 1) * 60_000 // the start of an interval no tick has had
    let stuck: Hex
    try {
      const sent = (await stack.post(deployBody('JAM'))).body
      expect(sent).toMatchObject({ ok: true, status: 'broadcast' })
      stuck = sent.txHash
      // 30 s old, younger than DEPLOY_STUCK_SECONDS (60): left alone.
      expect((await tick(30_000)).parts?.deploys).toMatchObject({ ok: true, unmined: 1, replaced: 0 })
      // Past it: the tick replaces it (same nonce, higher fees), under the nonce lock, with no deploy arriving.
      const replacing = await tick()
      expect(replacing.parts?.deploys).toMatchObject({ ok: true, replaced: 1 })
      const replaced = events(stack.logs).find((e) => e.event === 'deploy_replaced' && e.txHash === stuck)
      expect(replaced).toBeDefined()
      expect((await listed()).find((d) => d.txHash === stuck)).toMatchObject({ status: 'replaced', replacedBy: replaced!.replacedBy })
      await stack.chain.testClient.mine({ blocks: 1 })
    } finally {
      await stack.chain.testClient.setAutomine(true)
    }
    const settled = await tick()
    expect(settled.parts?.deploys).toMatchObject({ ok: true, confirmed: 1 })
    const entry = (await listed()).find((d) => d.txHash === stuck)
    expect(entry).toMatchObject({ status: 'replaced', replacementStatus: 'confirmed' })
    const replacement = await stack.chain.publicClient.getTransactionReceipt({ hash: entry!.replacedBy as Hex })
    expect(replacement.status).toBe('success')
    // Nothing is left to follow, and the next deploy goes straight out.
    expect((await tick()).parts?.deploys).toMatchObject({ ok: true, unmined: 0 })
    expect((await stack.post(deployBody('AFTER'))).body).toMatchObject({ ok: true, status: 'broadcast' })
    // And the tick records it: the case leaves nothing unmined for the next.
    expect((await tick()).parts?.deploys).toMatchObject({ ok: true, unmined: 1, confirmed: 1 })
  })
})
