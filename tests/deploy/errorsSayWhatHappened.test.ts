import { createHash } from 'node:crypto'
import type { Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { digestAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { issueAgentKey } from '../../lib/deploy/agents/agentRegistry.js'
import { setAgentWebhook } from '../../lib/deploy/agents/webhookTargets.js'
import { idempotencyKey } from '../../lib/deploy/keys.js'
import { followDeploys } from '../../lib/deploy/pipeline/followDeploys.js'
import { AGENT_KEYS, type DeployStack, startDeployStack } from '../support/deployStack.js'
import { flakyStore } from '../support/flakyStore.js'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js'

// An answer says what happened: a store failure is STORE_UNAVAILABLE, anything else unexpected is INTERNAL with the
// request id, and a transaction that went out is never reported as "nothing was broadcast".

const deployBody = (symbol: string) => ({ action: 'agent_deploy', name: 'Honest Token', symbol })
const lines = (logs: string[]) => logs.map((line) => JSON.parse(line) as Record<string, unknown>)
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

describe('errors say what happened (anvil, KMS server, Upstash over redis-server)', () => {
  let stack: DeployStack
  let prefix: string
  const signs = () => stack.kms.calls.filter((c) => c === 'Sign').length
  const sends = () => stack.chain.rpcMethods.filter((m) => m === 'eth_sendRawTransaction').length

  beforeAll(async () => {
    stack = await startDeployStack({
      storeKind: 'upstash',
      redisSocket: inject('redisSocket'),
      env: { DEPLOY_DAILY_CAP: '1000', DEPLOY_STUCK_SECONDS: '60' },
    })
    prefix = stack.newInstance().services.config.storePrefix
  })
  afterAll(() => stack.close())

  it('answers a deploy that breaks on something other than the store INTERNAL, with its request id, and logs the error by name', async () => {
    // What Node 20 did to every deploy: the nonce lock's queue uses Promise.withResolvers, which it lacks.
    const withResolvers = Promise.withResolvers
    const [signsBefore, sendsBefore, logStart] = [signs(), sends(), stack.logs.length]
    Reflect.deleteProperty(Promise, 'withResolvers')
    let answer: Awaited<ReturnType<DeployStack['post']>>
    try {
      answer = await stack.post(deployBody('BROKE'))
    } finally {
      Promise.withResolvers = withResolvers
    }
    expect(answer.status).toBe(500)
    expect(answer.body).toEqual({
      ok: false,
      code: 'INTERNAL',
      error: expect.stringContaining(answer.headers.get('x-request-id')!),
      requestId: answer.headers.get('x-request-id'),
    })
    const logged = lines(stack.logs.slice(logStart))
    expect(logged).toContainEqual(
      expect.objectContaining({ event: 'agent_action_failed', error: 'TypeError', message: expect.stringContaining('withResolvers') }),
    )
    expect(logged.filter((line) => line.event === 'store_unavailable')).toEqual([])
    expect([signs(), sends()]).toEqual([signsBefore, sendsBefore])
    // Nothing was kept: the cap slot went back and the lock is free, so the same deploy goes through at once.
    expect((await stack.post(deployBody('BROKE'))).body).toMatchObject({ ok: true, status: 'broadcast' })
  })

  it('answers an Idempotency-Key whose stored record it cannot read as a conflict, not as Redis being down', async () => {
    const key = 'unreadable-record-0001'
    await stack.store.set(idempotencyKey(prefix, digestAgentKey(AGENT_KEYS.alice), sha256(key)), '{"from":"another version"', 60_000)
    const signsBefore = signs()
    const { body } = await stack.post(deployBody('ODD'), { idempotencyKey: key })
    expect(body).toMatchObject({ ok: false, code: 'IDEMPOTENCY_CONFLICT', error: expect.stringMatching(/cannot read.*new key/) })
    expect(signs()).toBe(signsBefore)
    // A new key is the way on.
    expect((await stack.post(deployBody('ODD'), { idempotencyKey: 'a-new-key-0002' })).body).toMatchObject({ ok: true })
  })

  it('answers a store failure inside the key check STORE_UNAVAILABLE, and only then', async () => {
    const down = stack.newInstance({ store: flakyStore(stack.store, () => true) })
    const stranger = { key: 'a-key-issued-at-runtime-perhaps-0000' }
    const { status, body } = await stack.post({ action: 'list_deploys' }, { key: stranger.key, instance: down.handle })
    expect([status, body.code]).toEqual([200, 'STORE_UNAVAILABLE'])
  })

  describe('a stuck deploy replaced just before the store fails', () => {
    let receiver: WebhookReceiver
    let agent: { key: string; secret: string }

    beforeAll(async () => {
      receiver = await startWebhookReceiver()
      const { key } = await issueAgentKey({ store: stack.store, storePrefix: prefix, label: 'honest' })
      const { secret } = await setAgentWebhook({
        store: stack.store,
        storePrefix: prefix,
        which: 'honest',
        url: receiver.url,
        onVercel: false,
      })
      agent = { key, secret: secret! }
    })
    afterAll(() => receiver.close())

    it('says the replacement went out, and its agent hears deploy.replaced', async () => {
      await stack.chain.testClient.setAutomine(false)
      try {
        stack.clock.now += 1000
        const stuck = (await stack.post(deployBody('STUCK'), { key: agent.key })).body as { txHash: Hex }
        expect(stuck).toMatchObject({ ok: true, status: 'broadcast' })
        await stack.drain()
        stack.clock.now += 61_000

        // The instance's store fails once, on the first call after the replacement is sent.
        const before = sends()
        let failed = false
        const failOnce = () => {
          if (failed || sends() === before) return false
          failed = true
          return true
        }
        const flaky = stack.newInstance({ store: flakyStore(stack.store, failOnce) })
        const { body } = await stack.post(deployBody('AFTER'), { key: agent.key, instance: flaky.handle })
        expect(failed).toBe(true)
        expect(sends()).toBe(before + 1) // the replacement, and nothing of the new deploy
        expect(body).toMatchObject({ ok: false, code: 'STORE_UNAVAILABLE', retryAfterSeconds: expect.any(Number) })
        expect(body.error).toContain(stuck.txHash)
        expect(body.error).toMatch(/broadcast/)
        expect(body.error).not.toMatch(/nothing was broadcast/)

        await stack.drain()
        const replaced = receiver.deliveries
          .map((delivery) => receiver.verify(delivery, agent.secret, stack.clock.now))
          .find((event) => event.type === 'deploy.replaced')
        expect(replaced?.data).toMatchObject({ txHash: stuck.txHash, replacedTxHash: stuck.txHash, replacementTxHash: expect.any(String) })

        // Mined, the tick's follow-up puts the record right: the receipt of the stuck hash follows its replacement.
        await stack.chain.testClient.mine({ blocks: 1 })
        await followDeploys(stack.newInstance().services)
        expect((await stack.post({ action: 'receipt', tx_hash: stuck.txHash }, { key: agent.key })).body).toMatchObject({
          status: 'replaced',
          replacedBy: replaced?.data.replacementTxHash,
          replacementStatus: 'confirmed',
        })
      } finally {
        await stack.chain.testClient.setAutomine(true)
      }
    })
  })
})
