import { execFile } from 'node:child_process'
import { createPublicKey, verify } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types'
import {
  type DiscoveryExtension,
  sanitizeResourceServiceMetadata,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
} from '@x402/extensions/bazaar'
import { type EIP712SignedReceipt, extractReceiptFromResponse, verifyReceiptSignatureEIP712 } from '@x402/extensions/offer-receipt'
import type { Address, Hex, PublicClient } from 'viem'
import { expect, it as vitestIt } from 'vitest'
import { EXECUTE_BATCH_SELECTOR } from '../../lib/chain/batchAccount.js'
import { canonicalJson } from '../../lib/deploy/pipeline/idempotency.js'
import { PAYMENT_HEADER_MAX_LENGTH } from '../../lib/payments/door/paymentPayload.js'
import { paymentKeys } from '../../lib/payments/keys.js'
import { type PaymentRecord, saveOpenPayment, sha256 } from '../../lib/payments/ledger/paymentRecord.js'
import { createUpstashStore } from '../../lib/store/upstash.js'
import { runAgents } from './agentsCommand.js'
import { ROLES, tokenAt } from './b20Token.js'
import { fetchChecked } from './openapiCheck.js'
import { fundedPayer, type PaidDoorParts, TEST_POOL_PRICE_UNITS, TEST_PRICE, TEST_PRICE_UNITS } from './paidDoorParts.js'
import { createPayingClient, type PayingClient, signPaymentHeader } from './payingClient.js'
import { findLeaks } from './secrets.js'
import { BASE_USDC } from './testUsdc.js'

// The paid door's case list, on any target that serves the service over HTTP: npm start, or the Vercel
// build output's functions. Every case stands alone (its own payer), counts what the facilitator settled, what KMS
// signed and what the RPC was sent, and checks balances on chain.

/** What the cases run against. */
export type PaidDoorTarget = {
  parts: PaidDoorParts
  /** Two instances of the door over the parts. */
  doors: [string, string]
  /** An instance whose paid cap is full (`X402_DAILY_CAP=0`): allowlisted agents still deploy there. */
  full: string
  /** The origin a door names itself by (its 402's resource, its manifest, its receipts): its PUBLIC_URL, or Vercel's production URL. */
  publicOrigin: (door: string) => string
  /** Every line the instances wrote. */
  lines: () => string[]
}

const DOOR = '/api/x402/deploy'
const json = { 'content-type': 'application/json' }
type Answer = { status: number; headers: Headers; body: Record<string, any> }

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** `npm run agents -- credits --json` as an operator runs it against the parts' store: the open payments it lists. */
async function listedCredits(env: Record<string, string>): Promise<{ credit: { id: string } | null; state: string }[]> {
  const run = await runAgents(['credits', '--json'], env)
  if (run.status !== 0) throw new Error(`npm run agents -- credits failed: ${run.stderr}`)
  return JSON.parse(run.stdout)
}

/** CORS-safelisted request headers (the Fetch standard), which a browser sends without asking the server first. */
const SAFELISTED_HEADERS = new Set(['accept', 'accept-language', 'content-language'])
const SAFELISTED_CONTENT_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'])

/**
 * The header names a browser lists in `Access-Control-Request-Headers` for a request with these headers: every one
 * but the safelisted, lower-cased and sorted as the Fetch standard sends them (by name: the values here are plain).
 */
function preflightedHeaderNames(headers: Headers): string[] {
  const safelisted = ([name, value]: [string, string]) =>
    SAFELISTED_HEADERS.has(name) || (name === 'content-type' && SAFELISTED_CONTENT_TYPES.has(value.split(';')[0]!.trim().toLowerCase()))
  return [...headers]
    .filter((header) => !safelisted(header))
    .map(([name]) => name.toLowerCase())
    .sort()
}

/**
 * A request over plain `node:http`, which sends the Host header it is given (fetch writes its own): what a client that
 * lies about the host sends.
 */
async function sendRaw(
  base: string,
  { method, path, headers, body }: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Headers; text: string }> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: hostname, port, method, path, headers }, (incoming) => {
      const chunks: Buffer[] = []
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
      incoming.on('end', () => {
        const answerHeaders = new Headers()
        for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === 'string') answerHeaders.set(name, value)
        resolve({ status: incoming.statusCode ?? 0, headers: answerHeaders, text: Buffer.concat(chunks).toString('utf8') })
      })
      incoming.on('error', reject)
    })
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

/**
 * The cases that also run over the Vercel build output (tests/platform/vercelBuild.test.ts). The whole list runs over
 * npm start (tests/payments/paidDoor.test.ts); the same handlers built are proven by the cases that reach each part a
 * bundle could lack or wire differently: the 402 and the discovery functions, the public origin from Vercel's
 * variables, a paid deploy with its receipt (KMS, the chain, the facilitator), two instances sharing one payment, a
 * credit, the facilitator down, a pooled launch (Uniswap's SDKs, required lazily), the full cap, the skill's client,
 * and no secret in what all of those answered. The rest vary the door's own rules, which the build does not change.
 */
export const BUILT_PAID_DOOR_CASES: readonly string[] = [
  'without a payment answers 402',
  'is findable',
  'names itself by its public origin',
  'deploys for a real x402 client',
  'takes the same payload sent twice at once to two instances once',
  'keeps a settled payment whose deploy failed',
  'refuses before any settle when the paid cap is full',
  'answers 503 FACILITATOR_UNAVAILABLE',
  'sells a pooled launch',
  'pays and deploys with the client SKILL.md shows',
  'never puts a secret',
]

/**
 * Registers the case list; `target` is read once the suite's `beforeAll` has built it. `only` keeps the cases whose
 * names begin with one of its entries ({@link BUILT_PAID_DOOR_CASES}).
 */
