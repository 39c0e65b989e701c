import { type Hex, parseGwei } from 'viem'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { AGENT_KEYS, type DeployStack, startDeployStack } from '../support/deployStack.js'

const deployBody = (over: Record<string, unknown> = {}) => ({ action: 'agent_deploy', name: 'History Token', symbol: 'HIST', ...over })
const HOLDER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
type Logged = { event: string; [field: string]: unknown }
const events = (logs: string[]) => logs.map((l) => JSON.parse(l) as Logged)

describe('list_deploys: each agent sees its own deploys (anvil, KMS server, real Redis)', () => {
  let stack: DeployStack
  beforeAll(async () => {
    stack = await startDeployStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), env: { DEPLOY_DAILY_CAP: '1000' } })
  })
  afterAll(() => stack.close())

  it('lists the agent’s deploys newest first with their fields; dry runs and refused deploys are not deploys', async () => {
    // A history of its own (another store prefix): the other cases' deploys are not in it.
    const own = stack.newInstance({ env: { STORE_KEY_PREFIX: `hist${process.pid}-${Date.now()}:` } })
    const post = (body: unknown, options: { key?: string | null } = {}) => stack.post(body, { ...options, instance: own.handle })
    const first = (await post(deployBody({ symbol: 'ONE' }))).body
    stack.clock.now += 1000
    const second = (await post(deployBody({ symbol: 'TWO', variant: 'stablecoin', initialSupply: '1000000.25', recipient: HOLDER }))).body
    stack.clock.now += 1000
    await post(deployBody({ symbol: 'DRY', dryRun: true }))
    await post(deployBody({ symbol: 'BAD', admin: '0x0000000000000000000000000000000000000000' }))
    const bobs = (await post(deployBody({ symbol: 'BOB' }), { key: AGENT_KEYS.bob })).body

    const listed = await post({ action: 'list_deploys' })
    expect(listed.status).toBe(200)
    expect(listed.body).toEqual({
      ok: true,
      deploys: [
        {
          txHash: second.txHash,
          kind: 'deploy',
          predictedAddress: second.predictedAddress,
          name: 'History Token',
          symbol: 'TWO',
          variant: 'stablecoin',
          initialSupply: '1000000.25',
          supplyCap: null,
          recipient: HOLDER,
          createdAt: expect.any(String),
          status: 'broadcast',
          market: null,
        },
        {
          txHash: first.txHash,
          kind: 'deploy',
          predictedAddress: first.predictedAddress,
          name: 'History Token',
          symbol: 'ONE',
          variant: 'asset',
          initialSupply: null,
          supplyCap: null,
          recipient: null,
          createdAt: expect.any(String),
          status: 'broadcast',
          market: null,
        },
      ],
    })
    expect(Date.parse(listed.body.deploys[0].createdAt) - Date.parse(listed.body.deploys[1].createdAt)).toBe(1000)

    // Bob sees only Bob's; the limit cuts from the newest.
    expect((await post({ action: 'list_deploys' }, { key: AGENT_KEYS.bob })).body.deploys.map((d: { txHash: Hex }) => d.txHash)).toEqual([
      bobs.txHash,
    ])
    expect((await post({ action: 'list_deploys', limit: 1 })).body.deploys.map((d: { symbol: string }) => d.symbol)).toEqual(['TWO'])
  })

  it('shows the last known status once a receipt saw the deploy mined', async () => {
    stack.clock.now += 1000 // the newest deploy of the history is this one
    const { txHash } = (await stack.post(deployBody({ symbol: 'SEEN' }))).body
    expect((await stack.post({ action: 'receipt', tx_hash: txHash })).body).toMatchObject({ status: 'confirmed' })
    const [newest] = (await stack.post({ action: 'list_deploys', limit: 1 })).body.deploys
    expect(newest).toMatchObject({ txHash, status: 'confirmed' })
  })

  it('refuses a bad limit, unknown fields and callers without a key, listing nothing', async () => {
    for (const limit of [0, 101, 2.5, '5']) {
      expect((await stack.post({ action: 'list_deploys', limit })).body).toMatchObject({
        ok: false,
        code: 'INVALID_INTENT',
        details: [{ field: 'limit' }],
      })
    }
    expect((await stack.post({ action: 'list_deploys', agent: 'bob' })).body).toMatchObject({
      ok: false,
      code: 'INVALID_INTENT',
      details: [{ field: 'agent', reason: 'is not a known field' }],
    })
    const anonymous = await stack.post({ action: 'list_deploys' }, { key: null })
    expect(anonymous.status).toBe(403)
    expect(anonymous.body).toMatchObject({ code: 'FORBIDDEN' })
  })

  it('keeps the history 30 days and bounded per agent in the store', async () => {
    expect((await stack.post(deployBody({ symbol: 'KEPT' }))).body).toMatchObject({ ok: true })
    const prefix = stack.newInstance().services.config.storePrefix
    const { digestAgentKey } = await import('../../lib/deploy/agents/agentKeys.js')
    const { openRespConnection } = await import('../support/resp.js')
    const redis = await openRespConnection(inject('redisSocket'))
    try {
      const ttl = (await redis.send(['PTTL', `${prefix}deploy:8453:history:${digestAgentKey(AGENT_KEYS.alice)}`])) as number
      expect(ttl).toBeGreaterThan(29 * 86_400_000)
      expect(ttl).toBeLessThanOrEqual(30 * 86_400_000)
    } finally {
      redis.close()
    }
  })
})

