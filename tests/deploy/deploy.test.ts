import { type Hex, keccak256, type PublicClient, toHex } from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, onTestFinished, vi } from 'vitest'
import { B20_FACTORY_ADDRESS, b20FactoryAbi, encodeCreateB20, MINT_ROLE, predictB20Address } from '../../lib/chain/b20.js'
import { fencesKeyOf } from '../../lib/deploy/sender/nonceFence.js'
import { defineScript } from '../../lib/store/types.js'
import { ROLES, tokenAt } from '../support/b20Token.js'
import { AGENT_KEYS, type DeployStack, startDeployStack } from '../support/deployStack.js'
import { deployStackSecrets, findLeaks, recordAnswers } from '../support/secrets.js'

const deployBody = (over: Record<string, unknown> = {}) => ({ action: 'agent_deploy', name: 'Test Token', symbol: 'TEST', ...over })

describe('POST /api/b20-skill on anvil (chain 8453) with the B20 emulator, the KMS server and real Redis', () => {
  let stack: DeployStack
  beforeAll(async () => {
    stack = recordAnswers(
      await startDeployStack({ storeKind: 'upstash', redisSocket: inject('redisSocket'), env: { DEPLOY_DAILY_CAP: '1000' } }),
      answers,
    )
  })
  afterAll(() => stack.close())
  const answers: string[] = []
  // Each case ends with a sweep of every log line, answer body and header so far for an agent key, an AWS secret or
  // a Redis token: whichever cases run, and in whatever order, each is checked.
  afterEach(() => {
    expect(answers.length).toBeGreaterThan(0) // the sweep saw real traffic
    expect(findLeaks([...stack.logs, ...answers], deployStackSecrets(stack))).toEqual([])
  })

  it('deploys: simulated, KMS-signed, broadcast, mined, and the receipt gives the token address', async () => {
    const salt = toHex(1234n, { size: 32 })
    const { status, body } = await stack.post(deployBody({ salt }))
    expect(status).toBe(200)
    expect(Object.keys(body)).toEqual(['ok', 'status', 'txHash', 'predictedAddress', 'explorerUrl', 'token', 'signer', 'chainId'])
    expect(body).toMatchObject({
      ok: true,
      status: 'broadcast',
      predictedAddress: predictB20Address('asset', stack.signer, salt),
      explorerUrl: `https://basescan.org/tx/${body.txHash}`,
      token: {
        name: 'Test Token',
        symbol: 'TEST',
        variant: 'asset',
        decimals: 18,
        admin: stack.signer,
        minter: stack.signer,
        initialSupply: null,
        supplyCap: null,
        recipient: null,
        metadata: null,
      },
      signer: stack.signer,
      chainId: 8453,
    })
    expect(body.txHash).toMatch(/^0x[0-9a-f]{64}$/)

    // The transaction on chain is signed by the KMS key, low-s, to the factory, with no value.
    const tx = await stack.chain.publicClient.getTransaction({ hash: body.txHash })
    expect(tx.from.toLowerCase()).toBe(stack.signer.toLowerCase())
    expect(tx.to?.toLowerCase()).toBe(B20_FACTORY_ADDRESS.toLowerCase())
    expect(tx.value).toBe(0n)
    expect(tx.chainId).toBe(8453)
    expect(BigInt(tx.s!)).toBeLessThanOrEqual(0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n)

    // The answer says broadcast, not mined: wait for the node's block as an agent would, then ask.
    await stack.chain.publicClient.waitForTransactionReceipt({ hash: body.txHash })
    const receipt = await stack.post({ action: 'receipt', tx_hash: body.txHash })
    expect(receipt.body).toEqual({
      ok: true,
      status: 'confirmed',
      txHash: body.txHash,
      tokenAddress: body.predictedAddress,
      blockNumber: expect.any(Number),
      explorerUrl: body.explorerUrl,
      token: {
        name: 'Test Token',
        symbol: 'TEST',
        decimals: 18,
        variant: 'asset',
        admin: stack.signer,
        minter: stack.signer,
        initialSupply: null,
        supplyCap: null,
        recipient: null,
        metadata: null,
      },
      minted: [],
      // Not trading yet: the tick has seen no pair for it.
      market: null,
    })
    // The admin (the signer by default) holds the mint role, through the grantRole initCall, read at the token itself.
    const token = tokenAt(stack.chain.publicClient as PublicClient, body.predictedAddress)
    expect(await token.hasRole(MINT_ROLE, stack.signer)).toBe(true)
    expect(await token.hasRole(ROLES.admin, stack.signer)).toBe(true)
    expect(await token.totalSupply()).toBe(0n)
    expect(await token.supplyCap()).toBe(2n ** 128n - 1n)
    const factoryAgrees = await stack.chain.publicClient.readContract({
      address: B20_FACTORY_ADDRESS,
      abi: b20FactoryAbi,
      functionName: 'getB20Address',
      args: [0, stack.signer, salt],
    })
    expect(factoryAgrees).toBe(body.predictedAddress)
  })

  const lockKey = () => `${stack.newInstance().services.config.storePrefix}deploy:8453:nonce-lock:${stack.signer.toLowerCase()}`
  // Every transaction the node has accepted, mined or not: anvil's automine may mine a moment after the send answers,
  // so the latest block's count can lag under load.
  const nonce = () => stack.chain.publicClient.getTransactionCount({ address: stack.signer, blockTag: 'pending' })
  const freshPrefix = () => ({ STORE_KEY_PREFIX: `t${Math.random().toString(36).slice(2, 10)}:` })

  it('deploys a stablecoin with 6 decimals and USD by default, and the receipt says so', async () => {
    const { body } = await stack.post(deployBody({ variant: 'stablecoin', decimals: 18, name: 'Test Dollar', symbol: 'TUSD' }))
    expect(body).toMatchObject({ ok: true, token: { variant: 'stablecoin', decimals: 6 } })
    expect(body.predictedAddress.toLowerCase().startsWith('0xb200000000000000000001')).toBe(true)
    // Broadcast is not mined: one whole CI run asked before anvil's block and got "pending".
    await stack.chain.publicClient.waitForTransactionReceipt({ hash: body.txHash })
    const receipt = await stack.post({ action: 'receipt', tx_hash: body.txHash })
    expect(receipt.body).toMatchObject({
      status: 'confirmed',
      tokenAddress: body.predictedAddress,
      token: { variant: 'stablecoin', decimals: 6, symbol: 'TUSD' },
    })
  })

  it('makes the named admin the admin and the mint-role holder', async () => {
    const admin = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
    const { body } = await stack.post(deployBody({ admin }))
    expect(body.ok).toBe(true)
    // The answer says broadcast, not mined: anvil mines the transaction just after it takes it, and on a busy machine a
    // read at once could come first (one whole run read the role before the block).
    await stack.chain.publicClient.waitForTransactionReceipt({ hash: body.txHash })
    const token = tokenAt(stack.chain.publicClient as PublicClient, body.predictedAddress)
    expect(await token.hasRole(MINT_ROLE, admin)).toBe(true)
    expect(await token.hasRole(ROLES.admin, admin)).toBe(true)
    // No power kept: the service's own signer holds no role on the token.
    for (const role of Object.values(ROLES)) expect(await token.hasRole(role, stack.signer)).toBe(false)
  })

  it.each([
    ['no key', null],
    ['a key not on the allowlist', 'not-an-allowlisted-key'],
    ['an allowlisted digest sent as the key', '0'.repeat(64)],
  ])('answers 403 for %s, and touches no KMS or chain; the store at most once a second, for keys issued at runtime', async (_, key) => {
    const kmsCalls = stack.kms.calls.length
    const rpcCalls = stack.chain.rpcMethods.length
    const storeCalls = stack.upstash!.commands.length
    // A burst of the same refusal: the instance reads the registry of runtime keys once (its index and its records:
    // two commands at most), and only for a key it does not know; no key at all costs nothing.
    for (let i = 0; i < 20; i++) {
      const { status, body } = await stack.post('{ not even json', { key })
      expect(status).toBe(403)
      expect(body).toEqual({ ok: false, error: expect.any(String), code: 'FORBIDDEN' })
    }
    expect(stack.kms.calls.length).toBe(kmsCalls)
    expect(stack.chain.rpcMethods.length).toBe(rpcCalls)
    expect(stack.upstash!.commands.length - storeCalls).toBeLessThanOrEqual(key === null ? 0 : 2)
  })

  it('answers 204 to a preflight and 405 with Allow to other methods', async () => {
    expect((await stack.handle(new Request('https://svc.test/api/b20-skill', { method: 'OPTIONS' }))).status).toBe(204)
    const get = await stack.handle(new Request('https://svc.test/api/b20-skill'))
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST, OPTIONS')
  })

  it('answers 413 above 16 KiB, 400 for a body that is not JSON or not sent as JSON', async () => {
    const big = await stack.post(deployBody({ name: 'x'.repeat(17_000) }))
    expect(big.status).toBe(413)
    expect(big.body).toMatchObject({ ok: false, code: 'BODY_TOO_LARGE' })
    const bad = await stack.post('{"action":')
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ ok: false, code: 'INVALID_JSON', error: expect.any(String) })
    const form = await stack.handle(
      new Request('https://svc.test/api/b20-skill', {
        method: 'POST',
        headers: { 'x-service-key': AGENT_KEYS.alice, 'content-type': 'text/plain' },
        body: '{}',
      }),
    )
    expect(form.status).toBe(400)
    expect(await form.json()).toMatchObject({ ok: false, code: 'UNSUPPORTED_CONTENT_TYPE' })
  })

  it('answers an unknown action with ok: false and details', async () => {
    const { status, body } = await stack.post({ action: 'burn' })
    expect(status).toBe(200)
    expect(body).toEqual({
      ok: false,
      error: expect.any(String),
      code: 'UNKNOWN_ACTION',
      details: [{ field: 'action', reason: expect.any(String) }],
    })
  })

  it('lists every problem of an invalid intent and sends nothing', async () => {
    const rpcCalls = stack.chain.rpcMethods.length
    const { body } = await stack.post({ action: 'agent_deploy', name: '', symbol: 'BAD-SYMBOL!', decimals: 40, colour: 'red' })
    expect(body).toMatchObject({ ok: false, code: 'INVALID_INTENT' })
    expect(body.details.map((d: { field: string }) => d.field).sort()).toEqual(['colour', 'decimals', 'name', 'symbol'])
    expect(stack.chain.rpcMethods.length).toBe(rpcCalls)
  })

  it('says so when no signer is configured', async () => {
    const { handle } = stack.newInstance({ env: { KMS_KEY_ID: '' } })
    const { body } = await stack.post(deployBody(), { instance: handle })
    expect(body).toMatchObject({ ok: false, code: 'SIGNER_NOT_CONFIGURED', error: expect.stringContaining('signer is not configured') })
  })

  it('refuses to deploy when SIGNER_ADDRESS does not match the KMS key', async () => {
    const { handle } = stack.newInstance({ env: { SIGNER_ADDRESS: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' } })
    const { body } = await stack.post(deployBody(), { instance: handle })
    expect(body).toMatchObject({ ok: false, code: 'SIGNER_MISMATCH' })
    const matching = stack.newInstance({ env: { SIGNER_ADDRESS: stack.signer.toLowerCase() } })
    expect((await stack.post(deployBody(), { instance: matching.handle })).body.ok).toBe(true)
  })

  it('refuses to sign when the RPC serves another chain than CHAIN_ID', async () => {
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    const { handle } = stack.newInstance({ env: { CHAIN_ID: '84532' } })
    const { body } = await stack.post(deployBody(), { instance: handle })
    expect(body).toMatchObject({ ok: false, code: 'CHAIN_MISMATCH', error: expect.stringContaining('8453') })
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
  })

  it('rejects a reverting deploy before signing, with the decoded B20 error, no gas spent and the cap untouched', async () => {
    const env = { ...freshPrefix(), DEPLOY_DAILY_CAP: '1' }
    const { handle } = stack.newInstance({ env })
    const salt = toHex(777n, { size: 32 })
    const first = await stack.post(deployBody({ salt }), { instance: handle })
    expect(first.body.ok).toBe(true)
    const other = stack.newInstance({ env: { ...freshPrefix(), DEPLOY_DAILY_CAP: '1' } })
    const before = await nonce()
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    const again = await stack.post(deployBody({ salt }), { instance: other.handle })
    expect(again.body).toEqual({
      ok: false,
      code: 'SIMULATION_REVERTED',
      error: expect.stringContaining('TokenAlreadyExists'),
      revert: { name: 'TokenAlreadyExists', args: { token: first.body.predictedAddress } },
    })
    expect(await nonce()).toBe(before)
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
    // The reverted attempt did not use the cap of 1.
    expect((await stack.post(deployBody(), { instance: other.handle })).body.ok).toBe(true)
  })

  it('refuses a variant the ActivationRegistry has off with VARIANT_NOT_ACTIVE, a dry run too, before any simulation or signature', async () => {
    const feature = keccak256(toHex('base.b20_stablecoin'))
    // An instance that read the registry while the variant was on keeps that a few minutes: the simulation decides then.
    const earlier = stack.newInstance()
    expect((await stack.post(deployBody({ variant: 'stablecoin', dryRun: true }), { instance: earlier.handle })).body.ok).toBe(true)
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    const before = await nonce()
    await stack.chain.setVariantActivated('stablecoin', false)
    try {
      const fresh = stack.newInstance()
      const calls = stack.chain.rpcMethods.length
      for (const dryRun of [false, true]) {
        const { status, body } = await stack.post(deployBody({ variant: 'stablecoin', dryRun }), { instance: fresh.handle })
        expect(status).toBe(200)
        expect(body).toEqual({
          ok: false,
          code: 'VARIANT_NOT_ACTIVE',
          error: expect.stringMatching(/stablecoin variant is not activated.*nothing was simulated or signed/),
        })
      }
      // Two questions to the registry (one per variant), asked once for both requests; no simulation.
      expect(stack.chain.rpcMethods.slice(calls).filter((m) => m === 'eth_call')).toHaveLength(2)
      // The other variant still deploys.
      expect((await stack.post(deployBody({ dryRun: true }), { instance: fresh.handle })).body).toMatchObject({ ok: true })

      const { body } = await stack.post(deployBody({ variant: 'stablecoin' }), { instance: earlier.handle })
      expect(body).toMatchObject({ ok: false, code: 'SIMULATION_REVERTED', revert: { name: 'FeatureNotActivated', args: { feature } } })
      // A few minutes on, that instance asks the registry again and refuses before simulating.
      stack.clock.now += 180_000
      expect((await stack.post(deployBody({ variant: 'stablecoin' }), { instance: earlier.handle })).body.code).toBe('VARIANT_NOT_ACTIVE')

      // A registry that cannot say is never read as "off": the simulation decides (here: FeatureNotActivated).
      const unsure = stack.newInstance()
      stack.chain.refuseNext('eth_call', 'the node is busy')
      const undecided = await stack.post(deployBody({ variant: 'stablecoin' }), { instance: unsure.handle })
      expect(undecided.body).toMatchObject({ ok: false, code: 'SIMULATION_REVERTED', revert: { name: 'FeatureNotActivated' } })
    } finally {
      await stack.chain.setVariantActivated('stablecoin', true)
    }
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
    expect(await nonce()).toBe(before)
  })

  it('gives 10 concurrent deploys 10 distinct consecutive nonces, and all mine', async () => {
    const start = await nonce()
    const instances = [stack.newInstance(), stack.newInstance()]
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => stack.post(deployBody({ symbol: `C${i}` }), { instance: instances[i % 2]!.handle })),
    )
    expect(results.every((r) => r.body.ok === true)).toBe(true)
    const nonces = await Promise.all(
      results.map(async (r) => (await stack.chain.publicClient.getTransaction({ hash: r.body.txHash })).nonce),
    )
    expect([...nonces].sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => start + i))
    for (const r of results) {
      const receipt = await stack.chain.publicClient.waitForTransactionReceipt({ hash: r.body.txHash })
      expect(receipt.status).toBe('success')
    }
  })

  it('broadcasts exactly N of N+5 concurrent deploys under a cap of N, across instances, and says when a slot frees', async () => {
    const env = { ...freshPrefix(), DEPLOY_DAILY_CAP: '3' }
    const instances = [stack.newInstance({ env }), stack.newInstance({ env })]
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => stack.post(deployBody({ symbol: `CAP${i}` }), { instance: instances[i % 2]!.handle })),
    )
    expect(results.filter((r) => r.body.ok)).toHaveLength(3)
    const refused = results.filter((r) => !r.body.ok)
    expect(refused).toHaveLength(5)
    for (const r of refused) {
      expect(r.body).toMatchObject({ code: 'DEPLOY_CAP_REACHED', retryAt: expect.any(String), retryAfterSeconds: expect.any(Number) })
      expect(Date.parse(r.body.retryAt)).toBeGreaterThan(stack.clock.now + 86_000_000)
    }
    // A day later (on the service's clock) the window has rolled.
    stack.clock.now += 86_400_000
    try {
      expect((await stack.post(deployBody({ symbol: 'NEXTDAY' }), { instance: instances[0]!.handle })).body.ok).toBe(true)
    } finally {
      stack.clock.now -= 86_400_000
    }
  })

  it('applies a per-agent cap beside the global one', async () => {
    const { handle } = stack.newInstance({ env: { ...freshPrefix(), DEPLOY_AGENT_DAILY_CAP: '1' } })
    expect((await stack.post(deployBody({ symbol: 'A1' }), { instance: handle })).body.ok).toBe(true)
    expect((await stack.post(deployBody({ symbol: 'A2' }), { instance: handle })).body).toMatchObject({
      ok: false,
      code: 'AGENT_CAP_REACHED',
    })
    expect((await stack.post(deployBody({ symbol: 'B1' }), { instance: handle, key: AGENT_KEYS.bob })).body.ok).toBe(true)
  })

  it('simulates without signing on dryRun: no transaction, no KMS Sign, cap untouched', async () => {
    const env = { ...freshPrefix(), DEPLOY_DAILY_CAP: '1' }
    const { handle } = stack.newInstance({ env })
    const before = await nonce()
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    const salt = toHex(4242n, { size: 32 })
    const { body } = await stack.post(deployBody({ salt, dryRun: true }), { instance: handle })
    expect(body).toMatchObject({
      ok: true,
      status: 'simulated',
      predictedAddress: predictB20Address('asset', stack.signer, salt),
      signer: stack.signer,
      chainId: 8453,
    })
    expect(BigInt(body.gas)).toBeGreaterThan(21_000n)
    expect(BigInt(body.maxFeeWei)).toBe(BigInt(body.gas) * BigInt(body.maxFeePerGas))
    expect(await nonce()).toBe(before)
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
    expect((await stack.post(deployBody({ salt }), { instance: handle })).body.ok).toBe(true)
  })

  it('signs once per deploy: one KMS Sign, no GetPublicKey after the first, at most 6 RPC calls', async () => {
    // The variants' activation is read once per instance every few minutes, not per deploy: a dry run reads it first.
    await stack.post(deployBody({ symbol: 'WARM', dryRun: true }))
    const kmsBefore = [...stack.kms.calls]
    const rpcBefore = stack.chain.rpcMethods.length
    const { body } = await stack.post(deployBody({ symbol: 'COUNT' }))
    expect(body.ok).toBe(true)
    const kms = stack.kms.calls.slice(kmsBefore.length)
    expect(kms).toEqual(['Sign'])
    const rpc = stack.chain.rpcMethods.slice(rpcBefore)
    expect(rpc.length).toBeLessThanOrEqual(6)
    expect(rpc).toContain('eth_call')
    expect(rpc).toContain('eth_sendRawTransaction')
  })

  it('replays the original answer for the same Idempotency-Key and body, and refuses another body', async () => {
    const key = `idem-${Math.random()}`
    const before = await nonce()
    const first = await stack.post(deployBody({ symbol: 'IDEM' }), { idempotencyKey: key })
    const second = await stack.post({ symbol: 'IDEM', name: 'Test Token', action: 'agent_deploy' }, { idempotencyKey: key })
    expect(first.body.ok).toBe(true)
    expect(second.body).toEqual(first.body)
    expect(second.headers.get('idempotent-replayed')).toBe('true')
    expect(await nonce()).toBe(before + 1)
    const conflict = await stack.post(deployBody({ symbol: 'OTHER' }), { idempotencyKey: key })
    expect(conflict.body).toMatchObject({ ok: false, code: 'IDEMPOTENCY_CONFLICT' })
    // Another agent with the same idempotency key is another request.
    expect((await stack.post(deployBody({ symbol: 'IDEM' }), { idempotencyKey: key, key: AGENT_KEYS.bob })).body.txHash).not.toBe(
      first.body.txHash,
    )
    const invalid = await stack.post(deployBody(), { idempotencyKey: 'x'.repeat(129) })
    expect(invalid.body).toMatchObject({ ok: false, code: 'INVALID_INTENT', details: [{ field: 'Idempotency-Key' }] })
  })

  it('leaves no lock held and sends nothing when KMS is down', async () => {
    const sendsBefore = stack.chain.rpcMethods.filter((m) => m === 'eth_sendRawTransaction').length
    stack.kms.setDown(true)
    try {
      const signing = await stack.post(deployBody({ symbol: 'KMS1' }))
      expect(signing.body).toMatchObject({ ok: false, code: 'SIGNER_UNAVAILABLE' })
      const cold = stack.newInstance()
      expect((await stack.post(deployBody({ symbol: 'KMS2' }), { instance: cold.handle })).body).toMatchObject({
        ok: false,
        code: 'SIGNER_UNAVAILABLE',
      })
    } finally {
      stack.kms.setDown(false)
    }
    expect(stack.chain.rpcMethods.filter((m) => m === 'eth_sendRawTransaction').length).toBe(sendsBefore)
    expect(await stack.store.get(lockKey())).toBeNull()
    expect((await stack.post(deployBody({ symbol: 'KMS3' }))).body.ok).toBe(true)
  })

  it('leaves no lock held and signs nothing when the RPC is down', async () => {
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    stack.chain.setRpcDown(true)
    try {
      const { body } = await stack.post(deployBody({ symbol: 'RPC1' }))
      expect(body).toMatchObject({ ok: false, code: 'RPC_UNAVAILABLE' })
    } finally {
      stack.chain.setRpcDown(false)
    }
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
    expect(await stack.store.get(lockKey())).toBeNull()
    expect((await stack.post(deployBody({ symbol: 'RPC2' }))).body.ok).toBe(true)
  })

  it('answers BROADCAST_UNCERTAIN with the txHash when the send is not acknowledged, and the receipt finds it', async () => {
    const key = `uncertain-${Math.random()}`
    stack.chain.dropNextAnswer('eth_sendRawTransaction')
    const first = await stack.post(deployBody({ symbol: 'LOST' }), { idempotencyKey: key })
    expect(first.body).toMatchObject({ ok: false, code: 'BROADCAST_UNCERTAIN', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
    // It did go out: the receipt knows it (asked until mined, as an agent polls: the node may still be mining it on a
    // busy machine; the stack's clock, which times a receipt's own wait, moves only when a test moves it). A retry
    // with the same Idempotency-Key gets the same answer, no new transaction.
    await expect
      .poll(async () => (await stack.post({ action: 'receipt', tx_hash: first.body.txHash })).body, { timeout: 10_000 })
      .toMatchObject({ ok: true, status: 'confirmed' })
    const before = await nonce()
    const retry = await stack.post(deployBody({ symbol: 'LOST' }), { idempotencyKey: key })
    expect(retry.body).toEqual(first.body)
    expect(await nonce()).toBe(before)
  })

  it('fails closed when Redis is unreachable: nothing signed, nothing sent', async () => {
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    const sends = stack.chain.rpcMethods.filter((m) => m === 'eth_sendRawTransaction').length
    stack.upstash!.setUnreachable(true)
    try {
      const { body } = await stack.post(deployBody({ symbol: 'REDIS' }))
      expect(body).toMatchObject({ ok: false, code: 'STORE_UNAVAILABLE' })
    } finally {
      stack.upstash!.setUnreachable(false)
    }
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
    expect(stack.chain.rpcMethods.filter((m) => m === 'eth_sendRawTransaction').length).toBe(sends)
  })

  it('waits for a lock whose holder crashed, until its lease runs out', async () => {
    const { handle } = stack.newInstance({ lockWaitMs: 60_000 })
    expect(await stack.store.acquireLock(lockKey(), 60_000)).not.toBeNull() // a holder that never releases
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    const asked = stack.upstash!.commands.length
    const posting = stack.post(deployBody({ symbol: 'LEASE' }), { instance: handle })
    // The deploy asks for the lock again and again while the lease lasts, and signs nothing meanwhile...
    await expect.poll(() => stack.upstash!.commands.length - asked, { timeout: 20_000 }).toBeGreaterThan(8)
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
    // ...until the lease runs out (here as Redis does when its PTTL does: the key is gone); then it goes out.
    await stack.store.delete(lockKey())
    expect((await posting).body.ok).toBe(true)
  })

  it('answers DEPLOY_BUSY when the lock stays taken past the wait, without signing', async () => {
    const { handle } = stack.newInstance({ lockWaitMs: 200 })
    const holder = await stack.store.acquireLock(lockKey(), 5_000)
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    const sleeping = stack.clock.sleeping
    try {
      const answer = stack.post(deployBody({ symbol: 'BUSY' }), { instance: handle })
      // The wait for the lock runs on the services' clock: once the deploy polls, moving it past the wait ends it.
      await vi.waitFor(() => expect(stack.clock.sleeping).toBeGreaterThan(sleeping))
      stack.clock.now += 1000
      expect((await answer).body).toMatchObject({
        ok: false,
        code: 'DEPLOY_BUSY',
        retryAfterSeconds: expect.any(Number),
      })
    } finally {
      await stack.store.releaseLock(lockKey(), holder!)
    }
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
  })

  it('never signs a nonce twice, even when a lock was lost: the nonce claim fences it', async () => {
    const { services } = stack.newInstance()
    const pending = await stack.chain.publicClient.getTransactionCount({ address: stack.signer, blockTag: 'pending' })
    const fences = fencesKeyOf(`${services.config.storePrefix}deploy:8453:nonce:${stack.signer.toLowerCase()}:`)
    const fence = defineScript<number>({
      name: 'test fences a nonce',
      lua: `if ARGV[1] == '' then return redis.call('ZREM', KEYS[1], ARGV[2]) end return redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])`,
      inProcess: (data, [key], [lapsesAt, nonce]) => {
        if (lapsesAt) data.zadd(key!, Number(lapsesAt), nonce!)
        else data.zrem(key!, nonce!)
        return 1
      },
    })
    // A deploy whose lease ran out, still signing nonce n: its claim lapses on the services' clock.
    await stack.store.run(fence, [fences], [stack.clock.now + 5_000, pending])
    const signs = stack.kms.calls.filter((c) => c === 'Sign').length
    try {
      expect((await stack.post(deployBody({ symbol: 'FENCE' }))).body).toMatchObject({ ok: false, code: 'DEPLOY_BUSY' })
    } finally {
      await stack.store.run(fence, [fences], ['', pending])
    }
    expect(stack.kms.calls.filter((c) => c === 'Sign').length).toBe(signs)
  })

  it('writes one log line per deploy attempt, with no key in any line', async () => {
    const before = stack.logs.length
    const { body } = await stack.post(deployBody({ symbol: 'LOGGED' }))
    const lines = stack.logs.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines).toContainEqual(
      expect.objectContaining({
        event: 'deploy_attempt',
        symbol: 'LOGGED',
        outcome: 'broadcast',
        txHash: body.txHash,
        agent: expect.stringMatching(/^[0-9a-f]{8}$/),
      }),
    )
    for (const line of stack.logs) {
      expect(line).not.toContain(AGENT_KEYS.alice)
      expect(line).not.toContain(AGENT_KEYS.bob)
    }
  })

  it('logs each refused key as deploy_refused with its digest prefix, never the key, and a flood as a few lines', async () => {
    const { digestAgentKey } = await import('../../lib/deploy/agents/agentKeys.js')
    // The lines are counted per second: the clock starts this case on a fresh second and moves on by itself.
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Math.ceil(Date.now() / 1000) * 1000)
    onTestFinished(() => {
      vi.useRealTimers()
    })
    const before = stack.logs.length
    const stranger = 'stranger-key-9f8e7d6c5b4a'
    await stack.post(deployBody(), { key: stranger })
    await stack.post(deployBody(), { key: null })
    const refused = () =>
      stack.logs
        .slice(before)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.event === 'deploy_refused')
    expect(refused()).toEqual([
      expect.objectContaining({
        endpoint: 'b20-skill',
        reason: 'key not on the allowlist',
        keyDigest: digestAgentKey(stranger).slice(0, 8),
      }),
      expect.objectContaining({ endpoint: 'b20-skill', reason: 'no key', keyDigest: null }),
    ])
    // 200 refusals at once: at most 5 lines a second, and a later line counts what was left out.
    await Promise.all(Array.from({ length: 200 }, (_, i) => stack.post(deployBody(), { key: `flood-${i}-xxxxxxxx` })))
    const flood = refused().length - 2
    expect(flood).toBeGreaterThanOrEqual(3)
    expect(flood).toBeLessThanOrEqual(10)
    vi.setSystemTime(Date.now() + 1000)
    await stack.post(deployBody(), { key: stranger })
    // The first two lines may report refusals earlier tests left out; the flood's own are counted after them.
    const reportedLeftOut = refused()
      .slice(2)
      .reduce((sum, line) => sum + Number(line.suppressedBefore), 0)
    expect(reportedLeftOut).toBe(200 - flood)
    for (const line of stack.logs.slice(before)) expect(line).not.toMatch(/stranger-key|flood-\d/)
  })

  it('answers pending before mining, confirmed after, and refuses hashes that are not its deploys', async () => {
    await stack.chain.testClient.setAutomine(false)
    let txHash: Hex
    try {
      const { body } = await stack.post(deployBody({ symbol: 'PEND' }))
      txHash = body.txHash
      stack.clock.now += 7000
      expect((await stack.post({ action: 'receipt', tx_hash: txHash })).body).toEqual({
        ok: true,
        status: 'pending',
        txHash,
        explorerUrl: body.explorerUrl,
        pendingSeconds: 7,
      })
      await stack.chain.testClient.mine({ blocks: 1 })
    } finally {
      await stack.chain.testClient.setAutomine(true)
    }
    expect((await stack.post({ action: 'receipt', tx_hash: txHash })).body).toMatchObject({ ok: true, status: 'confirmed' })

    const [funder] = (await stack.chain.testClient.request({ method: 'eth_accounts' } as never)) as Hex[]
    const transfer = (await stack.chain.testClient.request({
      method: 'eth_sendTransaction',
      params: [{ from: funder, to: stack.signer, value: '0x1' }],
    } as never)) as Hex
    expect((await stack.post({ action: 'receipt', tx_hash: transfer })).body).toMatchObject({
      ok: false,
      code: 'NOT_A_DEPLOY',
      error: expect.any(String),
    })
    expect((await stack.post({ action: 'receipt', tx_hash: keccak256('0x01') })).body).toMatchObject({ ok: false, code: 'TX_NOT_FOUND' })
    expect((await stack.post({ action: 'receipt', tx_hash: '0x1234' })).body).toMatchObject({
      ok: false,
      code: 'INVALID_INTENT',
      details: [{ field: 'tx_hash' }],
    })
  })

  it('rejects a deploy that only the pending state shows would revert (gas estimation), signing nothing', async () => {
    await stack.chain.testClient.setAutomine(false)
    const salt = toHex(55_555n, { size: 32 })
    try {
      expect((await stack.post(deployBody({ salt, symbol: 'P1' }))).body.ok).toBe(true)
      const second = await stack.post(deployBody({ salt, symbol: 'P2' }))
      expect(second.body).toMatchObject({ ok: false, code: 'SIMULATION_REVERTED', revert: { name: 'TokenAlreadyExists' } })
    } finally {
      await stack.chain.testClient.mine({ blocks: 1 })
      await stack.chain.testClient.setAutomine(true)
    }
  })

  it('answers reverted for a deploy that was mined but reverted', async () => {
    // A createB20 that reverts on chain, signed by the service's own KMS key with a fixed gas limit.
    const salt = toHex(99_999n, { size: 32 })
    expect((await stack.post(deployBody({ salt, symbol: 'R1' }))).body.ok).toBe(true)
    const account = await stack.newInstance().services.getSigner!()
    const fees = await stack.chain.publicClient.estimateFeesPerGas()
    const serializedTransaction = await account.signTransaction({
      type: 'eip1559',
      chainId: 8453,
      to: B20_FACTORY_ADDRESS,
      data: encodeCreateB20({ variant: 'asset', name: 'R2', symbol: 'R2', admin: stack.signer, decimals: 18 }, salt),
      nonce: await nonce(),
      gas: 500_000n,
      ...fees,
    })
    const txHash = await stack.chain.publicClient.sendRawTransaction({ serializedTransaction })
    await stack.chain.publicClient.waitForTransactionReceipt({ hash: txHash })
    expect((await stack.post({ action: 'receipt', tx_hash: txHash })).body).toMatchObject({
      ok: false,
      status: 'reverted',
      code: 'REVERTED',
      txHash,
    })
  })
})
