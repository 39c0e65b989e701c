import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import type { Address, Hex } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createChainClient } from '../../lib/chain/client.js'
import { deployServicesFrom } from '../../lib/deploy/instance.js'
import { createDeployServices } from '../../lib/deploy/services.js'
import { createPaidDeployEndpoint } from '../../lib/payments/endpoint.js'
import { createPaymentFacilitator } from '../../lib/payments/facilitator/httpFacilitator.js'
import { paymentsSourceFrom } from '../../lib/payments/instance.js'
import { paymentKeys } from '../../lib/payments/keys.js'
import { keepIdempotencyKey, UNSETTLED_TTL_MS } from '../../lib/payments/ledger/lifetimes.js'
import { claimIdempotencyKey, type PaymentRecord, paymentRecordSchema, sha256 } from '../../lib/payments/ledger/paymentRecord.js'
import { silentLogger } from '../../lib/platform/log.js'
import { createMemoryStore } from '../../lib/store/memory.js'
import { parseRecord } from '../../lib/store/records.js'
import { createUpstashStore } from '../../lib/store/upstash.js'
import { fakeKmsClient } from '../support/fakeKms.js'
import { withOpenApiCheck } from '../support/openapiCheck.js'
import { fundedPayer, type PaidDoorParts, startPaidDoorParts } from '../support/paidDoorParts.js'
import { signPaymentHeader } from '../support/payingClient.js'
import { openRespConnection, type RespConnection } from '../support/resp.js'
import { createTestClock, type TestClock } from '../support/testClock.js'

// The paid door against cheap floods, in process over the real parts (the Upstash front over redis, anvil with the
// test USDC, the local facilitator over HTTP): anyone can sign a valid x402 payment from a random, unfunded key, so
// nothing such a request leaves in the store may outlive a few minutes, and the facilitator's verifies are budgeted
// per payer as well as per client address. Each case has a store prefix of its own, so its keys are all it reads.

const DOOR = 'https://svc.test/api/x402/deploy'
/** The most a key written before a verify passed may live: a few minutes. */
const MINUTES = 10 * 60_000
/** What a record or key that must be kept lives at least (30 days, less a day). */
const KEPT = 29 * 86_400_000
type Answer = { status: number; headers: Headers; body: Record<string, any> }