describe('receipt with waitSeconds', () => {
  let stack: DeployStack
  beforeAll(async () => {
    stack = await startDeployStack({
      storeKind: 'upstash',
      redisSocket: inject('redisSocket'),
      env: { DEPLOY_DAILY_CAP: '1000' },
      receiptPollMs: 300,
    })
  })
  afterAll(() => stack.close())

  it('answers as soon as the transaction is mined, polling the chain at most once per block interval', async () => {
    await stack.chain.testClient.setAutomine(false)
    try {
      const { txHash } = (await stack.post(deployBody({ symbol: 'WAIT' }))).body
      const before = stack.chain.rpcMethods.length
      const answered = stack.post({ action: 'receipt', tx_hash: txHash, waitSeconds: 20 })
      // Three block intervals pass on the service's clock with the transaction unmined: one look at its receipt each.
      for (let interval = 0; interval < 3; interval++) {
        await expect.poll(() => stack.clock.sleeping).toBe(1)
        stack.clock.now += 300
      }
      await expect.poll(() => stack.clock.sleeping).toBe(1)
      await stack.chain.testClient.mine({ blocks: 1 })
      stack.clock.now += 300
      const { body } = await answered
      expect(body).toMatchObject({ ok: true, status: 'confirmed', txHash, tokenAddress: expect.any(String) })
      // One receipt request per interval (4), and the full look that answers.
      const receiptPolls = stack.chain.rpcMethods.slice(before).filter((m) => m === 'eth_getTransactionReceipt').length
      expect(receiptPolls).toBe(5)
    } finally {
      await stack.chain.testClient.setAutomine(true)
    }
  })

  it('answers pending, with how long, when the time is up', async () => {
    await stack.chain.testClient.setAutomine(false)
    try {
      const { txHash } = (await stack.post(deployBody({ symbol: 'SLOW' }))).body
      stack.clock.now += 42_000
      const answered = stack.post({ action: 'receipt', tx_hash: txHash, waitSeconds: 1 })
      await expect.poll(() => stack.clock.sleeping).toBe(1)
      stack.clock.now += 1000
      expect((await answered).body).toEqual({ ok: true, status: 'pending', txHash, explorerUrl: expect.any(String), pendingSeconds: 43 })
      expect(stack.clock.sleeping).toBe(0)
    } finally {
      await stack.chain.testClient.mine({ blocks: 1 })
      await stack.chain.testClient.setAutomine(true)
    }
  })

  it('refuses waitSeconds outside 0-25', async () => {
    const txHash = `0x${'ab'.repeat(32)}`
    for (const waitSeconds of [-1, 26, 1.5, '3']) {
      expect((await stack.post({ action: 'receipt', tx_hash: txHash, waitSeconds })).body).toMatchObject({
        ok: false,
        code: 'INVALID_INTENT',
        details: [{ field: 'waitSeconds' }],
      })
    }
  })
})

