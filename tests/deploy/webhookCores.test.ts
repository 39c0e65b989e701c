import { describe, expect, it } from 'vitest'
import { encodeCreateB20 } from '../../lib/chain/b20.js'
import { encodeBirthInitCalls } from '../../lib/chain/tokenBirth.js'
import { checkWebhookUrl, isLoopbackHost, refusedAddressRange } from '../../lib/deploy/agents/webhookUrl.js'
import { isDeployed } from '../../lib/deploy/records/tokenMarkets.js'
import { listedEventSchema } from '../../lib/deploy/webhooks/eventAnswers.js'
import { buildDeployEvent, nextAttemptAt, outcomeOf, statusAfter, WEBHOOK_MAX_ATTEMPTS } from '../../lib/deploy/webhooks/events.js'
import { DEPLOY_EVENT_TYPES } from '../../lib/deploy/webhooks/eventTypes.js'
import { deployEventSubject } from '../../lib/deploy/webhooks/outbox.js'
import { marketOfToken } from '../../lib/launches/tokenMarket.js'
import { parsePair } from '../../lib/upstream/pair.js'
import { v4PoolIdOf } from '../support/realShapes.js'
import { HUBS, makePair } from '../support/syntheticMarket.js'

describe('webhook URLs (pure)', () => {
  it.each([
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.0.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['::ffff:10.0.0.1', 'private'],
    ['[::ffff:169.254.169.254]', 'linkLocal'],
  ])('refuses %s (%s)', (host, range) => {
    expect(refusedAddressRange(host)).toBe(range)
  })

  it.each(['8.8.8.8', '2606:4700::1111', 'example.com', 'hooks.agent.example'])('lets %s through to the connection check', (host) => {
    expect(refusedAddressRange(host)).toBeNull()
  })

  it('knows this machine by name and by address', () => {
    for (const host of ['localhost', 'LOCALHOST', 'api.localhost', '127.0.0.1', '[::1]']) expect(isLoopbackHost(host), host).toBe(true)
    for (const host of ['localhost.example.com', '10.0.0.1', 'example.com']) expect(isLoopbackHost(host), host).toBe(false)
  })

  it('accepts https anywhere public, and http only to this machine off Vercel', () => {
    expect(checkWebhookUrl({ url: 'https://hooks.example.com/deploys?x=1#frag', onVercel: true })).toEqual({
      ok: true,
      url: 'https://hooks.example.com/deploys?x=1',
    })
    expect(checkWebhookUrl({ url: 'http://127.0.0.1:4000/hook', onVercel: false })).toMatchObject({ ok: true })
    expect(checkWebhookUrl({ url: 'http://localhost:4000/hook', onVercel: false })).toMatchObject({ ok: true })
    expect(checkWebhookUrl({ url: 'https://[::1]:4000/hook', onVercel: false })).toMatchObject({ ok: true })
  })

  it.each([
    ['http://hooks.example.com/x', false, 'must be https (plain http only to this machine, and only off Vercel)'],
    ['http://127.0.0.1/x', true, 'must not point at this machine (loopback) on Vercel'],
    ['https://localhost/x', true, 'must not point at this machine (loopback) on Vercel'],
    ['https://10.0.0.1/x', false, 'must not point at a private address'],
    ['https://169.254.169.254/latest', false, 'must not point at a linkLocal address'],
    // The URL parser turns these spellings into the address they mean.
    ['https://0xa9fea9fe/latest', false, 'must not point at a linkLocal address'],
    ['https://2852039166/latest', false, 'must not point at a linkLocal address'],
    ['https://[::ffff:a9fe:a9fe]/latest', false, 'must not point at a linkLocal address'],
    ['https://0.0.0.0/x', false, 'must not point at a unspecified address'],
    ['https://u:p@hooks.example.com/x', false, 'must not carry a user name or password'],
    ['file:///etc/passwd', false, 'must be https'],
    ['hooks.example.com/x', false, 'is not an absolute URL'],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, false, 'is longer than 2048 characters'],
  ])('refuses %s (on Vercel: %s)', (url, onVercel, reason) => {
    expect(checkWebhookUrl({ url, onVercel })).toEqual({ ok: false, code: 'WEBHOOK_URL_REFUSED', reason })
  })
})