describe('the paid door against cheap floods', () => {
  let parts: PaidDoorParts
  let redis: RespConnection
  let requirements: PaymentRequirements

  beforeAll(async () => {
    parts = await startPaidDoorParts({ redisSocket: inject('redisSocket'), storePrefix: `flood${process.pid}:` })
    redis = await openRespConnection(inject('redisSocket'))
    const asked = await doorOf({}).send({ name: 'Ask', symbol: 'ASK' })
    requirements = decodePaymentRequiredHeader(asked.headers.get('payment-required')!).accepts[0]!
  }, 120_000)
  afterAll(async () => {
    redis?.close()
    await parts?.close()
  })

  /** A door over the parts with a store prefix of its own, these settings and the door's clock; its keys and sender. */
  function doorOf(env: Record<string, string>, clock?: TestClock) {
    const storePrefix = `flood${process.pid}-${Math.random().toString(36).slice(2, 8)}:`
    const all: Record<string, string> = { ...parts.env, ...env, STORE_KEY_PREFIX: storePrefix }
    const store = createUpstashStore({ url: all.UPSTASH_REDIS_REST_URL!, token: all.UPSTASH_REDIS_REST_TOKEN! })
    const services = createDeployServices({
      env: all,
      store,
      publicClient: createChainClient({ rpcUrl: parts.chain.rpcUrl, chainId: 8453, timeoutMs: 3000 }),
      kms: fakeKmsClient(parts.kms.url, 'AKIAFLOODTEST00001', 'flood-test-secret'),
      logger: silentLogger,
    })
    const facilitator = createPaymentFacilitator({ url: parts.facilitator.url, cdp: null, now: Date.now, settleTimeoutMs: 1500 })
    const source = paymentsSourceFrom({ deploy: deployServicesFrom(() => services), env: all, facilitator, clock: clock?.clock })
    const handle = withOpenApiCheck('/api/x402/deploy', createPaidDeployEndpoint(source))
    const send = async (body: unknown, headers: Record<string, string> = {}, client = '198.51.100.1'): Promise<Answer> => {
      const response = await handle(
        new Request(DOOR, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-real-ip': client, ...headers },
          body: JSON.stringify(body),
        }),
      )
      return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> }
    }
    return { send, store, storePrefix, keys: paymentKeys({ storePrefix, chainId: 8453 }) }
  }

  /** Every key holding a prefix (the throttle's start with ':', @upstash/ratelimit's join), with its PTTL (-1: for ever). */
  async function lifetimes(prefix: string): Promise<Map<string, number>> {
    const found = new Map<string, number>()
    let cursor = '0'
    do {
      const [next, batch] = (await redis.send(['SCAN', cursor, 'MATCH', `*${prefix}*`, 'COUNT', '1000'])) as [string, string[]]
      for (const key of batch) {
        const ttl = Number(await redis.send(['PTTL', key]))
        if (ttl !== -2) found.set(key, ttl) // -2: it lapsed since the SCAN
      }
      cursor = String(next)
    } while (cursor !== '0')
    return found
  }
  const verifies = () => parts.facilitator.calls.filter((c) => c === 'verify').length
  const settles = () => parts.facilitator.calls.filter((c) => c === 'settle').length
  /** A payment signed by `privateKey` for the door's requirements: its header and nonce. */
  const payment = async (privateKey: Hex) => {
    const header = await signPaymentHeader({ privateKey, requirements })
    const { nonce } = (JSON.parse(Buffer.from(header, 'base64').toString()) as { payload: { authorization: { nonce: Hex } } }).payload
      .authorization
    return { header, nonce }
  }
  /** A payment that says it is from `from` but is signed by another key (its signature recovers to that one). */
  const forged = async (from: Address) => {
    const payload = JSON.parse(Buffer.from((await payment(generatePrivateKey())).header, 'base64').toString()) as PaymentPayload
    const authorization = (payload.payload as { authorization: Record<string, string> }).authorization
    return encodePaymentSignatureHeader({ ...payload, payload: { ...payload.payload, authorization: { ...authorization, from } } })
  }

  it('keeps nothing an unfunded flood leaves for more than minutes: each request costs one verify, its keys lapse', async () => {
    const door = doorOf({})
    const before = verifies()
    // 5 random keys holding nothing, 4 payments each, each with an Idempotency-Key of its own, from 20 client addresses.
    const payers = Array.from({ length: 5 }, () => generatePrivateKey())
    let n = 0
    for (const key of payers)
      for (let i = 0; i < 4; i++) {
        const { header } = await payment(key)
        const answer = await door.send(
          { name: 'Flood', symbol: 'FLOOD' },
          { 'payment-signature': header, 'idempotency-key': `flood-${n}` },
          `203.0.113.${++n}`,
        )
        expect(answer.status).toBe(402)
        expect(answer.body).toMatchObject({ ok: false, code: 'PAYMENT_INVALID' })
      }
    expect(verifies() - before).toBe(20)
    const left = await lifetimes(door.storePrefix)
    // The refused records, their keys, the payers' budgets and the clients' throttle are there, for minutes.
    for (const kind of [':payment:', ':idempotency:', ':verifies:', ':throttle:'])
      expect(
        [...left.keys()].some((key) => key.includes(kind)),
        kind,
      ).toBe(true)
    const outliving = [...left].filter(([, ttl]) => ttl < 0 || ttl > MINUTES)
    expect(outliving).toEqual([])
  })

  it('costs an unfunded request with a key 7 store commands, and one its payer’s budget refuses 5', async () => {
    const door = doorOf({ X402_RATE_LIMIT_PER_MINUTE: '2' })
    const key = generatePrivateKey()
    const sendOne = async (n: number) => {
      const { header } = await payment(key)
      const before = parts.upstash.commands.length
      const answer = await door.send(
        { name: 'Cost', symbol: 'COST' },
        { 'payment-signature': header, 'idempotency-key': `cost-${n}` },
        `203.0.113.${100 + n}`,
      )
      return { answer, commands: parts.upstash.commands.slice(before) }
    }
    await sendOne(0) // the instance's scripts sent whole once
    // The client's throttle, the payment's lease, one read of its record and key, the payer's budget, the key's claim
    // with its record, the refused record, the lease let go.
    const refused = await sendOne(1)
    expect(refused.answer.status).toBe(402)
    expect(refused.commands).toHaveLength(7)
    // The throttle, the lease, the read, the budget (refused), the lease let go.
    const throttled = await sendOne(2)
    expect(throttled.answer.status).toBe(429)
    expect(throttled.commands).toHaveLength(5)
  })

  it('keeps a payment refused by the facilitator’s verify for minutes, not days', async () => {
    const door = doorOf({})
    const key = generatePrivateKey()
    const { header, nonce } = await payment(key)
    const answer = await door.send({ name: 'Refused', symbol: 'REFU' }, { 'payment-signature': header, 'idempotency-key': 'refused-1' })
    expect(answer.status).toBe(402)
    const recordKey = door.keys.payment(privateKeyToAddress(key), nonce)
    expect(parseRecord(paymentRecordSchema, await door.store.get(recordKey))).toMatchObject({ state: 'refused' })
    const ttl = Number(await redis.send(['PTTL', recordKey]))
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(MINUTES)
  })

  it('keeps a payment refused after its settle (the chain shows nothing moved) for minutes, not days', async () => {
    const door = doorOf({})
    const key = await fundedPayer(parts)
    const { header, nonce } = await payment(key)
    const before = settles()
    parts.facilitator.setFault('refuse-settle')
    let answer: Answer
    try {
      answer = await door.send({ name: 'Unpaid', symbol: 'UNPD' }, { 'payment-signature': header })
    } finally {
      parts.facilitator.setFault(null)
    }
    expect(answer.body).toMatchObject({ ok: false, code: 'PAYMENT_FAILED' })
    expect(settles() - before).toBe(1)
    const recordKey = door.keys.payment(privateKeyToAddress(key), nonce)
    expect(parseRecord(paymentRecordSchema, await door.store.get(recordKey))).toMatchObject({ state: 'refused' })
    const ttl = Number(await redis.send(['PTTL', recordKey]))
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(MINUTES)
  })

  it('keeps for 30 days a payment whose settle was asked, and its Idempotency-Key: unknown, then deployed', async () => {
    const door = doorOf({})
    const key = await fundedPayer(parts)
    const payer = privateKeyToAddress(key)
    const { header, nonce } = await payment(key)
    const headers = { 'payment-signature': header, 'idempotency-key': 'kept-1' }
    const body = { name: 'Kept', symbol: 'KEPT' }
    parts.facilitator.setFault('hold-settle')
    let unknown: Answer
    try {
      unknown = await door.send(body, headers)
    } finally {
      parts.facilitator.setFault(null)
    }
    expect(unknown.body).toMatchObject({ code: 'PAYMENT_UNKNOWN' })
    const recordKey = door.keys.payment(payer, nonce)
    const aliasKey = door.keys.idempotency(payer, sha256('kept-1'))
    for (const kept of [recordKey, aliasKey]) expect(Number(await redis.send(['PTTL', kept])), kept).toBeGreaterThan(KEPT)
    await parts.facilitator.landHeld()
    const deployed = await door.send(body, headers)
    expect(deployed.body).toMatchObject({ ok: true, status: 'broadcast' })
    expect(parseRecord(paymentRecordSchema, await door.store.get(recordKey))).toMatchObject({ state: 'deployed' })
    for (const kept of [recordKey, aliasKey]) expect(Number(await redis.send(['PTTL', kept])), kept).toBeGreaterThan(KEPT)
  })

  it('keeps a claimed Idempotency-Key for 30 days only while it names the payment (Redis and the in-process twin alike)', async () => {
    const door = doorOf({})
    const payer = privateKeyToAddress(generatePrivateKey()).toLowerCase()
    const [nonce, other] = [`0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`]
    const record: PaymentRecord = paymentRecordSchema.parse({
      state: 'verifying',
      bodyHash: 'x',
      payer,
      nonce,
      amount: '1',
      asset: parts.usdc.address,
      network: 'eip155:8453',
      validBefore: 0,
      at: 0,
      transaction: null,
      confirmed: false,
      credit: null,
      answer: null,
    })
    for (const on of [door.store, createMemoryStore()]) {
      const ref = { keys: door.keys, payer, nonce }
      expect(await claimIdempotencyKey(on, ref, { keyHash: 'k1', record, replacing: null })).toBe(true)
      // Another payment, a key never claimed: not kept.
      expect(await keepIdempotencyKey(on, { ...ref, nonce: other, keyHash: 'k1' })).toBe(false)
      expect(await keepIdempotencyKey(on, { ...ref, keyHash: 'k2' })).toBe(false)
      if (on === door.store)
        expect(Number(await redis.send(['PTTL', door.keys.idempotency(payer, 'k1')]))).toBeLessThanOrEqual(UNSETTLED_TTL_MS)
      expect(await keepIdempotencyKey(on, { ...ref, payer: payer.toUpperCase().replace('0X', '0x'), keyHash: 'k1' })).toBe(true)
      if (on === door.store) expect(Number(await redis.send(['PTTL', door.keys.idempotency(payer, 'k1')]))).toBeGreaterThan(KEPT)
    }
  })

  it('budgets verifies per payer across client addresses; a forged payer costs it nothing; the budget frees after a minute', async () => {
    const clock = createTestClock()
    const door = doorOf({ X402_RATE_LIMIT_PER_MINUTE: '3' }, clock)
    const key = generatePrivateKey()
    const payer = privateKeyToAddress(key)
    const body = { name: 'Budget', symbol: 'BUDG' }
    const before = verifies()
    // Payments naming the payer that its key never signed: refused by the local checks, before any count.
    for (let i = 0; i < 3; i++) {
      const answer = await door.send(body, { 'payment-signature': await forged(payer) }, `192.0.2.${i + 1}`)
      expect(answer.body).toMatchObject({ code: 'PAYMENT_INVALID', reason: 'invalid_signature' })
    }
    expect(verifies() - before).toBe(0)
    // The payer's own, each from another client address (none of them past its own limit): three verifies a minute.
    for (let i = 0; i < 3; i++) {
      const { header } = await payment(key)
      const answer = await door.send(body, { 'payment-signature': header, 'idempotency-key': `budget-${i}` }, `192.0.2.${10 + i}`)
      expect(answer.body).toMatchObject({ code: 'PAYMENT_INVALID' })
    }
    expect(verifies() - before).toBe(3)
    const { header } = await payment(key)
    const refused = await door.send(body, { 'payment-signature': header, 'idempotency-key': 'budget-3' }, '192.0.2.20')
    expect(refused.status).toBe(429)
    expect(refused.body).toMatchObject({ ok: false, code: 'RATE_LIMITED' })
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60)
    expect(verifies() - before).toBe(3)
    // It wrote nothing: its Idempotency-Key is not claimed.
    expect(await door.store.get(door.keys.idempotency(payer, sha256('budget-3')))).toBeNull()
    // Another payer is not held back by this one's budget.
    const other = await payment(generatePrivateKey())
    expect((await door.send(body, { 'payment-signature': other.header }, '192.0.2.20')).body).toMatchObject({ code: 'PAYMENT_INVALID' })
    expect(verifies() - before).toBe(4)
    // A minute later on the door's clock, the payer is verified again.
    clock.now += 60_001
    const again = await door.send(body, { 'payment-signature': header, 'idempotency-key': 'budget-3' }, '192.0.2.21')
    expect(again.body).toMatchObject({ code: 'PAYMENT_INVALID' })
    expect(verifies() - before).toBe(5)
  })
})