describe('a deploy stuck in the pool is replaced, never left to jam the nonce stream', () => {
  let stack: DeployStack
  beforeAll(async () => {
    stack = await startDeployStack({
      storeKind: 'upstash',
      redisSocket: inject('redisSocket'),
      env: { DEPLOY_DAILY_CAP: '1000', DEPLOY_STUCK_SECONDS: '60' },
      receiptPollMs: 200,
    })
  })
  afterAll(() => stack.close())

  /** Sends a deploy while mining is paused: it sits in the pool, as an underpriced one does after a base-fee jump. */
  async function stuckDeploy(symbol: string) {
    await stack.chain.testClient.setAutomine(false)
    const sent = (await stack.post(deployBody({ symbol }))).body
    expect(sent).toMatchObject({ ok: true, status: 'broadcast' })
    expect((await stack.chain.publicClient.getTransaction({ hash: sent.txHash })).blockNumber).toBeNull()
    return sent as { txHash: Hex; predictedAddress: Hex }
  }

  it('re-signs the stuck transaction with higher fees; the replacement is mined, the original never, the next deploy goes through', async () => {
    stack.clock.now += 1000 // after whatever earlier cases sent, so the history's order is this case's
    const stuck = await stuckDeploy('JAM')
    const logStart = stack.logs.length // what earlier cases logged is theirs
    const capKey = `${stack.newInstance().services.config.storePrefix}deploy:8453:cap`
    const { openRespConnection } = await import('../support/resp.js')
    const redis = await openRespConnection(inject('redisSocket'))
    try {
      const capBefore = (await redis.send(['ZCARD', capKey])) as number
      const original = await stack.chain.publicClient.getTransaction({ hash: stuck.txHash })

      // Younger than DEPLOY_STUCK_SECONDS it is left alone: the next deploy queues behind it.
      stack.clock.now += 30_000
      const queued = await stack.post(deployBody({ symbol: 'QUEUED' }))
      expect(queued.body).toMatchObject({ ok: true, status: 'broadcast' })
      expect(events(stack.logs.slice(logStart)).filter((e) => e.event === 'deploy_replaced')).toEqual([])

      // Past it, the next deploy replaces it first, then goes out behind the replacement; mining resumes.
      stack.clock.now += 31_000
      const next = await stack.post(deployBody({ symbol: 'NEXT' }))
      expect(next.body).toMatchObject({ ok: true, status: 'broadcast' })
      await stack.chain.testClient.mine({ blocks: 1 })
      await stack.chain.testClient.setAutomine(true)
      const replaced = events(stack.logs.slice(logStart)).find((e) => e.event === 'deploy_replaced' && e.txHash === stuck.txHash)
      expect(replaced).toMatchObject({ txHash: stuck.txHash, nonce: original.nonce })
      const replacement = await stack.chain.publicClient.getTransaction({ hash: replaced!.replacedBy as Hex })
      expect(replacement.nonce).toBe(original.nonce)
      expect(replacement.input).toBe(original.input)
      expect(replacement.gas).toBe(original.gas)
      expect(replacement.maxFeePerGas! * 1000n).toBeGreaterThanOrEqual(original.maxFeePerGas! * 1125n)
      expect(replacement.maxPriorityFeePerGas! * 1000n).toBeGreaterThanOrEqual(original.maxPriorityFeePerGas! * 1125n)
      expect(replacement.maxFeePerGas!).toBeLessThanOrEqual(parseGwei('5'))
      expect(replacement.blockNumber).not.toBeNull()

      // The receipt of the original follows the replacement to the token, at the address predicted at first.
      const receipt = (await stack.post({ action: 'receipt', tx_hash: stuck.txHash })).body
      expect(receipt).toMatchObject({
        ok: true,
        status: 'replaced',
        txHash: stuck.txHash,
        replacedBy: replacement.hash,
        replacementStatus: 'confirmed',
        tokenAddress: stuck.predictedAddress,
      })
      await expect(stack.chain.publicClient.getTransactionReceipt({ hash: stuck.txHash })).rejects.toThrow()
      expect((await stack.post({ action: 'receipt', tx_hash: next.body.txHash, waitSeconds: 5 })).body).toMatchObject({
        status: 'confirmed',
      })

      // The cap counts each deploy once, the replacement not at all; the history says what happened.
      expect(((await redis.send(['ZCARD', capKey])) as number) - capBefore).toBe(2)
      const { deploys } = (await stack.post({ action: 'list_deploys', limit: 3 })).body
      expect(deploys).toMatchObject([
        { txHash: next.body.txHash, symbol: 'NEXT' },
        { txHash: queued.body.txHash, symbol: 'QUEUED', status: 'broadcast' },
        { txHash: stuck.txHash, symbol: 'JAM', status: 'replaced', replacedBy: replacement.hash },
      ])
    } finally {
      redis.close()
    }
  })

  it('does not replace above DEPLOY_MAX_FEE_GWEI: the deploy answers DEPLOY_BUSY with the reason, the operator gets a log line', async () => {
    const stuck = await stuckDeploy('CAPPED')
    stack.clock.now += 61_000
    const capped = stack.newInstance({ env: { DEPLOY_MAX_FEE_GWEI: '0.5' } })
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    const { body } = await stack.post(deployBody({ symbol: 'WAITS' }), { instance: capped.handle })
    expect(body).toMatchObject({ ok: false, code: 'DEPLOY_BUSY', txHash: stuck.txHash, error: expect.stringMatching(/stuck.*cap/) })
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
    expect(events(stack.logs)).toContainEqual(expect.objectContaining({ event: 'deploy_replacement_over_cap', txHash: stuck.txHash }))

    // With the default cap the same request goes through, replacing it first.
    expect((await stack.post(deployBody({ symbol: 'WAITS' }))).body).toMatchObject({ ok: true, status: 'broadcast' })
    await stack.chain.testClient.mine({ blocks: 1 })
    await stack.chain.testClient.setAutomine(true)
    expect((await stack.post({ action: 'receipt', tx_hash: stuck.txHash, waitSeconds: 5 })).body).toMatchObject({
      status: 'replaced',
      replacementStatus: 'confirmed',
    })
  })
})
