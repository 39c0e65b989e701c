import type { Hex } from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import { KMS_DEADLINE_MS } from '../../lib/chain/kmsAccount.js'
import { type DeployStack, startDeployStack } from '../support/deployStack.js'
import { type ReadStack, startReadStack } from '../support/readStack.js'
import { type RedisServer, startRedisServer } from '../support/redisServer.js'
import { openRespConnection } from '../support/resp.js'
import { deployStackSecrets, findLeaks, recordAnswers } from '../support/secrets.js'

const deployBody = (symbol: string) => ({ action: 'agent_deploy', name: 'Fault Token', symbol })
type Logged = { event: string; [field: string]: unknown }
const events = (logs: string[]) => logs.map((l) => JSON.parse(l) as Logged)

// How long a fault takes to be answered is the deadlines' business (the KMS one runs on the stack's clock, which a case
// moves; the RPC's and the store's are their clients' own): the cases assert what is answered and what is left, never
// how long it took, so a loaded machine cannot fail them.

describe('KMS and RPC faults: clear codes, nothing broadcast, the cap slot and the lock given back', () => {
  let stack: DeployStack
  let redis: Awaited<ReturnType<typeof openRespConnection>>
  const capKey = () => `${stack.newInstance().services.config.storePrefix}deploy:8453:cap`
  const lockKey = () => `${stack.newInstance().services.config.storePrefix}deploy:8453:nonce-lock:${stack.signer.toLowerCase()}`
  const sentCount = () => stack.chain.rpcMethods.filter((m) => m === 'eth_sendRawTransaction').length

  /**
   * Runs a deploy that must fail with `code`: nothing sent, the slot back, the lock free at once. `meanwhile` runs once
   * the deploy is on its way (a case that moves the clock past a deadline does it there).
   */
  async function expectCleanFailure(code: string, symbol: string, meanwhile?: () => Promise<void>) {
    const capBefore = (await redis.send(['ZCARD', capKey()])) as number
    const sentBefore = sentCount()
    const posting = stack.post(deployBody(symbol))
    await meanwhile?.()
    expect((await posting).body).toMatchObject({ ok: false, code })
    expect(sentCount()).toBe(sentBefore)
    expect((await redis.send(['ZCARD', capKey()])) as number).toBe(capBefore)
    expect(await redis.send(['EXISTS', lockKey()])).toBe(0)
  }

  beforeAll(async () => {
    stack = recordAnswers(
      // The hung node's case waits for the chain client to give up: 3 s, twice.
      await startDeployStack({
        storeKind: 'upstash',
        redisSocket: inject('redisSocket'),
        env: { DEPLOY_DAILY_CAP: '1000' },
        rpcTimeoutMs: 3000,
      }),
      seenAnswers,
    )
    redis = await openRespConnection(inject('redisSocket'))
    await stack.post(deployBody('WARM')) // the chain-id check and GetPublicKey are behind us
  })
  afterAll(async () => {
    redis?.close()
    await stack?.close()
  })
  // Each case ends with a sweep for secrets over everything the stack logged and answered so far.
  afterEach(() => expectNoSecrets(stack))

  it('a KMS that accepts Sign and never answers: SIGNER_UNAVAILABLE once its 5 s deadline passes, the lock released at once', async () => {
    stack.kms.setFault('hang')
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    try {
      await expectCleanFailure('SIGNER_UNAVAILABLE', 'HANG', async () => {
        // The Sign call is out and unanswered; the deadline it was given passes on the stack's clock.
        await expect.poll(() => stack.kms.calls.filter((c) => c === 'Sign').length, { timeout: 20_000 }).toBeGreaterThan(signs)
        stack.clock.now += KMS_DEADLINE_MS
      })
    } finally {
      stack.kms.setFault(null)
    }
    // The next deploy does not wait for any lease: the lock was given back (checked above), and it goes out.
    expect((await stack.post(deployBody('AFTER'))).body).toMatchObject({ ok: true, status: 'broadcast' })
  }, 30_000)

  it.each([
    ['truncated', 'a truncated DER signature'],
    ['wrong-key', 'a signature by another key'],
  ] as const)('a KMS answering %s (%s): SIGNER_UNAVAILABLE, nothing broadcast', async (fault, _what) => {
    stack.kms.setFault(fault)
    try {
      await expectCleanFailure('SIGNER_UNAVAILABLE', 'GARB')
    } finally {
      stack.kms.setFault(null)
    }
    expect(events(stack.logs)).toContainEqual(expect.objectContaining({ event: 'kms_unavailable', operation: 'Sign' }))
  })

  it('a KMS key of the wrong curve: SIGNER_MISMATCH for the operator, nothing signed', async () => {
    stack.kms.setFault('wrong-curve')
    try {
      const fresh = stack.newInstance() // a new instance asks GetPublicKey
      const signs = stack.kms.calls.filter((c) => c === 'Sign').length
      const { body } = await stack.post(deployBody('CURVE'), { instance: fresh.handle })
      expect(body).toMatchObject({ ok: false, code: 'SIGNER_MISMATCH', error: expect.stringMatching(/secp256k1/) })
      expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
    } finally {
      stack.kms.setFault(null)
    }
  })

  it('an RPC that accepts and never answers: RPC_UNAVAILABLE once its client gives up, nothing signed', async () => {
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    stack.chain.setRpcFault('hang')
    try {
      await expectCleanFailure('RPC_UNAVAILABLE', 'RHANG')
    } finally {
      stack.chain.setRpcFault(null)
    }
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
  }, 20_000)

  it.each([['reset' as const], ['down' as const]])('an RPC that %s: RPC_UNAVAILABLE at once, nothing signed', async (mode) => {
    if (mode === 'down') stack.chain.setRpcDown(true)
    else stack.chain.setRpcFault('reset')
    try {
      await expectCleanFailure('RPC_UNAVAILABLE', 'RDOWN')
    } finally {
      stack.chain.setRpcDown(false)
      stack.chain.setRpcFault(null)
    }
  })

  it('a lost broadcast answer: BROADCAST_UNCERTAIN with the hash, the receipt confirms it, the next deploy takes the next nonce', async () => {
    stack.chain.dropNextAnswer('eth_sendRawTransaction')
    const lost = (await stack.post(deployBody('LOST'))).body
    expect(lost).toMatchObject({ ok: false, code: 'BROADCAST_UNCERTAIN', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
    // The node may still be mining it on a busy machine: ask as an agent polls, until it answers confirmed.
    await expect
      .poll(async () => (await stack.post({ action: 'receipt', tx_hash: lost.txHash })).body, { timeout: 10_000 })
      .toMatchObject({ ok: true, status: 'confirmed' })
    const next = (await stack.post(deployBody('NEXT'))).body
    expect(next).toMatchObject({ ok: true, status: 'broadcast' })
    const [a, b] = await Promise.all([lost.txHash, next.txHash].map((hash: Hex) => stack.chain.publicClient.getTransaction({ hash })))
    expect(b!.nonce).toBe(a!.nonce + 1)
  })

  it('an RPC restarted on another chain id: CHAIN_MISMATCH, nothing signed, even with the first check passed long ago', async () => {
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    await stack.chain.testClient.request({ method: 'anvil_setChainId', params: [1] } as never)
    try {
      await expectCleanFailure('CHAIN_MISMATCH', 'CHAIN')
      expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
    } finally {
      await stack.chain.testClient.request({ method: 'anvil_setChainId', params: [8453] } as never)
    }
    expect((await stack.post(deployBody('BACK'))).body).toMatchObject({ ok: true })
  })
})

/** Every answer body and header the fault scenarios got, for the secrets check. */
const seenAnswers: string[] = []

/** Asserts that no secret appears in any log line of the stack or any answer seen. */
function expectNoSecrets(stack: DeployStack) {
  expect(findLeaks([...stack.logs, ...seenAnswers], deployStackSecrets(stack))).toEqual([])
  expect(stack.logs.length).toBeGreaterThan(0) // the check saw real traffic
}

describe('Redis stops during a burst of deploys, then returns', () => {
  let redisServer: RedisServer
  let stack: DeployStack
  let reads: ReadStack

  beforeAll(async () => {
    redisServer = await startRedisServer()
    ;[stack, reads] = await Promise.all([
      startDeployStack({ storeKind: 'upstash', redisSocket: redisServer.socket, env: { DEPLOY_DAILY_CAP: '1000' } }).then((s) =>
        recordAnswers(s, seenAnswers),
      ),
      startReadStack({ storeKind: 'upstash', redisSocket: redisServer.socket }),
    ])
    await stack.post(deployBody('WARM'))
  })
  afterAll(async () => {
    await Promise.all([stack?.close(), reads?.close()])
    await redisServer?.stop()
  })

  it('fails closed with STORE_UNAVAILABLE, reads keep answering, and deploys recover without a restart', async () => {
    const sentBefore = stack.chain.rpcMethods.filter((m) => m === 'eth_sendRawTransaction').length
    const signsBefore = stack.kms.calls.filter((c) => c === 'Sign').length
    const burst = Array.from({ length: 12 }, (_, i) => stack.post(deployBody(`B${i}`)))
    // Redis goes away once the burst is under way: after its first signature, with the others still queued.
    await expect
      .poll(() => stack.kms.calls.filter((c) => c === 'Sign').length, { timeout: 10_000, interval: 5 })
      .toBeGreaterThan(signsBefore)
    await redisServer.pause()
    const answers = await Promise.all(burst)
    const failed = answers.filter((a) => !a.body.ok)
    expect(failed.length).toBeGreaterThan(0)
    for (const a of failed) expect(a.body.code).toBe('STORE_UNAVAILABLE')

    // While Redis is down: a deploy fails closed fast; reads answer (uncached).
    const during = await stack.post(deployBody('DOWN'))
    expect(during.body).toMatchObject({ ok: false, code: 'STORE_UNAVAILABLE' })
    const read = await reads.controlRoom(new Request('https://svc.test/api/control-room'))
    expect(read.status).toBe(200)

    // Every transaction sent was answered as sent, and nothing answered as failed went out.
    const sent = stack.chain.rpcMethods.filter((m) => m === 'eth_sendRawTransaction').length - sentBefore
    expect(answers.filter((a) => a.body.ok)).toHaveLength(sent)
    expect(stack.kms.calls.filter((c) => c === 'Sign').length - signsBefore).toBeGreaterThanOrEqual(sent)

    // Redis returns (empty, as after a restart without persistence): deploys go through, same process.
    await redisServer.resume()
    const after = await stack.post(deployBody('BACK'))
    expect(after.body).toMatchObject({ ok: true, status: 'broadcast' })
    expect(events(stack.logs)).toContainEqual(expect.objectContaining({ event: 'store_unavailable' }))
    expectNoSecrets(stack)
  }, 30_000)
})
