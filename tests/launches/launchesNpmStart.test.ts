import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { generateAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import type { Launch, LaunchesPage } from '../../lib/launches/schema.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { type ServiceParts, startServiceParts } from '../support/serviceParts.js'
import { readFrames } from '../support/sseFrames.js'

const agent = generateAgentKey()

/**
 * The launches feed and its stream event over `npm start` with every real part (anvil, KMS), on either store: Upstash
 * over redis-server, and the in-process store a newcomer's `npm start` and `npm run sandbox` run on, where the read side
 * and the deploy side must share one store to see each other's writes.
 */
describe.each<{ store: string; env: Record<string, string> }>([
  { store: 'Upstash over redis-server', env: {} },
  { store: 'the in-process store', env: { UPSTASH_REDIS_REST_URL: '', UPSTASH_REDIS_REST_TOKEN: '' } },
])('launches over npm start on $store', ({ env }) => {
  let parts: ServiceParts
  let service: NpmStart

  beforeAll(async () => {
    parts = await startServiceParts({
      redisSocket: inject('redisSocket'),
      allowlist: [agent.digest],
      storePrefix: `launchesnpm${process.pid}:`,
      env,
    })
    service = await startNpmStart(parts.env)
  }, 120_000)
  afterAll(async () => {
    await service?.stop()
    await parts?.close()
  })

  it('lists a deploy in /api/launches, and an open stream gets its launch event once a receipt sees it confirmed', async () => {
    const stream = readFrames(await fetch(`${service.url}/api/stream`))
    await expect.poll(() => stream.events().some((e) => e.event === 'control-room')).toBe(true)
    const post = async (body: unknown) =>
      (await (
        await fetch(`${service.url}/api/b20-skill`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-service-key': agent.key },
          body: JSON.stringify(body),
        })
      ).json()) as Record<string, any>
    const sent = await post({
      action: 'agent_deploy',
      name: 'Npm Launch',
      symbol: 'NPML',
      admin: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      initialSupply: '500',
      description: 'Launched over npm start.',
    })
    expect(sent).toMatchObject({ ok: true, status: 'broadcast' })
    expect(await post({ action: 'receipt', tx_hash: sent.txHash })).toMatchObject({ ok: true, status: 'confirmed' })

    // The receipt publishes the launch on the chain's events channel, which the instance listens to while a stream is
    // open: the event comes within 5 s (no look on a cadence stands behind it any more).
    const launchEvents = () => stream.events().filter((e) => e.event === 'launch')
    await expect.poll(() => launchEvents().length, { timeout: 5000, interval: 100 }).toBe(1)
    const event = JSON.parse(launchEvents()[0]!.data!) as Launch
    expect(event).toMatchObject({
      txHash: sent.txHash,
      address: sent.predictedAddress,
      symbol: 'NPML',
      status: 'confirmed',
      initialSupply: '500',
    })

    const response = await fetch(`${service.url}/api/launches?limit=5`)
    expect(response.status).toBe(200)
    const page = (await response.json()) as LaunchesPage
    expect(page.launches[0]).toMatchObject({
      txHash: sent.txHash,
      name: 'Npm Launch',
      symbol: 'NPML',
      variant: 'asset',
      decimals: 18,
      initialSupply: '500',
      supplyCap: null,
      status: 'confirmed',
      // Read from anvil (BASE_RPC_URL) when the feed's body was made: the admin was given, the signer kept nothing.
      powers: { signerRoles: [] },
      market: null,
      metadata: { description: 'Launched over npm start.' },
    })
    expect(JSON.stringify(page)).not.toContain(agent.digest)
    expect(JSON.stringify(page)).not.toContain(agent.key)
    await stream.cancel()
  }, 60_000)
})
