import { type Address, getAddress, type Hex, type PublicClient, parseUnits, zeroAddress } from 'viem'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { issueAgentKey } from '../../lib/deploy/agents/agentRegistry.js'
import { setAgentWebhook } from '../../lib/deploy/agents/webhookTargets.js'
import { createUpstashStore } from '../../lib/store/upstash.js'
import { ib20Abi, ROLES, tokenAt } from '../support/b20Token.js'
import { type NpmStart, startNpmStart } from '../support/npmStart.js'
import { type ServiceParts, startServiceParts } from '../support/serviceParts.js'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js'

const UINT128_MAX = 2n ** 128n - 1n
// Young tokens as the chain has them: names nobody would search for, shallow supplies, odd decimals.
const ADMIN = getAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')
const HOLDER = getAddress('0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359')

type Agent = { key: string; secret: string; receiver: WebhookReceiver }

describe('tokens born ready, over npm start with the local chain, the KMS server and Upstash over redis-server', () => {
  let parts: ServiceParts
  let service: NpmStart
  let publicClient: PublicClient
  const agents: Record<'maker' | 'stranger', Agent> = {} as never

  beforeAll(async () => {
    parts = await startServiceParts({
      redisSocket: inject('redisSocket'),
      allowlist: [],
      storePrefix: `birth${process.pid}:`,
      env: { DEPLOY_DAILY_CAP: '100' },
    })
    const store = createUpstashStore({ url: parts.upstash.url, token: parts.upstash.token })
    for (const label of ['maker', 'stranger'] as const) {
      const receiver = await startWebhookReceiver()
      const { key } = await issueAgentKey({ store, storePrefix: parts.env.STORE_KEY_PREFIX!, label })
      const { secret } = await setAgentWebhook({
        store,
        storePrefix: parts.env.STORE_KEY_PREFIX!,
        which: label,
        url: receiver.url,
        onVercel: false,
      })
      agents[label] = { key, secret: secret!, receiver }
    }
    service = await startNpmStart(parts.env)
    publicClient = parts.chain.publicClient as PublicClient
  }, 120_000)
  afterAll(async () => {
    await service?.stop()
    await Promise.all(Object.values(agents).map((a) => a.receiver.close()))
    await parts?.close()
  })

  const post = async (body: Record<string, unknown>, key = agents.maker.key) => {
    const response = await fetch(`${service.url}/api/b20-skill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-key': key },
      body: JSON.stringify(body),
    })
    return (await response.json()) as Record<string, any>
  }
  const deploy = (fields: Record<string, unknown>) => post({ action: 'agent_deploy', ...fields })
  const confirmed = (txHash: Hex) => post({ action: 'receipt', tx_hash: txHash, waitSeconds: 10 })

  it('lands each field on chain at 6 decimals, round-trips the metadata JSON and reports the mint in the receipt', async () => {
    const fields = {
      name: 'Qwzx Moss Relay',
      symbol: 'QMR7',
      decimals: 6,
      admin: ADMIN,
      initialSupply: '1000000.123456',
      supplyCap: '2000000',
      description: 'Points for the moss relay — “early” holders ✓',
      image: 'https://example.com/qmr7.png',
      website: 'https://example.com/qmr7',
    }
    const dry = await deploy({ ...fields, dryRun: true })
    const token = {
      name: fields.name,
      symbol: fields.symbol,
      variant: 'asset',
      decimals: 6,
      admin: ADMIN,
      initialSupply: '1000000.123456',
      supplyCap: '2000000',
      recipient: ADMIN,
      metadata: { description: fields.description, image: fields.image, website: fields.website },
    }
    expect(dry).toMatchObject({ ok: true, status: 'simulated', token })
    const sent = await deploy(fields)
    expect(sent).toMatchObject({ ok: true, status: 'broadcast', token })
    const receipt = await confirmed(sent.txHash)
    expect(receipt).toMatchObject({
      ok: true,
      status: 'confirmed',
      tokenAddress: sent.predictedAddress,
      token,
      minted: [{ to: ADMIN, amount: '1000000.123456', units: '1000000123456' }],
    })

    const onChain = tokenAt(publicClient, sent.predictedAddress)
    expect(await onChain.decimals()).toBe(6)
    expect(await onChain.balanceOf(ADMIN)).toBe(1_000_000_123_456n)
    expect(await onChain.totalSupply()).toBe(1_000_000_123_456n)
    expect(await onChain.supplyCap()).toBe(2_000_000_000_000n)
    expect(await onChain.hasRole(ROLES.admin, ADMIN)).toBe(true)
    expect(await onChain.hasRole(ROLES.mint, ADMIN)).toBe(true)
    // No power kept: the service's signer holds no role on the agent's token.
    for (const role of Object.values(ROLES)) expect(await onChain.hasRole(role, parts.signer)).toBe(false)
    const uri = await onChain.contractURI()
    expect(uri.startsWith('data:application/json;base64,')).toBe(true)
    expect(JSON.parse(Buffer.from(uri.slice('data:application/json;base64,'.length), 'base64').toString('utf8'))).toEqual({
      name: fields.name,
      symbol: fields.symbol,
      description: fields.description,
      image: fields.image,
      external_link: fields.website,
    })
  })

  it('scales 18 decimals and a stablecoin’s 6, mints to a recipient other than the admin, and sets Base’s sample cap', async () => {
    const asset = await deploy({ name: 'Lattice Fern 0x9', symbol: 'LF9', admin: ADMIN, recipient: HOLDER, initialSupply: '12.5' })
    expect((await confirmed(asset.txHash)).minted).toEqual([{ to: HOLDER, amount: '12.5', units: '12500000000000000000' }])
    const assetToken = tokenAt(publicClient, asset.predictedAddress)
    expect(await assetToken.balanceOf(HOLDER)).toBe(parseUnits('12.5', 18))
    expect(await assetToken.balanceOf(ADMIN)).toBe(0n)
    expect(await assetToken.supplyCap()).toBe(UINT128_MAX)
    expect(await assetToken.contractURI()).toBe('')

    // Base's stablecoin sample: the admin mints, the cap is 10,000,000 (10_000_000e6).
    const stable = await deploy({
      name: 'Kestrel Dollar',
      symbol: 'KUSD',
      variant: 'stablecoin',
      admin: ADMIN,
      supplyCap: '10000000',
      initialSupply: '250000.5',
    })
    expect(stable.token).toMatchObject({ decimals: 6, supplyCap: '10000000', initialSupply: '250000.5', recipient: ADMIN })
    expect((await confirmed(stable.txHash)).status).toBe('confirmed')
    const stableToken = tokenAt(publicClient, stable.predictedAddress)
    expect(await stableToken.supplyCap()).toBe(10_000_000n * 10n ** 6n)
    expect(await stableToken.balanceOf(ADMIN)).toBe(250_000_500_000n)
    expect(await stableToken.hasRole(ROLES.mint, ADMIN)).toBe(true)
  })

  it('creates a fixed supply with no admin and no minter: nobody, the service included, can mint or raise the cap', async () => {
    const sent = await deploy({ name: 'Sedge Fixed', symbol: 'SEDGE', fixedSupply: true, initialSupply: '21000000', recipient: HOLDER })
    expect(sent.token).toMatchObject({ admin: null, initialSupply: '21000000', supplyCap: '21000000', recipient: HOLDER })
    expect((await confirmed(sent.txHash)).token).toMatchObject({ admin: null, supplyCap: '21000000' })
    const token = tokenAt(publicClient, sent.predictedAddress)
    expect(await token.totalSupply()).toBe(parseUnits('21000000', 18))
    expect(await token.supplyCap()).toBe(parseUnits('21000000', 18))
    for (const account of [parts.signer, HOLDER, zeroAddress]) {
      for (const role of Object.values(ROLES)) expect(await token.hasRole(role, account as Address)).toBe(false)
    }
    for (const account of [parts.signer, HOLDER]) {
      for (const [functionName, args] of [
        ['mint', [account, 1n]],
        ['updateSupplyCap', [UINT128_MAX]],
        ['grantRole', [ROLES.mint, account]],
      ] as const) {
        await expect(
          publicClient.simulateContract({ account, address: sent.predictedAddress, abi: ib20Abi, functionName, args } as never),
        ).rejects.toThrow(/AccessControlUnauthorizedAccount/)
      }
    }
  })

  it('refuses every bad value with INVALID_INTENT naming the field, with no KMS call and no RPC call', async () => {
    const kmsCalls = parts.kms.calls.length
    const rpcCalls = parts.chain.rpcMethods.length
    const cases: [Record<string, unknown>, string][] = [
      [{ initialSupply: 'many', admin: ADMIN }, 'initialSupply'],
      [{ initialSupply: '-1', admin: ADMIN }, 'initialSupply'],
      [{ initialSupply: '0', admin: ADMIN }, 'initialSupply'],
      [{ decimals: 6, initialSupply: '0.0000001', admin: ADMIN }, 'initialSupply'],
      [{ initialSupply: '340282366920938463464', admin: ADMIN }, 'initialSupply'],
      [{ initialSupply: '10', supplyCap: '9', admin: ADMIN }, 'supplyCap'],
      [{ fixedSupply: true, initialSupply: '10', recipient: HOLDER, supplyCap: '10' }, 'supplyCap'],
      [{ fixedSupply: true, initialSupply: '10', recipient: HOLDER, admin: ADMIN }, 'admin'],
      [{ initialSupply: '10' }, 'recipient'],
      [{ image: 'http://example.com/a.png' }, 'image'],
      [{ website: 'javascript:alert(1)' }, 'website'],
      [{ website: 'https://me:secret@example.com' }, 'website'],
      [{ description: 'x'.repeat(501) }, 'description'],
    ]
    for (const [fields, field] of cases) {
      const answer = await deploy({ name: 'Bad Birth', symbol: 'BAD', ...fields })
      expect(answer, JSON.stringify(fields)).toMatchObject({ ok: false, code: 'INVALID_INTENT', error: expect.any(String) })
      expect(
        answer.details.map((d: { field: string }) => d.field),
        JSON.stringify(fields),
      ).toContain(field)
    }
    expect(parts.kms.calls.length).toBe(kmsCalls)
    expect(parts.chain.rpcMethods.length).toBe(rpcCalls)
  })

  it('lists the agent’s own events with their supply, redelivers one with the same webhook-id, and refuses another agent’s', async () => {
    const { receiver, secret } = agents.maker
    const sent = await deploy({ name: 'Event Born', symbol: 'EVB', admin: ADMIN, initialSupply: '7' })
    // Other cases deploy with this key too: wait for this deploy's own delivery.
    const ofThisDeploy = () => receiver.deliveries.filter((d) => JSON.parse(d.body).data.txHash === sent.txHash)
    await expect.poll(() => ofThisDeploy().length).toBeGreaterThan(0)
    const broadcast = ofThisDeploy()[0]
    expect(receiver.verify(broadcast!, secret, Date.now()).data).toMatchObject({
      txHash: sent.txHash,
      initialSupply: '7',
      supplyCap: null,
      recipient: ADMIN,
    })
    // The delivery is recorded just after the receiver answers.
    const listedEvent = async () =>
      ((await post({ action: 'list_events', limit: 100 })).events as { id: string }[]).find(
        (e) => e.id === broadcast!.headers['webhook-id'],
      )
    await expect.poll(listedEvent).toMatchObject({ type: 'deploy.broadcast', state: 'delivered', attempts: 1, lastStatus: 200 })
    const event = (await listedEvent())!
    const sameId = () => receiver.deliveries.filter((d) => d.headers['webhook-id'] === event.id)
    expect(await post({ action: 'redeliver', event_id: event.id })).toEqual({ ok: true, eventId: event.id, outcome: 'delivered' })
    await expect.poll(() => sameId().length).toBe(2)
    const again = sameId()[1]!
    expect(again.headers['webhook-id']).toBe(event.id)
    expect(receiver.verify(again, secret, Date.now()).data).toMatchObject({ txHash: sent.txHash, initialSupply: '7' })
    // Another agent neither sees it nor can have it sent.
    expect((await post({ action: 'list_events' }, agents.stranger.key)).events).toEqual([])
    expect(await post({ action: 'redeliver', event_id: event.id }, agents.stranger.key)).toMatchObject({
      ok: false,
      code: 'EVENT_NOT_FOUND',
    })
  })
})