describe('what an attempt means (pure)', () => {
  const fresh = { lastAttemptAt: null, lastDeliveryAt: null, lastError: null, lastErrorAt: null, failing: 2, failedEvents: 1 }

  it('retries a failure on the schedule, gives up after the last attempt, and disables on 410', () => {
    expect(outcomeOf({ ok: true, status: 200 }, 1, 1000)).toEqual({ outcome: 'delivered', next: null, error: null })
    expect(outcomeOf({ ok: false, status: 500, error: 'status 500' }, 1, 1000)).toEqual({
      outcome: 'retrying',
      next: nextAttemptAt(1, 1000),
      error: 'status 500',
    })
    expect(outcomeOf({ ok: false, status: null, error: 'timeout' }, WEBHOOK_MAX_ATTEMPTS, 1000)).toMatchObject({
      outcome: 'failed',
      next: null,
    })
    expect(outcomeOf({ ok: false, status: 410, error: 'gone' }, 1, 1000)).toMatchObject({ outcome: 'disabled', next: null })
  })

  it('counts failures in a row until a delivery, and events given up', () => {
    expect(statusAfter(fresh, { startedAt: 1, at: 2, outcome: 'delivered', error: null })).toMatchObject({ failing: 0, lastDeliveryAt: 2 })
    expect(statusAfter(fresh, { startedAt: 1, at: 2, outcome: 'retrying', error: 'e' })).toMatchObject({
      failing: 3,
      failedEvents: 1,
      lastError: 'e',
    })
    expect(statusAfter(fresh, { startedAt: 1, at: 2, outcome: 'failed', error: 'e' })).toMatchObject({ failing: 3, failedEvents: 2 })
    expect(statusAfter(fresh, { startedAt: 1, at: 2, outcome: 'disabled', error: 'e' })).toMatchObject({ failedEvents: 2, lastErrorAt: 2 })
  })
})

describe('deploy events (pure)', () => {
  const subject = {
    txHash: `0x${'Ab'.repeat(32)}`,
    predictedAddress: `0x${'cd'.repeat(20)}`,
    name: 'Tok',
    symbol: 'TOK',
    initialSupply: '1000',
    supplyCap: null,
    recipient: `0x${'ef'.repeat(20)}`,
  }

  it('builds { type, timestamp, data } with the subject in every data, and an id stable for the same outcome', () => {
    const at = Date.UTC(2026, 10, 24, 12, 0, 0)
    const event = buildDeployEvent({ chainId: 8453, type: 'deploy.confirmed', subject, details: { blockNumber: 7 }, at })
    expect(JSON.parse(event.body)).toEqual({
      type: 'deploy.confirmed',
      timestamp: '2026-11-24T12:00:00.000Z',
      data: { ...subject, blockNumber: 7 },
    })
    expect(event.id).toMatch(/^msg_[A-Za-z0-9_-]{27}$/)
    // Seen again later, or with the hash in another case: the same event.
    expect(
      buildDeployEvent({
        chainId: 8453,
        type: 'deploy.confirmed',
        subject: { ...subject, txHash: subject.txHash.toLowerCase() },
        at: at + 9,
      }).id,
    ).toBe(event.id)
    // Another type, chain or key: another event.
    const ids = new Set([
      event.id,
      buildDeployEvent({ chainId: 8453, type: 'deploy.reverted', subject, at }).id,
      buildDeployEvent({ chainId: 84532, type: 'deploy.confirmed', subject, at }).id,
      buildDeployEvent({ chainId: 8453, type: 'deploy.confirmed', subject, key: 'other', at }).id,
    ])
    expect(ids.size).toBe(4)
  })

  it('retries 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after each failure, then stops', () => {
    const now = 1_000_000
    const delays = Array.from({ length: WEBHOOK_MAX_ATTEMPTS }, (_, i) => nextAttemptAt(i + 1, now))
    expect(delays.map((at) => (at === null ? null : (at - now) / 1000))).toEqual([
      5,
      300,
      1800,
      7200,
      18000,
      36000,
      50400,
      72000,
      86400,
      null,
    ])
    expect(nextAttemptAt(0, now)).toBeNull()
  })

  it('names a deploy by the hash its agent was given, through replacements, with its supply read from the calldata', () => {
    const admin = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
    const spec = { variant: 'asset', name: 'n', symbol: 's', admin, decimals: 6 } as const
    const salt = `0x${'11'.repeat(32)}` as const
    const record = {
      agent: 'a',
      txHash: '0x02',
      predictedAddress: '0xp',
      name: 'n',
      symbol: 's',
      decimals: 6,
      data: encodeCreateB20(spec, salt),
    }
    expect(deployEventSubject(record)).toEqual({
      txHash: '0x02',
      predictedAddress: '0xp',
      name: 'n',
      symbol: 's',
      initialSupply: null,
      supplyCap: null,
      recipient: null,
    })
    const minting = encodeCreateB20(
      spec,
      salt,
      encodeBirthInitCalls({ minter: admin, supplyCap: 5_000_000n, mint: { to: admin, units: 1_500_000n } }),
    )
    expect(deployEventSubject({ ...record, data: minting })).toMatchObject({ initialSupply: '1.5', supplyCap: '5', recipient: admin })
    expect(deployEventSubject(record).txHash).toBe('0x02')
    expect(deployEventSubject({ ...record, replaces: '0x01' }).txHash).toBe('0x01')
    expect(deployEventSubject({ ...record, replaces: '0x02b', originalTxHash: '0x01' }).txHash).toBe('0x01')
  })
})

