import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { createWalletClient, encodeFunctionData, type Hex, http, parseGwei, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { predictB20Address } from '../../lib/chain/b20.js'
import { createChainClient } from '../../lib/chain/client.js'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { deployHistoryKeys } from '../../lib/deploy/keys.js'
import { followDeploys } from '../../lib/deploy/pipeline/followDeploys.js'
import { launchPoolKey } from '../../lib/deploy/pool/poolSeed.js'
import { createDeployServices, type DeployServices } from '../../lib/deploy/services.js'
import { createPaidDeployEndpoint } from '../../lib/payments/endpoint.js'
import { createPaymentFacilitator } from '../../lib/payments/facilitator/httpFacilitator.js'
import { paymentsSourceFrom } from '../../lib/payments/instance.js'
import { paymentKeys } from '../../lib/payments/keys.js'
import {
  claimIdempotencyKey,
  PAYER_OPEN_MAX,
  type PaymentRecord,
  paymentIdOf,
  paymentRecordSchema,
  saveOpenPayment,
} from '../../lib/payments/ledger/paymentRecord.js'
import { creditFailedPools } from '../../lib/payments/ledger/poolCredits.js'
import { reconcilePayments } from '../../lib/payments/ledger/reconcile.js'
import { SETTLE_START_BUDGET_MS } from '../../lib/payments/sale/settle.js'
import type { Clock } from '../../lib/platform/clock.js'
import { silentLogger } from '../../lib/platform/log.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import { parseRecord } from '../../lib/store/records.js'
import type { Store } from '../../lib/store/types.js'
import { createUpstashStore } from '../../lib/store/upstash.js'
import { runAgents } from '../support/agentsCommand.js'
import { fakeKmsClient } from '../support/fakeKms.js'
import { withOpenApiCheck } from '../support/openapiCheck.js'
import { fundedPayer, type PaidDoorParts, startPaidDoorParts, TEST_POOL_PRICE_UNITS, TEST_PRICE_UNITS } from '../support/paidDoorParts.js'
import { createPayingClient, type PayingClient, signPaymentHeader } from '../support/payingClient.js'
import { createTestClock } from '../support/testClock.js'
import { placeTestUsdc } from '../support/testUsdc.js'
import { poolManagerAbi } from '../support/uniswapV4.js'

// The paid door's ledger, in process over the real parts (anvil with the test USDC, the Upstash front over redis, the
// KMS server, the local facilitator over HTTP and the real facilitator client): a settle whose outcome is not known
// is never answered as refused, is decided by the chain, and one Idempotency-Key never pays twice.

const DOOR = 'https://svc.test/api/x402/deploy'
type Answer = { status: number; headers: Headers; body: Record<string, any> }

describe('the paid door’s ledger', () => {
  let parts: PaidDoorParts
  let store: Store
  let services: DeployServices
  let handle: (request: Request) => Promise<Response>
  let keys: ReturnType<typeof paymentKeys>

  beforeAll(async () => {
    const storePrefix = `ledger${process.pid}-${Math.random().toString(36).slice(2, 8)}:`
    parts = await startPaidDoorParts({ redisSocket: inject('redisSocket'), storePrefix })
    store = createUpstashStore({ url: parts.env.UPSTASH_REDIS_REST_URL!, token: parts.env.UPSTASH_REDIS_REST_TOKEN! })
    services = createDeployServices({
      env: parts.env,
      store,
      publicClient: createChainClient({ rpcUrl: parts.chain.rpcUrl, chainId: 8453, timeoutMs: 3000 }),
      kms: fakeKmsClient(parts.kms.url, 'AKIALEDGERTEST0001', 'ledger-test-secret'),
      logger: silentLogger,
    })
    handle = doorWith({})
    keys = paymentKeys({ storePrefix, chainId: 8453 })
  }, 120_000)
  afterAll(async () => {
    await parts?.close()
  })

  /** A door instance over the parts with these settings changed (and these deploy services, the store among them). */
  const doorWith = (env: Record<string, string>, settleTimeoutMs = 1500, clock?: Clock, over: DeployServices = services) => {
    // A settle that does not answer is given up after 1.5 s (the facilitator client's own deadline, 30 s in service).
    const facilitator = createPaymentFacilitator({ url: parts.facilitator.url, cdp: null, now: Date.now, settleTimeoutMs })
    const source = paymentsSourceFrom({ deploy: deployServicesFrom(() => over), env: { ...parts.env, ...env }, facilitator, clock })
    return withOpenApiCheck('/api/x402/deploy', createPaidDeployEndpoint(source))
  }
  /** `npm run agents -- payments --json` as an operator runs it against the parts' store. */
  const listedPayments = async (): Promise<{ id: string; state: string; nonce: string; payer: string; transaction: string | null }[]> =>
    JSON.parse((await runAgents(['payments', '--json'], parts.env)).stdout)
  const doorFetch = async (input: RequestInfo | URL, init?: RequestInit) => handle(new Request(input, init))
  const keep = async (response: Response): Promise<Answer> => ({
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, any>,
  })
  const send = async (body: unknown, headers: Record<string, string> = {}) =>
    keep(await doorFetch(DOOR, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }))
  const pay = async (client: PayingClient, body: unknown, headers: Record<string, string> = {}) =>
    keep(
      await client.fetch(DOOR, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
    )
  const payer = async () =>
    createPayingClient({ rpcUrl: parts.chain.rpcUrl, privateKey: await fundedPayer(parts), baseFetch: doorFetch as typeof fetch })
  const requirements = async (): Promise<PaymentRequirements> =>
    decodePaymentRequiredHeader((await send({ name: 'Ask', symbol: 'ASK' })).headers.get('payment-required')!).accepts[0]!
  const signed = async (client: PayingClient) => {
    const payload: PaymentPayload = await client.client.createPaymentPayload({
      x402Version: 2,
      resource: { url: DOOR },
      accepts: [await requirements()],
    } as never)
    const { nonce } = (payload.payload as { authorization: { nonce: Hex } }).authorization
    return { header: encodePaymentSignatureHeader(payload), nonce }
  }
  const counts = () => ({
    verifies: parts.facilitator.calls.filter((c) => c === 'verify').length,
    settles: parts.facilitator.calls.filter((c) => c === 'settle').length,
    // Deploy transactions sent (KMS also signs each deployed answer's offer-receipt, so its Sign calls are not them).
    sends: parts.chain.rpcMethods.filter((m) => m.startsWith('eth_sendRawTransaction')).length,
  })
  const since = (before: ReturnType<typeof counts>) => {
    const now = counts()
    return { verifies: now.verifies - before.verifies, settles: now.settles - before.settles, sends: now.sends - before.sends }
  }
  const recordOf = async (client: PayingClient, nonce: Hex) =>
    parseRecord(paymentRecordSchema, await store.get(keys.payment(client.address, nonce)))
  /** Runs `work` with the facilitator failing as `fault`, then lets it be. */
  /** A payment record as the ledger keeps it, written by hand: `unknown` by default, these fields changed. */
  const recordWith = (fields: Partial<PaymentRecord> & Pick<PaymentRecord, 'payer' | 'nonce'>): PaymentRecord =>
    paymentRecordSchema.parse({
      state: 'unknown',
      bodyHash: 'x',
      amount: TEST_PRICE_UNITS.toString(),
      asset: parts.usdc.address,
      network: 'eip155:8453',
      validBefore: Math.floor(Date.now() / 1000) + 300,
      at: Date.now(),
      transaction: null,
      confirmed: false,
      credit: null,
      answer: null,
      payTo: parts.payTo.toLowerCase(),
      ...fields,
    })
  const withFault = async <T>(fault: Parameters<PaidDoorParts['facilitator']['setFault']>[0], work: () => Promise<T>): Promise<T> => {
    parts.facilitator.setFault(fault)
    try {
      return await work()
    } finally {
      parts.facilitator.setFault(null)
    }
  }

  it('answers a settle the facilitator says is pending (200) as unknown, naming the payment, and deploys once it is mined', async () => {
    const client = await payer()
    const start = await parts.usdc.balanceOf(client.address)
    const { header, nonce } = await signed(client)
    const body = { name: 'Pending Token', symbol: 'PEND' }
    const before = counts()
    const pending = await withFault('pending', () => send(body, { 'payment-signature': header }))
    // Never "nothing was paid": the transfer waits to be mined, and the answer names the payment and its transaction.
    expect(pending.status).toBe(202)
    const transaction = parts.facilitator.held.at(-1)!
    expect(pending.body).toMatchObject({
      ok: false,
      code: 'PAYMENT_UNKNOWN',
      payment: { id: paymentIdOf(client.address, nonce), state: 'unknown', transaction },
    })
    expect(Number(pending.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await recordOf(client, nonce)).toMatchObject({ state: 'unknown', transaction })
    const settles = since(before).settles
    // Asked again before it is mined: still unknown, and nothing is settled again.
    expect((await send(body, { 'payment-signature': header })).body).toMatchObject({ code: 'PAYMENT_UNKNOWN' })
    expect(since(before)).toMatchObject({ settles, sends: 0 })
    await parts.facilitator.landHeld()
    const deployed = await send(body, { 'payment-signature': header })
    expect(deployed.body).toMatchObject({ ok: true, status: 'broadcast', payment: { transaction } })
    expect(since(before)).toMatchObject({ settles, sends: 1 })
    expect(await parts.usdc.balanceOf(client.address)).toBe(start - TEST_PRICE_UNITS)
    expect(await recordOf(client, nonce)).toMatchObject({ state: 'deployed' })
  })

  it('decides a settle that timed out from the chain: the transfer that landed late is found by its nonce, no second settle', async () => {
    const client = await payer()
    const start = await parts.usdc.balanceOf(client.address)
    const { header, nonce } = await signed(client)
    const body = { name: 'Late Token', symbol: 'LATE' }
    const before = counts()
    const timedOut = await withFault('hold-settle', () => send(body, { 'payment-signature': header }))
    expect(timedOut.status).toBe(202)
    expect(timedOut.body).toMatchObject({ code: 'PAYMENT_UNKNOWN', payment: { state: 'unknown', transaction: null } })
    expect(await recordOf(client, nonce)).toMatchObject({ state: 'unknown' })
    const [landed] = await parts.facilitator.landHeld()
    const deployed = await send(body, { 'payment-signature': header })
    expect(deployed.body).toMatchObject({ ok: true, status: 'broadcast', payment: { transaction: landed } })
    expect(since(before)).toMatchObject({ settles: 1, sends: 1 })
    expect(await parts.usdc.balanceOf(client.address)).toBe(start - TEST_PRICE_UNITS)
  })

  it('lets one Idempotency-Key pay once: a second payment under it while the first is verified is neither verified nor settled', async () => {
    const client = await payer()
    const start = await parts.usdc.balanceOf(client.address)
    const key = `ledger-key-${Math.random()}`
    const body = { name: 'Keyed Token', symbol: 'KEYED' }
    const before = counts()
    let second: Answer | undefined
    // The second request (a new payment, as @x402/fetch signs one for every 402) arrives, and is answered, while the
    // first is being verified.
    parts.facilitator.onNext('verify', async () => {
      second = await pay(client, body, { 'idempotency-key': key })
    })
    const first = await pay(client, body, { 'idempotency-key': key })
    expect(first.body).toMatchObject({ ok: true, status: 'broadcast' })
    expect(second!.body).toMatchObject({ ok: false, code: 'IDEMPOTENCY_IN_PROGRESS' })
    expect(since(before)).toMatchObject({ verifies: 1, settles: 1, sends: 1 })
    // Later, under the same key: the first payment's answer; the payment signed for it is not settled.
    const third = await pay(client, body, { 'idempotency-key': key })
    expect(third.body).toEqual(first.body)
    expect(third.headers.get('idempotent-replayed')).toBe('true')
    expect(since(before)).toMatchObject({ verifies: 1, settles: 1, sends: 1 })
    expect(await parts.usdc.balanceOf(client.address)).toBe(start - TEST_PRICE_UNITS)
  })

  it('resumes an unknown payment from a resend under the same key with a new payment, never settling the new one', async () => {
    const client = await payer()
    const start = await parts.usdc.balanceOf(client.address)
    const key = `ledger-unknown-${Math.random()}`
    const body = { name: 'Unknown Token', symbol: 'UNKN' }
    const before = counts()
    const unknown = await withFault('hold-settle', () => pay(client, body, { 'idempotency-key': key }))
    expect(unknown.status).toBe(202)
    const id = unknown.body.payment.id as string
    expect(id).toMatch(/^pay_/)
    // The client signs a new payment for the resend; the door follows the first one, which is still undecided.
    const again = await pay(client, body, { 'idempotency-key': key })
    expect(again.status).toBe(202)
    expect(again.body).toMatchObject({ code: 'PAYMENT_UNKNOWN', payment: { id, state: 'unknown' } })
    expect(since(before)).toMatchObject({ verifies: 1, settles: 1, sends: 0 })
    const [landed] = await parts.facilitator.landHeld()
    const deployed = await pay(client, body, { 'idempotency-key': key })
    expect(deployed.body).toMatchObject({ ok: true, status: 'broadcast', payment: { transaction: landed } })
    expect(since(before)).toMatchObject({ verifies: 1, settles: 1, sends: 1 })
    expect(await parts.usdc.balanceOf(client.address)).toBe(start - TEST_PRICE_UNITS)
    const replayed = await pay(client, body, { 'idempotency-key': key })
    expect(replayed.body).toEqual(deployed.body)
  })

  /** A paid deploy answered `broadcast`: its payer, payment, answer and the record it left. */
  const deployedPayment = async (body: Record<string, string>) => {
    const client = await payer()
    const { header, nonce } = await signed(client)
    const first = await send(body, { 'payment-signature': header })
    expect(first.body).toMatchObject({ ok: true, status: 'broadcast' })
    return { client, header, nonce, first, record: (await recordOf(client, nonce))! }
  }

  it('answers the deploy a payment already sent when its answer was never kept: the chain and the history say, no credit', async () => {
    const body = { name: 'Sent Token', symbol: 'SENT' }
    const { client, header, nonce, first, record } = await deployedPayment(body)
    // As if the instance stopped after the broadcast, before it kept the answer: the record still says `deploying`.
    await store.set(keys.payment(client.address, nonce), JSON.stringify({ ...record, state: 'deploying', answer: null }), 60_000)
    const before = counts()
    const resumed = await send(body, { 'payment-signature': header })
    expect(resumed.body).toMatchObject({
      ok: true,
      status: 'broadcast',
      txHash: first.body.txHash,
      predictedAddress: first.body.predictedAddress,
      payment: { transaction: first.body.payment.transaction },
    })
    expect(resumed.body.credit).toBeUndefined()
    expect(since(before)).toMatchObject({ settles: 0, sends: 0 })
    expect(await recordOf(client, nonce)).toMatchObject({ state: 'deployed' })
  })

  it('lets one paid deploy have an address: a second payment for the same salt, while the first settles, is refused unsettled', async () => {
    // The first payer's door waits for its settle as long as the service does: the second request runs meanwhile.
    const patient = doorWith({}, 30_000)
    const a = createPayingClient({
      rpcUrl: parts.chain.rpcUrl,
      privateKey: await fundedPayer(parts),
      baseFetch: (async (input: RequestInfo | URL, init?: RequestInit) => patient(new Request(input, init))) as typeof fetch,
    })
    const b = await payer()
    const startB = await parts.usdc.balanceOf(b.address)
    const salt = `0x${'5a'.repeat(32)}`
    const body = { name: 'Salted Token', symbol: 'SALT', salt }
    const before = counts()
    let second: Answer | undefined
    // The second payer's whole request runs while the first one's settle is under way: both passed the simulation.
    parts.facilitator.onNext('settle', async () => {
      second = await pay(b, body)
    })
    const first = await pay(a, body)
    expect(first.body).toMatchObject({ ok: true, status: 'broadcast' })
    expect(second!.body).toMatchObject({ ok: false, code: 'SIMULATION_REVERTED' })
    expect(second!.body.payment).toBeUndefined()
    expect(since(before)).toMatchObject({ settles: 1, sends: 1 })
    expect(await parts.usdc.balanceOf(b.address)).toBe(startB)
  })

  /** A payment settled and kept as a credit (KMS down once it was settled): its header and the credit answer. */
  const credited = async (client: PayingClient, body: unknown) => {
    const { header } = await signed(client)
    parts.facilitator.onNext('settle', () => parts.kms.setDown(true))
    try {
      const answer = await send(body, { 'payment-signature': header })
      expect(answer.body).toMatchObject({ ok: false, credit: { id: expect.stringMatching(/^cr_/) } })
      return { header, answer }
    } finally {
      parts.kms.setDown(false)
    }
  }
  const sendTo = async (door: (request: Request) => Promise<Response>, body: unknown, headers: Record<string, string>) =>
    keep(
      await door(
        new Request(DOOR, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
      ),
    )

  it('takes a slot of the paid cap again for a credit redeemed: a full cap keeps it a credit, with retryAt', async () => {
    const client = await payer()
    const body = { name: 'Capped Credit', symbol: 'CAPCR' }
    const { header, answer } = await credited(client, body)
    const before = counts()
    const full = await sendTo(doorWith({ X402_DAILY_CAP: '0' }), body, { 'payment-signature': header })
    expect(full.body).toMatchObject({ ok: false, code: 'DEPLOY_CAP_REACHED', retryAt: expect.any(String), credit: answer.body.credit })
    expect(since(before)).toMatchObject({ settles: 0, sends: 0 })
    expect((await send(body, { 'payment-signature': header })).body).toMatchObject({ ok: true, status: 'broadcast' })
  })

  it('redeems a credit under the terms it was paid under, after the price and payTo changed', async () => {
    const client = await payer()
    const body = { name: 'Old Terms', symbol: 'OLDT' }
    const { header, answer } = await credited(client, body)
    const before = counts()
    const changed = doorWith({ X402_PRICE: '0.75', X402_PAY_TO: '0x000000000000000000000000000000000000dEaD' })
    const redeemed = await sendTo(changed, body, { 'payment-signature': header })
    expect(redeemed.body).toMatchObject({
      ok: true,
      status: 'broadcast',
      payment: { transaction: answer.body.payment.transaction, amount: TEST_PRICE_UNITS.toString() },
    })
    expect(since(before)).toMatchObject({ settles: 0, sends: 1 })
    // A payment never taken is still held to today's terms.
    const fresh = await signed(client)
    expect((await sendTo(changed, body, { 'payment-signature': fresh.header })).body).toMatchObject({ code: 'PAYMENT_INVALID' })
  })

  it('redeems a credit in the asset and EIP-712 domain it was paid in, after X402_ASSET changed to another token', async () => {
    const client = await payer()
    const body = { name: 'Old Asset', symbol: 'OLDA' }
    const { header, answer } = await credited(client, body)
    // The operator moves the door to another dollar token, with its own EIP-712 domain.
    const other = await placeTestUsdc({
      chain: parts.chain,
      address: '0x00000000000000000000000000000000000a55e7',
      name: 'Other Dollar',
      version: '7',
    })
    const changed = doorWith({ X402_ASSET: other.address, X402_ASSET_NAME: 'Other Dollar', X402_ASSET_VERSION: '7' })
    const before = counts()
    const redeemed = await sendTo(changed, body, { 'payment-signature': header })
    expect(redeemed.body).toMatchObject({ ok: true, status: 'broadcast', payment: { transaction: answer.body.payment.transaction } })
    expect(since(before)).toMatchObject({ settles: 0, sends: 1 })
    // A payment in the old asset that was never taken is held to today's terms.
    const fresh = await signed(client)
    expect((await sendTo(changed, body, { 'payment-signature': fresh.header })).body).toMatchObject({
      code: 'PAYMENT_INVALID',
      reason: 'asset_mismatch',
    })
  })

  it('refuses a pooled launch whose pool someone initialized first before anything is settled: no charge, no token, nothing signed', async () => {
    const client = await payer()
    const salt = toHex(47_002n, { size: 32 })
    const token = predictB20Address('asset', parts.signer, salt)
    const { key } = launchPoolKey({ token, decimals: 18, fee: 10000, tickSpacing: 200 })
    const frontRunner = privateKeyToAccount(generatePrivateKey())
    await parts.chain.fund(frontRunner.address)
    const wallet = createWalletClient({ account: frontRunner, transport: http(parts.chain.nodeUrl) })
    const init = await wallet.sendTransaction({
      to: parts.env.UNISWAP_V4_POOL_MANAGER as Hex,
      data: encodeFunctionData({ abi: poolManagerAbi, functionName: 'initialize', args: [key, 2n ** 96n] }),
      chain: null,
    })
    await parts.chain.publicClient.waitForTransactionReceipt({ hash: init, pollingInterval: 20 })
    const start = await parts.usdc.balanceOf(client.address)
    const before = counts()
    const answer = await pay(client, {
      name: 'Taken Pool',
      symbol: 'TAKEN',
      admin: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      initialSupply: '1000000',
      salt,
      pool: { amount: '400000', startingMarketCapEth: '5' },
    })
    expect(answer.body).toMatchObject({ ok: false, code: 'SIMULATION_REVERTED', cause: 'pool-initialized' })
    expect(answer.body.error).toContain('pool')
    expect(answer.body.error).toContain('initialized')
    expect(since(before)).toMatchObject({ settles: 0, sends: 0 })
    expect(await parts.usdc.balanceOf(client.address)).toBe(start)
  })

  it('credits the whole price of a pooled launch that reverted whole (its pool initialized first after the settle): no token, nothing with the signer, by the tick', async () => {
    const client = await payer()
    const owner = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
    const salt = toHex(47_001n, { size: 32 })
    const body = {
      name: 'No Pool',
      symbol: 'NOPOOL',
      admin: owner,
      initialSupply: '1000000',
      salt,
      pool: { amount: '400000', startingMarketCapEth: '5' },
    }
    // Someone initialises the launch's pool, paying more, in the block the launch lands in: the batch reverts whole.
    const token = predictB20Address('asset', parts.signer, salt)
    const { key } = launchPoolKey({ token, decimals: 18, fee: 10000, tickSpacing: 200 })
    const frontRunner = privateKeyToAccount(generatePrivateKey())
    await parts.chain.fund(frontRunner.address)
    // Blocks are mined by hand, and only for what waits in the node's pool: the settle's transfer is mined alone, and
    // once the launch waits there, the front-runner's initialise goes in beside it, paying more, and the next block
    // holds both, the initialise first. (Mining whatever came, as fast as it could, let the launch be mined alone on a
    // busy machine, and the loop then waited for it forever.)
    const { testClient } = parts.chain
    const wallet = createWalletClient({ account: frontRunner, transport: http(parts.chain.nodeUrl) })
    const initialize = encodeFunctionData({ abi: poolManagerAbi, functionName: 'initialize', args: [key, 2n ** 96n] })
    await testClient.setAutomine(false)
    let frontRun = false
    const miner = (async () => {
      while (!frontRun) {
        // Waits for something in the node's pool (expect.poll: no sleep of the test's own).
        let waiting: string[] = []
        await expect
          .poll(async () => (waiting = Object.keys((await testClient.getTxpoolContent()).pending).map((from) => from.toLowerCase())), {
            interval: 10,
            timeout: 60_000,
          })
          .not.toEqual([])
        if (waiting.includes(parts.signer.toLowerCase())) {
          await wallet.sendTransaction({
            to: parts.env.UNISWAP_V4_POOL_MANAGER as Hex,
            data: initialize,
            gas: 500_000n,
            maxPriorityFeePerGas: parseGwei('100'),
            maxFeePerGas: parseGwei('200'),
            chain: null,
          })
          frontRun = true
        }
        await testClient.mine({ blocks: 1 })
      }
    })()
    // Signed for the pooled price the door's 402 asks.
    const asked = decodePaymentRequiredHeader((await send(body)).headers.get('payment-required')!).accepts[0]!
    const payload: PaymentPayload = await client.client.createPaymentPayload({
      x402Version: 2,
      resource: { url: DOOR },
      accepts: [asked],
    } as never)
    const { nonce } = (payload.payload as { authorization: { nonce: Hex } }).authorization
    let answer: Answer
    try {
      answer = await send(body, { 'payment-signature': encodePaymentSignatureHeader(payload) })
      expect(answer.body).toMatchObject({ ok: true, status: 'broadcast', pool: { status: 'sent', seedTxHashes: [] } })
      await miner
    } finally {
      frontRun = true
      await testClient.setAutomine(true)
    }
    const mined = await parts.chain.publicClient.waitForTransactionReceipt({ hash: answer.body.txHash as Hex, pollingInterval: 20 })
    expect(mined.status).toBe('reverted')
    // The tick sees it reverted and lists it; the paid door's tick credits the whole price, once.
    const deployKeys = deployHistoryKeys({ storePrefix: services.config.storePrefix, chainId: 8453 })
    expect(await creditFailedPools({ store, keys, deployKeys, now: Date.now() })).toBe(0) // not listed before the tick saw it
    await followDeploys(services)
    expect(await creditFailedPools({ store, keys, deployKeys, now: Date.now() })).toBe(1)
    expect(await recordOf(client, nonce)).toMatchObject({
      state: 'deployed',
      poolCredit: { code: 'POOL_FAILED', amount: TEST_POOL_PRICE_UNITS.toString() },
    })
    await followDeploys(services)
    expect(await creditFailedPools({ store, keys, deployKeys, now: Date.now() })).toBe(0)
  }, 90_000)

  it('redeems a credited payment resent under a key that went with a refused payment: the credit is never written over', async () => {
    const client = await payer()
    const body = { name: 'Kept Credit', symbol: 'KEPTC' }
    const { header } = await credited(client, body)
    const nonce = (JSON.parse(Buffer.from(header, 'base64').toString()) as { payload: { authorization: { nonce: Hex } } }).payload
      .authorization.nonce
    // Another payment of the same body goes with an Idempotency-Key and is refused at its settle: nothing moved.
    const key = `kept-credit-${nonce.slice(2, 10)}`
    const other = await signed(client)
    const refused = await withFault('refuse-settle', () => send(body, { 'payment-signature': other.header, 'idempotency-key': key }))
    expect(refused.status).toBe(402)
    expect(await recordOf(client, other.nonce)).toMatchObject({ state: 'refused' })
    // The credited payment, resent under that key, deploys with no new settlement.
    const before = counts()
    const redeemed = await send(body, { 'payment-signature': header, 'idempotency-key': key })
    expect(redeemed.body).toMatchObject({ ok: true, status: 'broadcast' })
    expect(since(before)).toMatchObject({ verifies: 0, settles: 0, sends: 1 })
    expect(await recordOf(client, nonce)).toMatchObject({ state: 'deployed' })
  })

  it('decides a payment left unknown from the chain when it is resent under a key that went with a refused payment', async () => {
    const client = await payer()
    const start = await parts.usdc.balanceOf(client.address)
    const body = { name: 'Unknown Keyed', symbol: 'UNKK' }
    const key = `unknown-keyed-${Math.random().toString(36).slice(2)}`
    const refusedPayment = await signed(client)
    expect(
      (await withFault('refuse-settle', () => send(body, { 'payment-signature': refusedPayment.header, 'idempotency-key': key }))).status,
    ).toBe(402)
    // Another payment, sent without a key, is left unknown; its transfer then lands.
    const { header, nonce } = await signed(client)
    expect((await withFault('hold-settle', () => send(body, { 'payment-signature': header }))).status).toBe(202)
    const [landed] = await parts.facilitator.landHeld()
    // Resent under the key: answered from its own record (paid, the chain says), never taken anew and refused by a verify.
    const before = counts()
    const resent = await send(body, { 'payment-signature': header, 'idempotency-key': key })
    expect(resent.body).toMatchObject({ ok: true, status: 'broadcast', payment: { transaction: landed } })
    expect(since(before)).toMatchObject({ verifies: 0, settles: 0, sends: 1 })
    expect(await recordOf(client, nonce)).toMatchObject({ state: 'deployed' })
    expect(await parts.usdc.balanceOf(client.address)).toBe(start - TEST_PRICE_UNITS)
  })

  it('gives one Idempotency-Key one settle when a resend of its refused payment races a new payment under it', async () => {
    const client = await payer()
    const body = { name: 'One Key', symbol: 'ONEKY' }
    const key = `one-key-${Math.random().toString(36).slice(2)}`
    const refusedPayment = await signed(client)
    const first = await withFault('refuse-settle', () => send(body, { 'payment-signature': refusedPayment.header, 'idempotency-key': key }))
    expect(first.status).toBe(402)
    const fresh = await signed(client)
    // The new payment's request reads the key (its payment refused) and, just before its claim runs, the refused
    // payment's resend runs whole under the same key on another instance.
    let raced: Answer | null = null
    const racing: Store = {
      ...store,
      run: async (script, scriptKeys, args) => {
        if (script.name === 'claim-payment-key' && scriptKeys[1] === keys.payment(client.address, fresh.nonce) && !raced)
          raced = await send(body, { 'payment-signature': refusedPayment.header, 'idempotency-key': key })
        return store.run(script, scriptKeys, args)
      },
    }
    const before = counts()
    const second = await sendTo(doorWith({}, 1500, undefined, { ...services, store: racing }), body, {
      'payment-signature': fresh.header,
      'idempotency-key': key,
    })
    expect(raced).toMatchObject({ body: { ok: true, status: 'broadcast' } })
    expect(second.body.ok).not.toBe(true)
    expect(since(before)).toMatchObject({ settles: 1, sends: 1 })
    expect(await recordOf(client, fresh.nonce)).toBeNull()
  })

  it('never lets a claim of an Idempotency-Key write over a payment that may have paid (settling, unknown, deploying, deployed, a credit)', async () => {
    const client = await payer()
    const { nonce } = await signed(client)
    const ref = { keys, payer: client.address.toLowerCase(), nonce }
    const record = recordWith({
      state: 'credit',
      payer: client.address.toLowerCase(),
      nonce,
      credit: { id: 'cr_test', code: 'DEPLOY_UNFINISHED', at: Date.now() },
    })
    // On Redis (the script's Lua) and in process (its twin) alike; a refused payment's record is claimed as before.
    for (const on of [store, createMemoryStore()])
      for (const state of ['settling', 'unknown', 'credit', 'deploying', 'deployed', 'refused'] as const) {
        await on.set(keys.payment(ref.payer, nonce), JSON.stringify({ ...record, state }), 60_000)
        const claim = { keyHash: `claim-${state}`, record: { ...record, state: 'verifying' as const }, replacing: null }
        expect(await claimIdempotencyKey(on, ref, claim), state).toBe(state === 'refused')
        const now = parseRecord(paymentRecordSchema, await on.get(keys.payment(ref.payer, nonce)))
        expect(now, state).toMatchObject({ state: state === 'refused' ? 'verifying' : state })
      }
  })

  it('takes a refusal that names no transaction, for a reason that may follow a broadcast, as unknown: the transfer that lands is paid for', async () => {
    const client = await payer()
    const { header, nonce } = await signed(client)
    const body = { name: 'Refused Sent', symbol: 'RSENT' }
    // The facilitator's send went to the node and threw; it answers a refusal with no transaction.
    const first = await withFault('refuse-held', () => send(body, { 'payment-signature': header }))
    expect(first.status).toBe(202)
    expect(first.body).toMatchObject({ code: 'PAYMENT_UNKNOWN' })
    expect(await recordOf(client, nonce)).toMatchObject({ state: 'unknown' })
    // The transfer lands: the payer's resend deploys with no second settle.
    await parts.facilitator.landHeld()
    const before = counts()
    const again = await send(body, { 'payment-signature': header })
    expect(again.body).toMatchObject({ ok: true, status: 'broadcast' })
    expect(since(before)).toMatchObject({ settles: 0, sends: 1 })
  })

  it('gives the address back when an attempt ends unpaid: the payer’s next payment for the same salt deploys', async () => {
    const client = await payer()
    const body = { name: 'Salt Again', symbol: 'SALTA', salt: `0x${'a7'.repeat(32)}` }
    const unpaid = await signed(client)
    const refused = await withFault('refuse-settle', () => send(body, { 'payment-signature': unpaid.header }))
    // The facilitator's own words (invalid_exact_evm_transaction_simulation_failed) are logged, never answered.
    expect(refused.body).toMatchObject({ ok: false, code: 'PAYMENT_FAILED', reason: 'settlement_failed' })
    expect(JSON.stringify(refused.body)).not.toContain('invalid_exact_evm')
    const next = await signed(client)
    const deployed = await send(body, { 'payment-signature': next.header })
    expect(deployed.body).toMatchObject({ ok: true, status: 'broadcast' })
  })

  it('is reconciled by the tick: a payment left unknown whose transfer landed becomes a credit the operator lists', async () => {
    const client = await payer()
    const { header, nonce } = await signed(client)
    const body = { name: 'Reconciled', symbol: 'RECON' }
    const unknown = await withFault('hold-settle', () => send(body, { 'payment-signature': header }))
    expect(unknown.status).toBe(202)
    const [landed] = await parts.facilitator.landHeld()
    // Another left unknown, its transfer not mined (and its authorization still valid): it stays unknown.
    const still = await payer()
    const other = await signed(still)
    expect((await withFault('hold-settle', () => send(body, { 'payment-signature': other.header }))).status).toBe(202)
    // Both left alone by their payers for a while.
    for (const [who, n] of [
      [client, nonce],
      [still, other.nonce],
    ] as const) {
      const record = (await recordOf(who, n))!
      await store.set(keys.payment(who.address, n), JSON.stringify({ ...record, at: record.at - 120_000 }), 60_000)
    }
    const result = await reconcilePayments({ services: { ...services, store }, keys })
    expect(result).toMatchObject({ paid: 1, decided: 1, unknown: 1, refused: 0 })
    expect(await recordOf(still, other.nonce)).toMatchObject({ state: 'unknown' })
    expect(await recordOf(client, nonce)).toMatchObject({
      state: 'credit',
      transaction: landed,
      credit: { id: expect.stringMatching(/^cr_/) },
    })
    const listed = await listedPayments()
    expect(listed.find((p) => p.nonce === nonce)).toMatchObject({
      state: 'credit',
      transaction: landed,
      payer: client.address.toLowerCase(),
    })
    // The payer's resend redeems it: no second settle.
    const before = counts()
    expect((await send(body, { 'payment-signature': header })).body).toMatchObject({ ok: true, payment: { transaction: landed } })
    expect(since(before)).toMatchObject({ settles: 0, sends: 1 })
  })

  it('is reconciled by the tick from the record as it is under the lease: a resend that deployed the payment meanwhile keeps it deployed', async () => {
    const client = await payer()
    const { header, nonce } = await signed(client)
    const body = { name: 'Raced Token', symbol: 'RACED' }
    expect((await withFault('hold-settle', () => send(body, { 'payment-signature': header }))).status).toBe(202)
    await parts.facilitator.landHeld()
    const record = (await recordOf(client, nonce))!
    await store.set(keys.payment(client.address, nonce), JSON.stringify({ ...record, at: record.at - 120_000 }), 60_000)
    // The tick lists the payment unknown; before it takes the payment's lease, the payer's resend deploys it.
    let resent: Answer | null = null
    const racing: typeof store = {
      ...store,
      acquireLock: async (key, ttlMs) => {
        if (key === keys.lease(client.address, nonce) && !resent) resent = await send(body, { 'payment-signature': header })
        return store.acquireLock(key, ttlMs)
      },
    }
    await reconcilePayments({ services: { ...services, store: racing }, keys })
    expect(resent).toMatchObject({ body: { ok: true } })
    // Not written over with a credit (the copy the tick listed said unknown, and its transfer landed).
    expect(await recordOf(client, nonce)).toMatchObject({ state: 'deployed', credit: null })
    expect((await listedPayments()).find((p) => p.nonce === nonce)).toBeUndefined()
    // The next resend is answered its deploy again, nothing sent or settled twice.
    const before = counts()
    const again = await send(body, { 'payment-signature': header })
    expect(again.body).toMatchObject({ ok: true, txHash: resent!.body.txHash })
    expect(since(before)).toMatchObject({ settles: 0, sends: 0 })
  })

  it('checks again a credit the chain had not shown: confirmed once the chain shows it, withdrawn once the chain shows nothing was paid', async () => {
    const client = await payer()
    const { header } = await credited(client, { name: 'Unconfirmed Credit', symbol: 'UNCC' })
    const nonce = (JSON.parse(Buffer.from(header, 'base64').toString()) as { payload: { authorization: { nonce: Hex } } }).payload
      .authorization.nonce
    const settledCredit = (await recordOf(client, nonce))!
    expect(settledCredit).toMatchObject({ state: 'credit', transaction: expect.any(String) })
    // As if the RPC could not show the settlement when the credit was kept.
    const ref = { keys, payer: client.address, nonce }
    await saveOpenPayment(store, ref, { ...settledCredit, confirmed: false, at: settledCredit.at - 120_000 })
    // A credit whose settlement never happened: its transaction unknown to the chain, its authorization unused and past.
    const other = await payer()
    const unpaid = await signed(other)
    const otherRef = { keys, payer: other.address, nonce: unpaid.nonce }
    await saveOpenPayment(store, otherRef, {
      ...settledCredit,
      payer: other.address.toLowerCase(),
      nonce: unpaid.nonce,
      transaction: `0x${'be'.repeat(32)}`,
      confirmed: false,
      validBefore: Math.floor(Date.now() / 1000) - 60,
      credit: { id: paymentIdOf(other.address, unpaid.nonce).replace('pay_', 'cr_'), code: 'SETTLED_UNANSWERED', at: Date.now() },
      at: settledCredit.at - 120_000,
    })
    await reconcilePayments({ services: { ...services, store }, keys })
    expect(await recordOf(client, nonce)).toMatchObject({ state: 'credit', confirmed: true, transaction: settledCredit.transaction })
    expect(await recordOf(other, unpaid.nonce)).toMatchObject({ state: 'refused' })
    const listed = await listedPayments()
    expect(listed.find((p) => p.nonce === nonce)).toMatchObject({ state: 'credit' })
    expect(listed.find((p) => p.nonce === unpaid.nonce)).toBeUndefined()
  })

  it('is reconciled by the tick: a deploy answered whose record was left deploying ends deployed, one never signed a credit', async () => {
    const body = { name: 'Answered Token', symbol: 'ANSW' }
    const { client, header, nonce, first, record } = await deployedPayment(body)
    // The instance's write of the answer failed (the store was down): the payer has its answer and never resends.
    await saveOpenPayment(
      store,
      { keys, payer: client.address, nonce },
      { ...record, state: 'deploying', answer: null, at: record.at - 120_000 },
    )
    // Another payment left deploying with nothing signed for it (its instance stopped before the signature).
    const other = await payer()
    const unsent = await credited(other, { name: 'Unsigned Token', symbol: 'UNSG' })
    const otherNonce = (JSON.parse(Buffer.from(unsent.header, 'base64').toString()) as { payload: { authorization: { nonce: Hex } } })
      .payload.authorization.nonce
    const otherRecord = (await recordOf(other, otherNonce))!
    await saveOpenPayment(
      store,
      { keys, payer: other.address, nonce: otherNonce },
      { ...otherRecord, state: 'deploying', credit: null, at: otherRecord.at - 120_000 },
    )
    await reconcilePayments({ services: { ...services, store }, keys })
    // The operator is not told to refund a payment whose token went out; the one never signed is listed as a credit.
    expect(await recordOf(client, nonce)).toMatchObject({ state: 'deployed' })
    expect(await recordOf(other, otherNonce)).toMatchObject({ state: 'credit', credit: { id: expect.stringMatching(/^cr_/) } })
    const listed = await listedPayments()
    expect(listed.find((p) => p.nonce === nonce)).toBeUndefined()
    expect(listed.find((p) => p.nonce === otherNonce)).toMatchObject({ state: 'credit' })
    // The payer's resend gets its deploy again, nothing sent twice.
    const before = counts()
    const again = await send(body, { 'payment-signature': header })
    expect(again.body).toMatchObject({ ok: true, txHash: first.body.txHash, predictedAddress: first.body.predictedAddress })
    expect(since(before)).toMatchObject({ settles: 0, sends: 0 })
  })

  it('has the tick look through every open payment in turn, oldest first, however many there are', async () => {
    // A ledger of its own: 4 old credits the chain showed (nothing to decide), then 5 payments left unknown whose
    // authorizations are past validBefore; the tick looks at 3 a time and decides 2 at most.
    const own = paymentKeys({ storePrefix: `paging${process.pid}-${Math.random().toString(36).slice(2, 8)}:`, chainId: 8453 })
    const start = 1_700_000_000_000 // long past: every authorization here lapsed long ago
    const nonces: Hex[] = []
    for (let i = 0; i < 9; i++) {
      const nonce = `0x${(0xa000 + i).toString(16).padStart(64, '0')}` as Hex
      const payer = `0x${(0xb000 + i).toString(16).padStart(40, '0')}`
      const credit = i < 4
      const record = recordWith({
        state: credit ? 'credit' : 'unknown',
        payer,
        nonce,
        validBefore: Math.floor(start / 1000),
        at: start + i * 1000,
        transaction: credit ? `0x${'cd'.repeat(32)}` : null,
        confirmed: credit,
        credit: credit ? { id: `cr_paging${i}`, code: 'SETTLED_UNANSWERED', at: start } : null,
      })
      await saveOpenPayment(store, { keys: own, payer, nonce }, record)
      nonces.push(nonce)
    }
    const states = async () =>
      Promise.all(
        nonces.map(async (nonce, i) => {
          const payer = `0x${(0xb000 + i).toString(16).padStart(40, '0')}`
          return parseRecord(paymentRecordSchema, await store.get(own.payment(payer, nonce)))?.state
        }),
      )
    const decided: number[] = []
    for (let tick = 0; tick < 5; tick++)
      decided.push((await reconcilePayments({ services: { ...services, store }, keys: own, pageSize: 3, decidedMax: 2 })).refused)
    expect(await states()).toEqual(['credit', 'credit', 'credit', 'credit', 'refused', 'refused', 'refused', 'refused', 'refused'])
    // Never more than two a tick, the oldest first: past the credits, then on from where the last tick stopped.
    expect(decided.every((n) => n <= 2)).toBe(true)
    expect(decided.reduce((a, b) => a + b, 0)).toBe(5)
  })

  it('opens no more payments for a payer who has ten open (undecided settles, credits), nothing settled', async () => {
    const client = await payer()
    const start = await parts.usdc.balanceOf(client.address)
    const { header } = await signed(client)
    for (let i = 0; i < PAYER_OPEN_MAX; i++) {
      const fake = `0x${i.toString(16).padStart(64, '0')}`
      const record = recordWith({ payer: client.address.toLowerCase(), nonce: fake })
      await saveOpenPayment(store, { keys, payer: client.address, nonce: fake }, record)
    }
    const before = counts()
    const refused = await send({ name: 'One More', symbol: 'MORE' }, { 'payment-signature': header })
    expect(refused.body).toMatchObject({ ok: false, code: 'DEPLOY_CAP_REACHED' })
    expect(since(before)).toMatchObject({ settles: 0, sends: 0 })
    expect(await parts.usdc.balanceOf(client.address)).toBe(start)
  })

  it('counts payments refused after verify against the payer’s cap: a loop of them runs dry, nothing settled', async () => {
    const client = await payer()
    const start = await parts.usdc.balanceOf(client.address)
    const door = doorWith({ X402_PAYER_DAILY_CAP: '2' })
    const before = counts()
    // Verified, then not paid at the settle (the facilitator refuses it; the chain shows the nonce unused): twice.
    for (const symbol of ['NOPE1', 'NOPE2']) {
      const { header } = await signed(client)
      const refused = await withFault('refuse-settle', () => sendTo(door, { name: 'Never Paid', symbol }, { 'payment-signature': header }))
      expect(refused.status).toBe(402)
      expect(refused.body).toMatchObject({ ok: false, code: 'PAYMENT_FAILED' })
    }
    expect(since(before)).toMatchObject({ verifies: 2, settles: 2, sends: 0 })
    // The third is refused at the payer's cap, before any settle: the two attempts took its two slots.
    const { header } = await signed(client)
    const capped = await sendTo(door, { name: 'Never Paid', symbol: 'NOPE3' }, { 'payment-signature': header })
    expect(capped.body).toMatchObject({ ok: false, code: 'DEPLOY_CAP_REACHED', retryAt: expect.any(String) })
    expect(since(before)).toMatchObject({ settles: 2, sends: 0 })
    expect(await parts.usdc.balanceOf(client.address)).toBe(start)
  })

  it('refuses an authorization valid for longer than maxTimeoutSeconds with a 402 naming validBefore, before any verify or settle', async () => {
    const client = await payer()
    const start = await parts.usdc.balanceOf(client.address)
    const header = await signPaymentHeader({
      privateKey: client.privateKey,
      requirements: await requirements(),
      authorization: { validBefore: BigInt(Math.floor(Date.now() / 1000) + 3600) },
    })
    const before = counts()
    const refused = await send({ name: 'Long Window', symbol: 'LONGW' }, { 'payment-signature': header })
    expect(refused.status).toBe(402)
    expect(refused.body).toMatchObject({ ok: false, code: 'PAYMENT_INVALID' })
    expect(refused.body.error).toContain('validBefore')
    expect(since(before)).toMatchObject({ verifies: 0, settles: 0, sends: 0 })
    expect(await parts.usdc.balanceOf(client.address)).toBe(start)
  })

  it('settles nothing when the request ran too long before its settle to deploy inside the function’s time', async () => {
    const client = await payer()
    const clock = createTestClock()
    const slow = doorWith({}, 1500, clock.clock)
    const { header } = await signed(client)
    const before = counts()
    parts.facilitator.onNext('verify', () => {
      clock.now += SETTLE_START_BUDGET_MS + 1000
    })
    const late = await sendTo(slow, { name: 'Late Start', symbol: 'LATES' }, { 'payment-signature': header })
    expect(late.body).toMatchObject({ ok: false, code: 'DEPLOY_BUSY' })
    expect(since(before)).toMatchObject({ settles: 0, sends: 0 })
    // The same payment resent in time deploys.
    expect((await send({ name: 'Late Start', symbol: 'LATES' }, { 'payment-signature': header })).body).toMatchObject({ ok: true })
  })

  // Last: it moves the chain's time past the authorization's validBefore.
  it('answers "not paid" for a pending settle (its hash in an HTTP error body) only once validBefore passed with nothing mined', async () => {
    const client = await payer()
    const start = await parts.usdc.balanceOf(client.address)
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 90)
    const header = await signPaymentHeader({
      privateKey: client.privateKey,
      requirements: await requirements(),
      authorization: { validBefore },
    })
    const { nonce } = (JSON.parse(Buffer.from(header, 'base64').toString()) as { payload: { authorization: { nonce: Hex } } }).payload
      .authorization
    const body = { name: 'Lapsed Token', symbol: 'LAPSE' }
    const before = counts()
    const pending = await withFault('pending-error', () => send(body, { 'payment-signature': header }))
    expect(pending.status).toBe(202)
    expect(pending.body).toMatchObject({ code: 'PAYMENT_UNKNOWN', payment: { transaction: parts.facilitator.held.at(-1) } })
    const settles = since(before).settles
    // The chain passes validBefore with the transfer still unmined: it can never be mined now.
    await parts.chain.testClient.increaseTime({ seconds: 600 })
    await parts.chain.testClient.mine({ blocks: 1 })
    const refused = await send(body, { 'payment-signature': header })
    expect(refused.status).toBe(402)
    expect(refused.body).toMatchObject({ ok: false, code: 'PAYMENT_FAILED', reason: 'authorization_expired' })
    expect(await recordOf(client, nonce)).toMatchObject({ state: 'refused' })
    await parts.facilitator.landHeld()
    expect(await parts.usdc.balanceOf(client.address)).toBe(start)
    expect(since(before)).toMatchObject({ settles, sends: 0 })
  })
})