export function definePaidDoorCases(target: () => PaidDoorTarget, options: { only?: readonly string[] } = {}): void {
  const matched = new Set<string>()
  const kept = (name: string) => {
    const entry = options.only?.find((start) => name.startsWith(start))
    if (entry) matched.add(entry)
    return !options.only || entry !== undefined
  }
  // vitest's own `it` for the kept cases; its `each` is vitest's too, so a table's call site asks `kept` itself.
  const it = Object.assign(
    (name: string, ...rest: unknown[]) => {
      if (kept(name)) (vitestIt as unknown as (...a: unknown[]) => void)(name, ...rest)
    },
    { each: vitestIt.each.bind(vitestIt) },
  ) as unknown as typeof vitestIt
  const seen: string[] = []
  const keep = async (response: Response): Promise<Answer> => {
    const body = (await response.json()) as Record<string, any>
    seen.push(JSON.stringify(body), JSON.stringify([...response.headers]))
    return { status: response.status, headers: response.headers, body }
  }
  const send = async (base: string, body: unknown, headers: Record<string, string> = {}, path = DOOR) =>
    keep(await fetchChecked(`${base}${path}`, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(body) }))
  const pay = async (payer: PayingClient, base: string, body: unknown, headers: Record<string, string> = {}) =>
    keep(await payer.fetch(`${base}${DOOR}`, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(body) }))
  const payer = async (units?: bigint) =>
    createPayingClient({ rpcUrl: target().parts.chain.rpcUrl, privateKey: await fundedPayer(target().parts, units) })
  /** The token at `address` holds `admin` as its admin and minter, and the service's signer holds no role on it. */
  const expectOwnedOnChain = async (address: Address, admin: Address) => {
    const token = tokenAt(target().parts.chain.publicClient as PublicClient, address)
    expect(await token.hasRole(ROLES.admin, admin)).toBe(true)
    expect(await token.hasRole(ROLES.mint, admin)).toBe(true)
    for (const role of Object.values(ROLES)) expect(await token.hasRole(role, target().parts.signer)).toBe(false)
  }
  /** The signed receipt of an answer, as an x402 client reads it from PAYMENT-RESPONSE (the extension's own reader). */
  const receiptOf = (answer: Answer) => extractReceiptFromResponse(new Response(null, { headers: answer.headers }))
  const counts = () => {
    const { facilitator, kms, chain } = target().parts
    return {
      verifies: facilitator.calls.filter((c) => c === 'verify').length,
      settles: facilitator.calls.filter((c) => c === 'settle').length,
      settled: facilitator.settlements.length,
      // KMS signatures: a paid deploy that goes out takes two, its transaction's and its receipt's.
      signs: kms.calls.filter((c) => c === 'Sign').length,
      kms: kms.calls.length,
      sends: chain.rpcMethods.filter((m) => m.startsWith('eth_sendRawTransaction')).length,
      rpc: chain.rpcMethods.length,
    }
  }
  const since = (before: ReturnType<typeof counts>) => {
    const now = counts()
    return Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - before[k as keyof typeof now]])) as typeof now
  }
  const balances = async (who: Address) => ({
    payer: await target().parts.usdc.balanceOf(who),
    payTo: await target().parts.usdc.balanceOf(target().parts.payTo),
  })
  const requirementsAt = async (base: string): Promise<PaymentRequired> => {
    const answer = await send(base, { name: 'Ask', symbol: 'ASK' })
    return decodePaymentRequiredHeader(answer.headers.get('payment-required')!)
  }
  const signedHeader = async (client: PayingClient, accepts: PaymentRequirements, extensions?: Record<string, unknown>) => {
    const payload: PaymentPayload = await client.client.createPaymentPayload({
      x402Version: 2,
      resource: { url: 'x' },
      accepts: [accepts],
      extensions,
    } as never)
    return encodePaymentSignatureHeader(payload)
  }

  it('without a payment answers 402 with the x402 v2 PAYMENT-REQUIRED header, costing no KMS call, and no RPC call once the instance has read the chain’s terms', async () => {
    // An instance reads its asset's terms once and the variants' activation every few minutes; then a 402 costs none.
    const first = counts()
    await send(target().doors[0], { name: 'Unpaid Token', symbol: 'UNPAID' })
    expect(since(first)).toMatchObject({ kms: 0, verifies: 0 })
    const before = counts()
    const answer = await send(target().doors[0], { name: 'Unpaid Token', symbol: 'UNPAID' })
    expect(since(before)).toMatchObject({ rpc: 0, kms: 0, verifies: 0 })
    expect(answer.status).toBe(402)
    const required = decodePaymentRequiredHeader(answer.headers.get('payment-required')!)
    const accepts = {
      scheme: 'exact',
      network: 'eip155:8453',
      amount: TEST_PRICE_UNITS.toString(),
      asset: BASE_USDC.address,
      payTo: target().parts.payTo,
      maxTimeoutSeconds: 300,
      extra: { name: BASE_USDC.name, version: BASE_USDC.version },
    }
    const url = `${target().publicOrigin(target().doors[0])}/api/x402/deploy`
    expect(required).toMatchObject({ x402Version: 2, accepts: [accepts], resource: { url } })
    expect(required.extensions).toHaveProperty('payment-identifier')
    // Before anyone pays, it says who will own the token: the payer, the body naming no admin.
    expect(answer.body).toMatchObject({
      ok: false,
      code: 'PAYMENT_REQUIRED',
      error: expect.stringContaining('you, the payer'),
      accepts: [accepts],
    })
    expect(answer.headers.get('ratelimit-policy')).toMatch(/^"x402";q=\d+;w=60$/)
    expect(answer.headers.get('ratelimit')).toMatch(/^"x402";r=\d+;t=\d+$/)
    expect(answer.headers.get('access-control-expose-headers')).toMatch(/PAYMENT-REQUIRED.*PAYMENT-RESPONSE/)
  })

  it('is findable: a bazaar extension @x402/extensions validates in the 402, the manifest on the origin, the price in the document', async () => {
    const door = target().doors[0]
    const answer = await send(door, { name: 'Found Token', symbol: 'FOUND' })
    const required = decodePaymentRequiredHeader(answer.headers.get('payment-required')!)
    const bazaar = required.extensions!.bazaar as DiscoveryExtension
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true })
    expect(validateDiscoveryExtensionSpec(bazaar as never)).toEqual({ valid: true })
    expect(bazaar.info.input).toMatchObject({ type: 'http', method: 'POST', bodyType: 'json' })
    // Its listing's words within the catalogs' limits: the description under 450 characters, the service's name and
    // tags kept whole by the extension's own sanitizer.
    expect(required.resource.description!.length).toBeLessThan(450)
    const { serviceName, tags } = required.resource
    expect(sanitizeResourceServiceMetadata(required.resource)).toEqual({ serviceName, tags })
    // Its input schema is the intent's: a real one passes, a bad one does not.
    const withBody = (body: unknown) =>
      validateDiscoveryExtension({ ...bazaar, info: { ...bazaar.info, input: { ...bazaar.info.input, body } } } as DiscoveryExtension)
    expect(withBody({ name: 'Found Token', symbol: 'FOUND', initialSupply: '1000', recipient: target().parts.payTo })).toEqual({
      valid: true,
    })
    expect(withBody({ name: 'Found Token', symbol: 'B@D', colour: 'red' })).toMatchObject({ valid: false })
    // The origin's manifest, at the well-known path and at its function's own, points at this door with the 402's words.
    for (const path of ['/.well-known/x402', '/api/x402/manifest']) {
      const manifest = await keep(await fetchChecked(`${door}${path}`, { headers: { origin: 'https://agent.example' } }))
      expect(manifest.status).toBe(200)
      expect(manifest.headers.get('access-control-allow-origin')).toBe('*')
      expect(manifest.body).toEqual({
        version: 1,
        resources: [required.resource.url],
        instructions: expect.any(String),
        x402Version: 2,
        kind: 'resource-server',
        name: required.resource.serviceName,
        description: expect.any(String),
        endpoints: [{ url: required.resource.url, method: 'POST', description: required.resource.description }],
        docs: `${target().publicOrigin(door)}/skill.md`,
        openapi: `${target().publicOrigin(door)}/openapi.json`,
        updated: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      })
    }
    const preflight = await fetch(`${door}/.well-known/x402`, {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    // The OpenAPI document marks the paid operation with this deployment's price and scheme (the amount in base units
    // is the 402's: only the chain's decimals() say it).
    const document = await keep(await fetchChecked(`${door}/openapi.json`))
    expect(document.body.paths['/api/x402/deploy'].post['x-payment-info']).toMatchObject({
      price: { mode: 'fixed', currency: 'USD', amount: TEST_PRICE },
      protocols: [{ x402: { scheme: 'exact', network: 'eip155:8453', payTo: target().parts.payTo } }],
      discovery: '/.well-known/x402',
    })
  })

  it('names itself by its public origin, whatever Host and X-Forwarded-Host a client sends: the 402, the manifest, the receipt', async () => {
    const door = target().doors[0]
    const url = `${target().publicOrigin(door)}/api/x402/deploy`
    const hostile = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }
    const body = JSON.stringify({ name: 'Hostile Host', symbol: 'HOST' })
    const asked = await sendRaw(door, { method: 'POST', path: DOOR, headers: { ...hostile, ...json }, body })
    expect(asked.status).toBe(402)
    const required = decodePaymentRequiredHeader(asked.headers.get('payment-required')!)
    expect(required.resource.url).toBe(url)
    const manifest = await sendRaw(door, { method: 'GET', path: '/.well-known/x402', headers: hostile })
    expect(manifest.status).toBe(200)
    // Paid through the same lie: the receipt signs the public URL too.
    const client = await payer()
    const header = await signedHeader(client, required.accepts[0]!)
    const paid = await sendRaw(door, { method: 'POST', path: DOOR, headers: { ...hostile, ...json, 'payment-signature': header }, body })
    const answer = JSON.parse(paid.text) as Record<string, any>
    expect(answer).toMatchObject({ ok: true, status: 'broadcast', payment: { receipt: { payload: { resourceUrl: url } } } })
    seen.push(asked.text, manifest.text, paid.text)
    const everything = [asked.text, JSON.stringify(required), manifest.text, paid.text, JSON.stringify([...paid.headers])]
    for (const text of everything) expect(text).not.toContain('evil')
  })

  it('asks the catalog’s probes to pay: POST {}, a GET and an invalid body get the 402, naming what to fix, for fewer store commands than a valid one', async () => {
    const door = target().doors[0]
    const commands = () => target().parts.upstash.commands.length
    await send(door, { name: 'Warm', symbol: 'WARM' }) // the instance reads the chain's terms once
    let before = commands()
    const valid = await send(door, { name: 'Probe', symbol: 'PROBE' })
    // A 402 that could be sold: the throttle and a look at the paid cap; one the door would refuse: the throttle alone.
    const validCommands = commands() - before
    expect(valid.status).toBe(402)
    expect(validCommands).toBeLessThanOrEqual(2)
    const probes: [string, () => Promise<Answer>, string[]][] = [
      ['POST {}', () => send(door, {}), ['name', 'symbol']],
      ['GET', async () => keep(await fetchChecked(`${door}${DOOR}`)), ['body']],
      ['invalid', () => send(door, { name: '', symbol: 'B@D', decimals: 4 }), ['name', 'symbol', 'decimals']],
    ]
    for (const [name, probe, fields] of probes) {
      const counted = counts()
      before = commands()
      const answer = await probe()
      expect(commands() - before, name).toBeLessThanOrEqual(validCommands - 1)
      expect(since(counted), name).toMatchObject({ rpc: 0, kms: 0, verifies: 0 })
      expect(answer.status, name).toBe(402)
      const required = decodePaymentRequiredHeader(answer.headers.get('payment-required')!)
      expect(required.resource.url, name).toBe(`${target().publicOrigin(door)}${DOOR}`)
      expect(validateDiscoveryExtension(required.extensions!.bazaar as DiscoveryExtension), name).toEqual({ valid: true })
      expect(answer.body, name).toMatchObject({ ok: false, code: 'PAYMENT_REQUIRED', accepts: required.accepts })
      expect(
        answer.body.details.map((d: { field: string }) => d.field),
        name,
      ).toEqual(expect.arrayContaining(fields))
    }
  })

  it('refuses an invalid body a real x402 client paid for before any verify or settle, as /api/b20-skill does: no USDC moved', async () => {
    const signatures: (string | null)[] = []
    const client = createPayingClient({
      rpcUrl: target().parts.chain.rpcUrl,
      privateKey: await fundedPayer(target().parts),
      baseFetch: async (input: RequestInfo | URL, init?: RequestInit) => {
        const request = new Request(input, init)
        signatures.push(request.headers.get('payment-signature'))
        return fetch(request)
      },
    })
    const body = { name: '', symbol: 'B@D', decimals: 4 }
    const [start, before] = [await balances(client.address), counts()]
    // The client answers the 402 by itself, then sends the same body with its payment: refused, never verified.
    const answer = await pay(client, target().doors[0], body)
    expect(signatures).toEqual([null, expect.any(String)])
    expect(answer.status).toBe(200)
    expect(answer.headers.get('payment-response')).toBeNull()
    const keyed = await send(
      target().doors[0],
      { action: 'agent_deploy', ...body },
      { 'x-service-key': target().parts.agent.key },
      '/api/b20-skill',
    )
    expect(answer.body).toEqual(keyed.body)
    expect(answer.body).toMatchObject({ ok: false, code: 'INVALID_INTENT' })
    const dry = await pay(client, target().doors[1], { name: 'Dry', symbol: 'DRY', dryRun: true })
    expect(dry.body).toMatchObject({ code: 'INVALID_INTENT', details: [{ field: 'dryRun' }] })
    expect(since(before)).toMatchObject({ verifies: 0, settles: 0, settled: 0, kms: 0 })
    expect(await balances(client.address)).toEqual(start)
  })

  it('deploys for a real x402 client: paid once, exactly the price from payer to payTo, the token born as asked', async () => {
    const client = await payer()
    const recipient = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
    const [start, before] = [await balances(client.address), counts()]
    const body = { name: 'Paid Token', symbol: 'PAID', initialSupply: '1000', recipient, description: 'Bought with x402.' }
    const answer = await pay(client, target().doors[0], body)
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({
      ok: true,
      status: 'broadcast',
      token: { name: 'Paid Token', symbol: 'PAID', initialSupply: '1000', recipient },
      payment: { payer: client.address, amount: TEST_PRICE_UNITS.toString(), asset: BASE_USDC.address, network: 'eip155:8453' },
    })
    const settlement = decodePaymentResponseHeader(answer.headers.get('payment-response')!)
    expect(settlement).toMatchObject({
      success: true,
      payer: client.address,
      transaction: answer.body.payment.transaction,
      network: 'eip155:8453',
    })
    expect(await balances(client.address)).toEqual({ payer: start.payer - TEST_PRICE_UNITS, payTo: start.payTo + TEST_PRICE_UNITS })
    expect(since(before)).toMatchObject({ verifies: 1, settles: 1, settled: 1, signs: 2 })
    // Its receipt, in PAYMENT-RESPONSE as x402 puts it and in the body: the extension's verifier recovers it to the
    // deploy transaction's sender, so anyone can tie this payer's payment to the service that deployed.
    const signed = receiptOf(answer) as EIP712SignedReceipt
    expect(signed).toEqual(answer.body.payment.receipt)
    const { signer, payload } = await verifyReceiptSignatureEIP712(signed)
    const deployTx = await target().parts.chain.publicClient.getTransaction({ hash: answer.body.txHash })
    expect(signer.toLowerCase()).toBe(deployTx.from.toLowerCase())
    expect(signer).toBe(answer.body.signer)
    expect(payload).toEqual({
      version: 1,
      network: 'eip155:8453',
      resourceUrl: `${target().publicOrigin(target().doors[0])}/api/x402/deploy`,
      payer: client.address,
      issuedAt: expect.any(Number),
      transaction: answer.body.payment.transaction,
    })
    // The receipt is free on the door, for the deploys paid through it.
    const receipt = await send(target().doors[1], { action: 'receipt', tx_hash: answer.body.txHash, waitSeconds: 10 })
    expect(receipt.body).toMatchObject({
      ok: true,
      status: 'confirmed',
      tokenAddress: answer.body.predictedAddress,
      minted: [{ to: recipient, amount: '1000' }],
      // The payment that bought it, beside it, as the ledger knows it: kept, and the deploy it bought went out.
      payment: {
        id: expect.stringMatching(/^pay_[0-9a-f]{24}$/),
        state: 'deployed',
        payer: client.address,
        amount: TEST_PRICE_UNITS.toString(),
        asset: BASE_USDC.address,
        transaction: answer.body.payment.transaction,
      },
    })
    // No admin in the body: the payer owns its token from birth (admin, so minter), as the answer, the receipt and the
    // chain say; the service's signer holds no role on it.
    const owned = { admin: client.address, minter: client.address }
    expect(answer.body.token).toMatchObject(owned)
    expect(receipt.body.token).toMatchObject(owned)
    await expectOwnedOnChain(answer.body.predictedAddress, client.address)
    // The public launches feed lists it as it lists every launch: the token's facts, its roles among them (a role is
    // public on chain: the payer holds them), nothing of how it was paid (no paid agent id, no settlement).
    const feed = await keep(await fetchChecked(`${target().doors[0]}/api/launches?limit=100`))
    expect(feed.body.launches).toContainEqual(
      expect.objectContaining({
        address: answer.body.predictedAddress,
        name: 'Paid Token',
        symbol: 'PAID',
        txHash: answer.body.txHash,
        roles: owned,
      }),
    )
    expect(JSON.stringify(feed.body).toLowerCase()).not.toMatch(new RegExp(`x402:|${answer.body.payment.transaction.slice(2)}`))
    // The facilitator was asked with CDP's credentials: a JWT per call, signed with the key, naming that one request.
    const [jwt] = target().parts.facilitator.authorizations.slice(-1)
    const [header, claims, signature] = jwt!.replace(/^Bearer /, '').split('.') as [string, string, string]
    expect(
      verify(
        'sha256',
        Buffer.from(`${header}.${claims}`),
        { key: createPublicKey(target().parts.cdpSecret), dsaEncoding: 'ieee-p1363' },
        Buffer.from(signature, 'base64url'),
      ),
    ).toBe(true)
    expect(JSON.parse(Buffer.from(claims, 'base64url').toString())).toMatchObject({
      iss: 'cdp',
      uris: [expect.stringMatching(/^POST 127\.0\.0\.1:\d+\/settle$/)],
    })
  })

  it('lets a browser send every header the real x402 client sends: the preflight of each of its requests allows them', async () => {
    const sent: Headers[] = []
    const recording = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init)
      sent.push(new Headers(request.headers))
      return fetch(request)
    }
    const client = createPayingClient({
      rpcUrl: target().parts.chain.rpcUrl,
      privateKey: await fundedPayer(target().parts),
      baseFetch: recording,
    })
    const answer = await pay(client, target().doors[0], { name: 'Browser Token', symbol: 'BROWSE' })
    expect(answer.body).toMatchObject({ ok: true, status: 'broadcast' })
    // The ask, then the paid retry: the retry carries the payment and the header the client adds to it.
    expect(sent.map(preflightedHeaderNames)).toEqual([
      ['content-type'],
      expect.arrayContaining(['content-type', 'payment-signature', 'access-control-expose-headers']),
    ])
    for (const headers of sent) {
      const names = preflightedHeaderNames(headers)
      const preflight = await fetch(`${target().doors[0]}${DOOR}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://page.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': names.join(','),
        },
      })
      expect(preflight.status).toBe(204)
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
      expect(preflight.headers.get('access-control-allow-methods')?.split(',')).toContain('POST')
      const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/)
      expect(names.filter((name) => !allowed.includes(name))).toEqual([])
    }
  })

  it('refuses a reverting simulation before any settle: nothing paid, nothing signed', async () => {
    const salt = `0x${crypto.getRandomValues(new Uint8Array(32)).reduce((s, b) => s + b.toString(16).padStart(2, '0'), '')}`
    const keyed = await send(
      target().doors[0],
      { action: 'agent_deploy', name: 'First', symbol: 'FIRST', salt },
      { 'x-service-key': target().parts.agent.key },
      '/api/b20-skill',
    )
    expect(keyed.body).toMatchObject({ ok: true, status: 'broadcast' })
    const client = await payer()
    const [start, before] = [await balances(client.address), counts()]
    const answer = await pay(client, target().doors[1], { name: 'Again', symbol: 'AGAIN', salt })
    expect(answer.body).toMatchObject({ ok: false, code: 'SIMULATION_REVERTED', revert: { name: 'TokenAlreadyExists' } })
    expect(answer.headers.get('payment-response')).toBeNull()
    expect(since(before)).toMatchObject({ settles: 0, signs: 0, sends: 0 })
    expect(await balances(client.address)).toEqual(start)
  })

  const badPayments: [string, (client: PayingClient, accepts: PaymentRequirements) => Promise<string>, number, string | RegExp][] = [
    ['underpaid', (c, a) => signedHeader(c, { ...a, amount: '1' }), 402, 'amount_mismatch'],
    ['to another payTo', (c, a) => signedHeader(c, { ...a, payTo: '0x000000000000000000000000000000000000dEaD' }), 402, 'pay_to_mismatch'],
    [
      'on another network',
      (c, a) => signPaymentHeader({ privateKey: c.privateKey, requirements: { ...a, network: 'eip155:1' }, chainId: 1 }),
      402,
      'network_mismatch',
    ],
    [
      'expired',
      (c, a) =>
        signPaymentHeader({
          privateKey: c.privateKey,
          requirements: a,
          authorization: { validBefore: BigInt(Math.floor(Date.now() / 1000) - 10) },
        }),
      402,
      'authorization_expired',
    ],
    [
      'not yet valid',
      (c, a) =>
        signPaymentHeader({
          privateKey: c.privateKey,
          requirements: a,
          authorization: { validAfter: BigInt(Math.floor(Date.now() / 1000) + 3600) },
        }),
      402,
      'authorization_not_yet_valid',
    ],
    [
      'with a bad signature',
      async (c, a) => {
        const stranger = await signPaymentHeader({ privateKey: (await fundedPayer(target().parts, 0n)) as Hex, requirements: a })
        const payload = JSON.parse(Buffer.from(stranger, 'base64').toString()) as { payload: { authorization: { from: string } } }
        payload.payload.authorization.from = c.address
        return Buffer.from(JSON.stringify(payload)).toString('base64')
      },
      402,
      'invalid_signature',
    ],
    // The facilitator says invalid_exact_evm_insufficient_balance; the door answers in its own words.
    ['from an unfunded payer', async (_c, a) => signedHeader(await payer(0n), a), 402, /^insufficient_funds$/],
    [
      // A Permit2 authorization beside the signed EIP-3009 one: the facilitator would settle by Permit2.
      'with a member beside its EIP-3009 payload',
      async (c, a) => {
        const payload = JSON.parse(Buffer.from(await signedHeader(c, a), 'base64').toString()) as { payload: Record<string, unknown> }
        payload.payload.permit2Authorization = { from: c.address, permitted: { token: a.asset, amount: a.amount } }
        return Buffer.from(JSON.stringify(payload)).toString('base64')
      },
      400,
      'INVALID_PAYMENT',
    ],
    ['in a malformed header', async () => 'not a payment!', 400, 'INVALID_PAYMENT'],
    ['in an oversized header', async () => 'A'.repeat(PAYMENT_HEADER_MAX_LENGTH + 1), 400, 'INVALID_PAYMENT'],
  ]
  if (kept('refuses a payment'))
    it.each(badPayments)(
      'refuses a payment %s before any settle: nothing signed, no balance moved',
      async (_name, header, status, reason) => {
        const client = await payer()
        const accepts = (await requirementsAt(target().doors[0])).accepts[0]!
        const [start, before] = [await balances(client.address), counts()]
        const answer = await send(
          target().doors[0],
          { name: 'Refused', symbol: 'REF' },
          { 'payment-signature': await header(client, accepts) },
        )
        expect(answer.status).toBe(status)
        if (status === 402) {
          expect(answer.body).toMatchObject({ ok: false, code: 'PAYMENT_INVALID', reason: expect.stringMatching(reason) })
          expect(JSON.stringify(answer.body)).not.toMatch(/invalid_exact_evm|invalid_payload/)
          expect(decodePaymentRequiredHeader(answer.headers.get('payment-required')!).accepts).toEqual([accepts])
        } else expect(answer.body).toMatchObject({ ok: false, code: reason })
        const spent = since(before)
        expect(spent).toMatchObject({ settles: 0, signs: 0, sends: 0 })
        // Only a payment that passed every local check reaches the facilitator (here, the unfunded payer's).
        expect(spent.verifies).toBe(_name === 'from an unfunded payer' ? 1 : 0)
        expect(await balances(client.address)).toEqual(start)
      },
    )

  it('takes the same payload sent twice at once to two instances once: one settle, one deploy; a resend gets the first answer', async () => {
    const client = await payer()
    const accepts = (await requirementsAt(target().doors[0])).accepts[0]!
    const header = { 'payment-signature': await signedHeader(client, accepts) }
    const body = { name: 'Twice Token', symbol: 'TWICE' }
    const [start, before] = [await balances(client.address), counts()]
    const answers = await Promise.all(target().doors.map((door) => send(door, body, header)))
    // One deploy. The other instance says the first is in progress or, when the first had ended before it looked (a
    // cold instance on a busy machine), answers the first's answer as a replay: the same body, marked so.
    const deployed = answers.filter((a) => a.body.ok === true && a.headers.get('idempotent-replayed') !== 'true')
    expect(deployed).toHaveLength(1)
    const other = answers.find((a) => a !== deployed[0])!
    if (other.body.ok === true) {
      expect(other.body).toEqual(deployed[0]!.body)
      expect(other.headers.get('idempotent-replayed')).toBe('true')
    } else expect(other.body).toMatchObject({ ok: false, code: 'IDEMPOTENCY_IN_PROGRESS' })
    expect(since(before)).toMatchObject({ settles: 1, settled: 1, signs: 2 })
    expect(await balances(client.address)).toEqual({ payer: start.payer - TEST_PRICE_UNITS, payTo: start.payTo + TEST_PRICE_UNITS })
    // The payer owns the one token, and the replay says the same.
    expect(deployed[0]!.body.token).toMatchObject({ admin: client.address, minter: client.address })
    const again = await send(target().doors[1], body, header)
    expect(again.body).toEqual(deployed[0]!.body)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    // The replay carries the first answer's receipt, as it was signed: nothing is signed again.
    expect(receiptOf(again)).toEqual(deployed[0]!.body.payment.receipt)
    expect(again.body.payment.receipt).toMatchObject({ format: 'eip712' })
    expect(since(before)).toMatchObject({ settles: 1, signs: 2 })
  })

  it('keeps a settled payment whose deploy failed (the RPC down) as a credit, redeemed by a resend with no second settle', async () => {
    const { chain, facilitator } = target().parts
    const client = await payer()
    const accepts = (await requirementsAt(target().doors[0])).accepts[0]!
    const header = { 'payment-signature': await signedHeader(client, accepts) }
    const body = { name: 'Credit Token', symbol: 'CREDIT' }
    const [start, before] = [await balances(client.address), counts()]
    facilitator.onNext('settle', () => chain.setRpcDown(true))
    let credited: Answer
    try {
      credited = await send(target().doors[0], body, header)
    } finally {
      chain.setRpcDown(false)
    }
    expect(credited.body).toMatchObject({
      ok: false,
      code: 'RPC_UNAVAILABLE',
      credit: { id: expect.stringMatching(/^cr_/) },
      retryAfterSeconds: expect.any(Number),
    })
    expect(credited.body.payment).toMatchObject({ payer: client.address, amount: TEST_PRICE_UNITS.toString() })
    expect(decodePaymentResponseHeader(credited.headers.get('payment-response')!)).toMatchObject({ success: true })
    expect(since(before)).toMatchObject({ settles: 1, signs: 0 })
    // The operator sees the credit while it is open, and no more once a resend redeemed it.
    const creditId = credited.body.credit.id as string
    expect((await listedCredits(target().parts.env)).map((c) => c.credit?.id)).toContain(creditId)
    const redeemed = await send(target().doors[1], body, header)
    expect(redeemed.body).toMatchObject({
      ok: true,
      status: 'broadcast',
      token: { admin: client.address, minter: client.address },
      payment: { transaction: credited.body.payment.transaction },
    })
    expect(since(before)).toMatchObject({ settles: 1, settled: 1, signs: 2 })
    expect(await balances(client.address)).toEqual({ payer: start.payer - TEST_PRICE_UNITS, payTo: start.payTo + TEST_PRICE_UNITS })
    expect((await listedCredits(target().parts.env)).map((c) => c.credit?.id)).not.toContain(creditId)
  })

  it('redeems a credit by the same Idempotency-Key too: the new payment the client signs is not settled', async () => {
    const { kms, facilitator, usdc } = target().parts
    const client = await payer()
    const key = `credit-${Date.now()}-${Math.random()}`
    const body = { name: 'Kms Credit', symbol: 'KMSCR' }
    const [start, before] = [await balances(client.address), counts()]
    facilitator.onNext('settle', () => kms.setDown(true))
    let credited: Answer
    try {
      credited = await pay(client, target().doors[0], body, { 'idempotency-key': key })
    } finally {
      kms.setDown(false)
    }
    expect(credited.body).toMatchObject({ ok: false, code: 'SIGNER_UNAVAILABLE', credit: { id: expect.any(String) } })
    const redeemed = await pay(client, target().doors[1], body, { 'idempotency-key': key })
    expect(redeemed.body).toMatchObject({ ok: true, status: 'broadcast', payment: { transaction: credited.body.payment.transaction } })
    expect(since(before)).toMatchObject({ settles: 1, settled: 1 })
    expect(await balances(client.address)).toEqual({ payer: start.payer - TEST_PRICE_UNITS, payTo: start.payTo + TEST_PRICE_UNITS })
    // Once more with the same key and body: the first answer, replayed; the payment the client signed again is not settled.
    const replayed = await pay(client, target().doors[0], body, { 'idempotency-key': key })
    expect(replayed.body).toEqual(redeemed.body)
    expect(replayed.headers.get('idempotent-replayed')).toBe('true')
    // The same key with another body: a conflict, and nothing settled.
    const conflict = await pay(client, target().doors[0], { ...body, symbol: 'OTHER' }, { 'idempotency-key': key })
    expect(conflict.body).toMatchObject({ ok: false, code: 'IDEMPOTENCY_CONFLICT' })
    expect(since(before)).toMatchObject({ settles: 1 })
    expect(await usdc.balanceOf(client.address)).toBe(start.payer - TEST_PRICE_UNITS)
  })

  it('refuses before any settle when the paid cap is full, while allowlisted agents still deploy', async () => {
    const { full } = target()
    const client = await payer()
    const before = counts()
    const unpaid = await send(full, { name: 'Capped', symbol: 'CAPPED' })
    expect(unpaid.status).toBe(200)
    expect(unpaid.body).toMatchObject({ ok: false, code: 'DEPLOY_CAP_REACHED', retryAt: expect.any(String) })
    const accepts = (await requirementsAt(target().doors[0])).accepts[0]!
    const paid = await send(full, { name: 'Capped', symbol: 'CAPPED' }, { 'payment-signature': await signedHeader(client, accepts) })
    expect(paid.body).toMatchObject({ ok: false, code: 'DEPLOY_CAP_REACHED', retryAt: expect.any(String) })
    expect(since(before)).toMatchObject({ settles: 0, signs: 0 })
    const keyed = await send(
      full,
      { action: 'agent_deploy', name: 'Keyed', symbol: 'KEYED' },
      { 'x-service-key': target().parts.agent.key },
      '/api/b20-skill',
    )
    expect(keyed.body).toMatchObject({ ok: true, status: 'broadcast' })
  })

  it('refuses a payer past its own cap before any settle', async () => {
    const client = await payer()
    for (let i = 0; i < 3; i++)
      expect((await pay(client, target().doors[i % 2]!, { name: `Capped ${i}`, symbol: `PCAP${i}` })).body).toMatchObject({ ok: true })
    const before = counts()
    const answer = await pay(client, target().doors[0], { name: 'One Too Many', symbol: 'PCAP3' })
    expect(answer.body).toMatchObject({ ok: false, code: 'DEPLOY_CAP_REACHED', retryAt: expect.any(String) })
    expect(since(before)).toMatchObject({ settles: 0, signs: 0 })
  })

  it('answers 503 FACILITATOR_UNAVAILABLE when the facilitator is down, settling and signing nothing; a resend settles once', async () => {
    const { facilitator, usdc } = target().parts
    const client = await payer()
    const accepts = (await requirementsAt(target().doors[0])).accepts[0]!
    const header = { 'payment-signature': await signedHeader(client, accepts) }
    const body = { name: 'Down Token', symbol: 'DOWN' }
    const [start, before] = [await balances(client.address), counts()]
    facilitator.setFault('down')
    let down: Answer
    try {
      down = await send(target().doors[0], body, header)
    } finally {
      facilitator.setFault(null)
    }
    expect(down.status).toBe(503)
    expect(down.body).toMatchObject({ ok: false, code: 'FACILITATOR_UNAVAILABLE' })
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(since(before)).toMatchObject({ settled: 0, signs: 0 })
    expect(await balances(client.address)).toEqual(start)
    // Down at the settle itself (its answer lost): its outcome is unknown, never "not paid", and the answer names the
    // payment; the chain says nothing moved yet, so the resend of the same payment settles it, once.
    facilitator.onNext('settle', () => facilitator.setFault('reset'))
    const lost = await send(target().doors[1], body, header)
    facilitator.setFault(null)
    expect(lost.status).toBe(202)
    expect(lost.body).toMatchObject({
      ok: false,
      code: 'PAYMENT_UNKNOWN',
      payment: { id: expect.stringMatching(/^pay_/), state: 'unknown' },
    })
    const resent = await send(target().doors[0], body, header)
    expect(resent.body).toMatchObject({ ok: true, status: 'broadcast' })
    expect(since(before)).toMatchObject({ settled: 1, signs: 2 })
    expect(await usdc.balanceOf(client.address)).toBe(start.payer - TEST_PRICE_UNITS)
  })

  it('deploys when the facilitator settled but its answer was lost: the chain says paid, no second settle', async () => {
    const { facilitator } = target().parts
    const client = await payer()
    const [start, before] = [await balances(client.address), counts()]
    facilitator.setFault('lose-settle-answer')
    let answer: Answer
    try {
      answer = await pay(client, target().doors[0], { name: 'Lost Answer', symbol: 'LOST' })
    } finally {
      facilitator.setFault(null)
    }
    expect(answer.body).toMatchObject({ ok: true, status: 'broadcast', payment: { transaction: facilitator.settlements.at(-1) } })
    expect(since(before)).toMatchObject({ settled: 1, signs: 2 })
    expect(await balances(client.address)).toEqual({ payer: start.payer - TEST_PRICE_UNITS, payTo: start.payTo + TEST_PRICE_UNITS })
  })

  it('answers a deploy that went out without its receipt when KMS cannot sign the receipt, and logs it', async () => {
    const { kms } = target().parts
    const client = await payer()
    const body = { name: 'No Receipt', symbol: 'NORCPT' }
    const [start, before] = [await balances(client.address), counts()]
    // KMS signs the deploy's transaction, then goes down before the receipt's signature.
    kms.onNext('Sign', () => kms.setDown(true))
    let answer: Answer
    try {
      answer = await pay(client, target().doors[0], body)
    } finally {
      kms.setDown(false)
    }
    expect(answer.body).toMatchObject({ ok: true, status: 'broadcast', payment: { payer: client.address } })
    expect(answer.body.payment.receipt).toBeUndefined()
    expect(receiptOf(answer)).toBeUndefined()
    expect(decodePaymentResponseHeader(answer.headers.get('payment-response')!)).toMatchObject({
      success: true,
      transaction: answer.body.payment.transaction,
    })
    expect(since(before)).toMatchObject({ settled: 1, sends: 1 })
    expect(await balances(client.address)).toEqual({ payer: start.payer - TEST_PRICE_UNITS, payTo: start.payTo + TEST_PRICE_UNITS })
    const receiptLines = () =>
      target()
        .lines()
        .filter((line) => /"kms_unavailable"/.test(line) && /"operation":"receipt"/.test(line))
    await expect.poll(receiptLines).toContainEqual(expect.stringContaining(answer.body.txHash))
  })

  it('refuses a payment whose settle nobody saw end once the chain is past its validBefore with nothing mined', async () => {
    const { env } = target().parts
    const client = await payer()
    const accepts = (await requirementsAt(target().doors[0])).accepts[0]!
    // A settle asked for long ago that nobody saw end: its record says settling, its authorization lapsed since.
    const validBefore = BigInt(Math.floor(Date.now() / 1000) - 60)
    const header = await signPaymentHeader({ privateKey: client.privateKey, requirements: accepts, authorization: { validBefore } })
    const { authorization } = (JSON.parse(Buffer.from(header, 'base64').toString()) as { payload: { authorization: { nonce: Hex } } })
      .payload
    const body = { name: 'Expired', symbol: 'EXPIRED' }
    const store = createUpstashStore({ url: env.UPSTASH_REDIS_REST_URL!, token: env.UPSTASH_REDIS_REST_TOKEN! })
    const keys = paymentKeys({ storePrefix: env.STORE_KEY_PREFIX!, chainId: 8453 })
    const record: PaymentRecord = {
      state: 'settling',
      bodyHash: sha256(canonicalJson({ ...body, action: 'agent_deploy' })),
      payer: client.address.toLowerCase(),
      nonce: authorization.nonce,
      amount: accepts.amount,
      asset: accepts.asset,
      network: accepts.network,
      validBefore: Number(validBefore),
      at: Date.now() - 120_000,
      transaction: null,
      confirmed: false,
      credit: null,
      answer: null,
    }
    await saveOpenPayment(store, { keys, payer: record.payer, nonce: record.nonce }, record)
    const [start, before] = [await balances(client.address), counts()]
    const resent = await send(target().doors[1], body, { 'payment-signature': header })
    // The chain says the authorization was never used, and its validBefore is past: it can never settle now. Refused,
    // nothing paid, and off the open list.
    expect(resent.status).toBe(402)
    expect(resent.body).toMatchObject({ ok: false, code: 'PAYMENT_FAILED', reason: 'authorization_expired' })
    expect(since(before)).toMatchObject({ settles: 0, signs: 0 })
    expect(await balances(client.address)).toEqual(start)
    expect(JSON.parse((await store.get(keys.payment(record.payer, record.nonce)))!)).toMatchObject({ state: 'refused' })
    expect((await listedCredits(target().parts.env)).map((c) => c.state)).not.toContain('refused')
  })

  it('sells a pooled launch at X402_POOL_PRICE and seeds its Uniswap v4 pool: the owner holds the position', async () => {
    const client = await payer()
    const owner = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
    const body = {
      name: 'Paid Pool',
      symbol: 'PPOOL',
      admin: owner,
      initialSupply: '1000000',
      pool: { amount: '400000', startingMarketCapEth: '5' },
    }
    // The 402 asks the pooled price (a plain deploy's asks the plain one), and names the admin the body gives.
    const asked = decodePaymentRequiredHeader((await send(target().doors[0], body)).headers.get('payment-required')!)
    expect(asked.accepts[0]!.amount).toBe(TEST_POOL_PRICE_UNITS.toString())
    expect(asked.error).toContain(`deployed with ${owner} (the body's admin) as its admin and minter`)
    const { chain, signer } = target().parts
    const delegated = (await chain.publicClient.getCode({ address: signer })) !== undefined
    const nonce = await chain.publicClient.getTransactionCount({ address: signer })
    const [start, before] = [await balances(client.address), counts()]
    const answer = await pay(client, target().doors[0], body)
    expect(answer.body).toMatchObject({
      ok: true,
      status: 'broadcast',
      pool: { status: 'sent', owner, seedTxHashes: [] },
      payment: { payer: client.address, amount: TEST_POOL_PRICE_UNITS.toString() },
    })
    expect(await balances(client.address)).toEqual({
      payer: start.payer - TEST_POOL_PRICE_UNITS,
      payTo: start.payTo + TEST_POOL_PRICE_UNITS,
    })
    // One transaction, the signer's executeBatch to itself (the creation and the pool's calls), and the payment's
    // receipt: two signatures and one settle (three signatures when this launch set the signer's delegation).
    expect(since(before)).toMatchObject({ settles: 1, settled: 1, signs: delegated ? 2 : 3, sends: 1 })
    const tx = await chain.publicClient.getTransaction({ hash: answer.body.txHash })
    expect({ from: tx.from, to: tx.to }).toEqual({ from: signer.toLowerCase(), to: signer.toLowerCase() })
    expect(tx.input.startsWith(EXECUTE_BATCH_SELECTOR)).toBe(true)
    await chain.publicClient.waitForTransactionReceipt({ hash: answer.body.txHash, pollingInterval: 20 })
    expect(await chain.publicClient.getTransactionCount({ address: signer })).toBe(nonce + (delegated ? 1 : 2))
    const receipt = await send(target().doors[1], { action: 'receipt', tx_hash: answer.body.txHash, waitSeconds: 10 })
    expect(receipt.body).toMatchObject({ ok: true, status: 'confirmed', pool: { status: 'seeded', owner }, payment: { state: 'deployed' } })
    expect(receipt.body.pool.positionId).toMatch(/^\d+$/)
    // The body named its admin: that admin owns the token, not the payer (nor the signer).
    expect(answer.body.token).toMatchObject({ admin: owner, minter: owner })
    await expectOwnedOnChain(answer.body.predictedAddress, owner)
    for (const role of Object.values(ROLES))
      expect(await tokenAt(chain.publicClient as PublicClient, answer.body.predictedAddress).hasRole(role, client.address)).toBe(false)
  })

  it('answers the token address in the same call with waitSeconds, and the broadcast answer when the node times out', async () => {
    const { chain } = target().parts
    const client = await payer()
    const waited = await pay(client, target().doors[0], { name: 'Waited', symbol: 'WAITED', waitSeconds: 5 })
    expect(waited.body).toMatchObject({
      ok: true,
      status: 'broadcast',
      receipt: { ok: true, status: 'confirmed', tokenAddress: waited.body.predictedAddress },
    })
    chain.setSyncMode('timeout')
    try {
      const late = await pay(client, target().doors[1], { name: 'Late', symbol: 'LATE', waitSeconds: 2 })
      expect(late.body).toMatchObject({ ok: true, status: 'broadcast' })
      expect(late.body.receipt).toBeUndefined()
    } finally {
      chain.setSyncMode(null)
    }
  })

  it('answers receipts only for deploys paid through the door', async () => {
    const keyed = await send(
      target().doors[0],
      { action: 'agent_deploy', name: 'Keyed Only', symbol: 'KEYONLY' },
      { 'x-service-key': target().parts.agent.key },
      '/api/b20-skill',
    )
    const answer = await send(target().doors[0], { action: 'receipt', tx_hash: keyed.body.txHash })
    expect(answer.body).toMatchObject({ ok: false, code: 'NOT_A_DEPLOY' })
  })

  it('pays and deploys with the client SKILL.md shows, run as it is written (the host and the wallet filled in)', async () => {
    const skill = readFileSync(join(ROOT, 'SKILL.md'), 'utf8')
    const snippet = /## No key\? Pay per deploy[\s\S]*?```ts\n([\s\S]*?)```/.exec(skill)![1]!.replace('https://<host>', target().doors[0])
    const dir = mkdtempSync(join(tmpdir(), 'skill-client-'))
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
    writeFileSync(join(dir, 'client.mts'), snippet.replace("'my-deploy-0001'", `'skill-${Date.now()}'`))
    const key = await fundedPayer(target().parts)
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', join(dir, 'client.mts')],
        { cwd: dir, encoding: 'utf8', env: { ...process.env, WALLET_KEY: key } },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      ),
    )
    expect(out).toMatch(/ok: true,\s+status: 'broadcast'/)
    expect(out).toMatch(/status: 'confirmed'/)
    rmSync(dir, { recursive: true, force: true })
  })

  it('never puts a secret in an answer or a log line', () => {
    const { parts } = target()
    const secrets = [parts.cdpSecret, parts.agent.key, parts.env.AWS_SECRET_ACCESS_KEY!, parts.upstash.token]
    expect(seen.length).toBeGreaterThan(20)
    expect(findLeaks([...seen, ...target().lines()], secrets)).toEqual([])
  })
  // A case renamed in the list above must not drop out of the build's run unseen.
  const unmatched = options.only?.filter((entry) => !matched.has(entry)) ?? []
  if (unmatched.length) throw new Error(`no paid door case begins with: ${unmatched.join('; ')}`)
}