describe('a deployed token’s market (pure)', () => {
  const token = { address: '0x1234567890AbCdEf1234567890abcdef12345678', name: 'New', symbol: 'NEW' }
  const pair = (over: Parameters<typeof makePair>[0]) => parsePair(makePair(over))!

  it('is null until the token is the base of a pair', () => {
    expect(marketOfToken({ address: token.address, pairs: [], firstSeenAt: 'x' })).toBeNull()
    const quoteSide = pair({ base: HUBS.WETH, quote: token, pairAddress: `0x${'1'.repeat(40)}`, volume24h: 1e6 })
    expect(marketOfToken({ address: token.address, pairs: [quoteSide], firstSeenAt: 'x' })).toBeNull()
  })

  it('takes the pair with the most liquidity, then volume, whatever the address case; v4 ids and missing fields hold', () => {
    const v4 = makePair({ base: token, quote: HUBS.WETH, pairAddress: v4PoolIdOf(`0x${'2'.repeat(40)}`), volume24h: 500, priceUsd: null })
    delete (v4 as Record<string, unknown>).liquidity
    const shallow = pair({ base: token, quote: HUBS.USDC, pairAddress: `0x${'3'.repeat(40)}`, volume24h: 100, liquidityUsd: 900 })
    const lower = token.address.toLowerCase()
    expect(marketOfToken({ address: lower, pairs: [parsePair(v4)!], firstSeenAt: 'first' })).toEqual({
      source: 'dexscreener',
      pairAddress: v4PoolIdOf(`0x${'2'.repeat(40)}`),
      dexId: 'uniswap',
      priceUsd: null,
      priceEth: null,
      marketCapEth: null,
      liquidity: 0,
      volume24h: 500,
      volume24hEth: null,
      trades24h: null,
      lastTradeAt: null,
      pairUrl: expect.stringContaining('https://dexscreener.com/base/'),
      firstSeenAt: 'first',
    })
    expect(marketOfToken({ address: lower, pairs: [parsePair(v4)!, shallow], firstSeenAt: 'first' })?.pairAddress).toBe(
      `0x${'3'.repeat(40)}`,
    )
    const sameLiquidity = pair({ base: token, quote: HUBS.WETH, pairAddress: `0x${'4'.repeat(40)}`, volume24h: 700, liquidityUsd: 900 })
    expect(marketOfToken({ address: lower, pairs: [shallow, sameLiquidity], firstSeenAt: 'f' })?.pairAddress).toBe(`0x${'4'.repeat(40)}`)
  })

  it('counts a deploy as deployed once confirmed, or replaced by a confirmed copy', () => {
    expect(isDeployed({ status: 'confirmed' })).toBe(true)
    expect(isDeployed({ status: 'replaced', replacementStatus: 'confirmed' })).toBe(true)
    for (const record of [
      { status: 'broadcast' },
      { status: 'reverted' },
      { status: 'replaced' },
      { status: 'replaced', replacementStatus: 'reverted' },
    ] as const)
      expect(isDeployed(record), JSON.stringify(record)).toBe(false)
  })
})

describe('list_events', () => {
  it('answers every webhook event type there is, and no other (the schema writes the list out)', () => {
    expect(listedEventSchema.shape.type.options).toEqual([...DEPLOY_EVENT_TYPES])
  })
})
