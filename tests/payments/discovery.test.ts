import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import {
  type DiscoveryExtension,
  extractDiscoveryInfo,
  sanitizeResourceServiceMetadata,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
} from '@x402/extensions/bazaar'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import openapi from '../../api/openapi.js'
import { parseDeployIntent } from '../../lib/deploy/actions/agentDeploy.js'
import { loadDeployConfig } from '../../lib/deploy/config.js'
import { loadPaymentsConfig } from '../../lib/payments/config.js'
import { EXAMPLE_PAID_DEPLOY, EXAMPLE_PAID_DEPLOY_ANSWER } from '../../lib/payments/discovery/bazaar.js'
import { discoveryManifestSchema } from '../../lib/payments/discovery/manifest.js'
import { paidDeploySchema } from '../../lib/payments/discovery/paidDoorSchemas.js'
import { PAYMENT_HEADER_MAX_LENGTH } from '../../lib/payments/door/paymentPayload.js'
import { createDiscoveryManifestEndpoint, createPaidDeployEndpoint } from '../../lib/payments/endpoint.js'
import { paidDeployPaymentInfo } from '../../lib/payments/openapi.js'
import { type AnvilChain, startAnvilChain } from '../support/anvil.js'
import { withOpenApiCheck } from '../support/openapiCheck.js'
import { createPayingClient } from '../support/payingClient.js'
import { paymentsSourceOver } from '../support/paymentsSourceOver.js'
import { createTestClock } from '../support/testClock.js'
import { placeTestUsdc } from '../support/testUsdc.js'

// How agents find the paid door, in process: the 402's bazaar extension, held to @x402/extensions' own validators
// and to the door's own intent check; the origin's /.well-known/x402 manifest; the OpenAPI document's x-payment-info.
// tests/support/paidDoorCases.ts runs the same over npm start and the Vercel build output.

const ON = {
  PUBLIC_URL: 'https://svc.test',
  X402_PRICE: '1.00',
  X402_FACILITATOR_URL: 'http://127.0.0.1:9/facilitator',
  X402_PAY_TO: '0x000000000000000000000000000000000000bEEF',
  KMS_KEY_ID: 'test-key',
  AWS_REGION: 'us-east-1',
} as Record<string, string>

// The door prices at its asset's own decimals and offers only variants the chain has on: a local chain answers both.
let chain: AnvilChain
beforeAll(async () => {
  chain = await startAnvilChain()
  await placeTestUsdc({ chain })
  ON.BASE_RPC_URL = chain.rpcUrl
}, 60_000)
afterAll(() => chain?.stop())

/** A payments source over an environment, on a test clock, whose deploy services must never be asked for here. */
const sourceOver = (env: Record<string, string>) => paymentsSourceOver(env, createTestClock(Date.UTC(2026, 10, 23, 10)).clock)

/** The PAYMENT-REQUIRED of an unpaid deploy at the door (over `env`), decoded. */
async function required(env: Record<string, string> = ON): Promise<PaymentRequired> {
  const handle = withOpenApiCheck('/api/x402/deploy', createPaidDeployEndpoint(sourceOver(env)))
  const answer = await handle(
    new Request('https://svc.test/api/x402/deploy', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(EXAMPLE_PAID_DEPLOY),
    }),
  )
  expect(answer.status).toBe(402)
  return decodePaymentRequiredHeader(answer.headers.get('payment-required')!)
}

/** The bazaar extension with another body in its info: what the extension's validator says of that body. */
const withBody = (bazaar: DiscoveryExtension, body: unknown) =>
  validateDiscoveryExtension({ ...bazaar, info: { ...bazaar.info, input: { ...bazaar.info.input, body } } } as DiscoveryExtension)

describe("the 402's bazaar discovery extension", () => {
  it('is valid by @x402/extensions’ own validators, pinned to POST with a JSON body, on the door as its resource', async () => {
    const { extensions, resource } = await required()
    const bazaar = extensions!.bazaar as DiscoveryExtension
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true })
    expect(validateDiscoveryExtensionSpec(bazaar as never)).toEqual({ valid: true })
    expect(bazaar.info.input).toMatchObject({ type: 'http', method: 'POST', bodyType: 'json', body: EXAMPLE_PAID_DEPLOY })
    expect(bazaar.info.output).toEqual({ type: 'json', example: EXAMPLE_PAID_DEPLOY_ANSWER })
    expect(resource).toEqual({
      url: 'https://svc.test/api/x402/deploy',
      description: expect.stringContaining('B20 token deploy'),
      mimeType: 'application/json',
      serviceName: 'Base control room',
      tags: expect.arrayContaining(['b20']),
    })
    // The 402 still carries what it carried: the payment-identifier extension a retry is recognised by.
    expect(extensions).toHaveProperty('payment-identifier')
  })

  it('keeps within the catalogs’ limits: descriptions under 450 characters, serviceName and tags as the extension’s own rules keep them', async () => {
    // A catalog drops a listing's metadata past about 450 characters (docs/payments.md): every text it lists stays under.
    const LISTING_TEXT_MAX = 450
    const { resource, extensions } = await required()
    expect(resource.description!.length).toBeLessThan(LISTING_TEXT_MAX)
    // The extension's own sanitizer (what an indexing facilitator keeps of the resource) keeps every field as it is.
    expect(sanitizeResourceServiceMetadata(resource)).toEqual({ serviceName: resource.serviceName, tags: resource.tags })
    // No prose rides in the bazaar extension (its schemas drop descriptions: the OpenAPI document carries them).
    const texts: string[] = []
    JSON.stringify(extensions!.bazaar, (key, value) => {
      if (key === 'description' && typeof value === 'string') texts.push(value)
      return value
    })
    expect(texts).toEqual([])
    const listed = discoveryManifestSchema.parse(
      await (await createDiscoveryManifestEndpoint(sourceOver(ON)).fetch(new Request('https://svc.test/.well-known/x402'))).json(),
    )
    for (const text of [listed.description, listed.instructions, ...listed.endpoints.map((e) => e.description)])
      expect(text.length).toBeLessThan(LISTING_TEXT_MAX)
  })

  it('takes the intents the door takes and refuses what the door refuses, by the intent’s JSON Schema', async () => {
    const bazaar = (await required()).extensions!.bazaar as DiscoveryExtension
    const good = [
      EXAMPLE_PAID_DEPLOY,
      { action: 'agent_deploy', name: 'Stable', symbol: 'USDX', variant: 'stablecoin', currency: 'EUR' },
      {
        name: 'Fixed',
        symbol: 'FIX',
        fixedSupply: true,
        initialSupply: '21000000',
        recipient: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
        description: 'A fixed supply.',
        website: 'https://example.com',
        waitSeconds: 6,
      },
    ]
    for (const body of good) {
      expect(withBody(bazaar, body), JSON.stringify(body)).toEqual({ valid: true })
      expect(parseDeployIntent({ action: 'agent_deploy', ...body })).toMatchObject({ ok: true })
    }
    const bad = [
      { name: 'No symbol' },
      { name: 'Bad', symbol: 'B@D' },
      { name: 'Extra', symbol: 'EXTRA', colour: 'red' },
      { name: 'Salted', symbol: 'SALT', salt: '0x12' },
      { name: 'Wrong', symbol: 'WRONG', action: 'receipt' },
      { name: 'Wrong', symbol: 'WRONG', variant: 'nft' },
    ]
    for (const body of bad) {
      expect(withBody(bazaar, body), JSON.stringify(body)).toMatchObject({ valid: false, errors: [expect.any(String)] })
      expect(parseDeployIntent({ action: 'agent_deploy', ...body }), JSON.stringify(body)).toMatchObject({ ok: false })
    }
  })

  it('states the same request schema as the OpenAPI document (one zod schema), and an output example the answer schema takes', async () => {
    const bazaar = (await required()).extensions!.bazaar as DiscoveryExtension & { schema: any }
    const document = (await (await openapi.fetch(new Request('https://svc.test/api/openapi'))).json()) as any
    const deployBody = document.paths['/api/x402/deploy'].post.requestBody.content['application/json'].schema.oneOf[0]
    // The same schema, less its examples and its prose (both in the document; the echo of the 402 must stay small).
    const withoutExamples = (schema: unknown) =>
      JSON.parse(
        JSON.stringify(schema, (key, value) =>
          key === 'examples' || (key === 'description' && typeof value === 'string') ? undefined : value,
        ),
      )
    expect(bazaar.schema.properties.input.properties.body).toEqual(withoutExamples(deployBody))
    expect(paidDeploySchema.parse(EXAMPLE_PAID_DEPLOY_ANSWER)).toEqual(EXAMPLE_PAID_DEPLOY_ANSWER)
    expect(withBody(bazaar, EXAMPLE_PAID_DEPLOY)).toEqual({ valid: true })
  })

  it('fits, echoed by a real x402 client, in the PAYMENT-SIGNATURE the door takes, with room for a smart wallet’s signature', async () => {
    const paymentRequired = await required({ ...ON, PUBLIC_URL: 'https://a-rather-long-deployment-name-0123456789.vercel.app' })
    const client = createPayingClient({ rpcUrl: 'http://127.0.0.1:9' })
    const payload = await client.client.createPaymentPayload(paymentRequired)
    // The client echoes the extension, and a facilitator reads the door's discovery info from what it is sent.
    expect(payload.extensions?.bazaar).toEqual(paymentRequired.extensions!.bazaar)
    expect(extractDiscoveryInfo(payload, paymentRequired.accepts[0]!)).toMatchObject({
      resourceUrl: paymentRequired.resource.url,
      method: 'POST',
      serviceName: 'Base control room',
      discoveryInfo: { input: { type: 'http', method: 'POST', bodyType: 'json' } },
    })
    const header = encodePaymentSignatureHeader(payload)
    expect(header.length).toBeLessThanOrEqual(PAYMENT_HEADER_MAX_LENGTH - 2048)
  })
})

describe('the catalog’s probes: every unpaid request is asked to pay', () => {
  /** The door's answer to a request without a payment, checked against the OpenAPI document. */
  const ask = (init: RequestInit) =>
    withOpenApiCheck('/api/x402/deploy', createPaidDeployEndpoint(sourceOver(ON)))(new Request('https://svc.test/api/x402/deploy', init))
  const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    ask({ method: 'POST', headers, body })

  it.each([
    ['POST {}', () => post('{}'), ['name', 'symbol']],
    ['a GET', () => ask({ method: 'GET' }), ['body']],
    ['a body that fails validation', () => post(JSON.stringify({ name: '', symbol: 'B@D', decimals: 4 })), ['name', 'symbol', 'decimals']],
    ['a dry run (not sold here)', () => post(JSON.stringify({ ...EXAMPLE_PAID_DEPLOY, dryRun: true })), ['dryRun']],
    ['an unknown action', () => post(JSON.stringify({ action: 'list_deploys' })), ['action']],
    ['a body that is not JSON', () => post('{name:', { 'content-type': 'application/json' }), ['body']],
    ['no body at all', () => post('', {}), ['body']],
    [
      'POST {} with an empty PAYMENT-SIGNATURE',
      () => post('{}', { 'content-type': 'application/json', 'payment-signature': '' }),
      ['name'],
    ],
  ] as const)('answers %s with the 402, naming what to fix, and a bazaar extension its validators take', async (_, send, fields) => {
    const answer = await send()
    expect(answer.status).toBe(402)
    const required = decodePaymentRequiredHeader(answer.headers.get('payment-required')!)
    expect(required).toMatchObject({ x402Version: 2, resource: { url: 'https://svc.test/api/x402/deploy' } })
    expect(required.accepts[0]).toMatchObject({ scheme: 'exact', amount: '1000000', payTo: ON.X402_PAY_TO })
    const bazaar = required.extensions!.bazaar as DiscoveryExtension
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true })
    expect(validateDiscoveryExtensionSpec(bazaar as never)).toEqual({ valid: true })
    const body = (await answer.json()) as { code: string; error: string; details: { field: string; reason: string }[] }
    expect(body).toMatchObject({ ok: false, code: 'PAYMENT_REQUIRED', accepts: required.accepts })
    expect(body.details.map((d) => d.field)).toEqual(expect.arrayContaining([...fields]))
    for (const field of fields) expect(body.error).toContain(field)
    expect(required.error).toBe(body.error)
  })
})

describe('who owns a paid launch, as the door says it before anyone pays', () => {
  const ADMIN = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
  /** The 402's error (the body's and PAYMENT-REQUIRED's, the same) for an unpaid valid deploy, and its resource. */
  async function said(body: Record<string, unknown>) {
    const door = withOpenApiCheck('/api/x402/deploy', createPaidDeployEndpoint(sourceOver(ON)))
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
    const answer = await door(new Request('https://svc.test/api/x402/deploy', init))
    expect(answer.status).toBe(402)
    const required = decodePaymentRequiredHeader(answer.headers.get('payment-required')!)
    const { error } = (await answer.json()) as { error: string }
    expect(required.error).toBe(error)
    return { error, description: required.resource.description }
  }

  it('says the payer will be the admin and minter of a body without admin, the admin a body names, and nobody for a fixed supply', async () => {
    const plain = await said(EXAMPLE_PAID_DEPLOY)
    expect(plain.error).toMatch(/deployed with you, the payer \(the payment’s from\), as its admin and minter: you own it from birth/)
    expect(plain.description).toContain("No key: the payer is the token's admin and minter from birth, unless the body names an admin")
    const named = await said({ ...EXAMPLE_PAID_DEPLOY, admin: ADMIN.toLowerCase() })
    expect(named.error).toContain(`deployed with ${ADMIN} (the body's admin) as its admin and minter`)
    const fixed = await said({ ...EXAMPLE_PAID_DEPLOY, fixedSupply: true })
    expect(fixed.error).toContain('with no admin and no minter, ever (fixedSupply)')
  })

  it('says it in the OpenAPI document too: the operation, and the default of the body’s admin (the MCP tool’s arguments share it)', async () => {
    const document = (await (await openapi.fetch(new Request('https://svc.test/api/openapi'))).json()) as any
    const operation = document.paths['/api/x402/deploy'].post
    expect(operation.description).toContain('the payer (the from of the payment’s EIP-3009 authorization) is the token’s admin and minter')
    const deployBody = operation.requestBody.content['application/json'].schema.oneOf[0]
    expect(deployBody.properties.admin.description).toMatch(/^Admin and mint-role holder; default the payer/)
    // The keyed door's body keeps its own default: the signer, or pool.owner.
    const keyed = document.components.schemas.AgentDeployRequest.properties.admin.description as string
    expect(keyed).toContain('default pool.owner with a pool, else the signer')
    expect(keyed).not.toContain('payer')
  })
})

describe('GET /.well-known/x402 (api/x402/manifest)', () => {
  const manifest = (env: Record<string, string>, init: RequestInit = {}, url = 'https://svc.example/.well-known/x402') =>
    withOpenApiCheck('/api/x402/manifest', createDiscoveryManifestEndpoint(sourceOver(env)))(new Request(url, init))

  it('answers the manifest of the public origin, with bare pointers in the 402’s own words, CORS-open', async () => {
    const answer = await manifest(ON, { headers: { origin: 'https://agent.example' } })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('access-control-allow-origin')).toBe('*')
    expect(answer.headers.get('cache-control')).toBe('public, max-age=300')
    const body = discoveryManifestSchema.parse(await answer.json())
    const { resource } = await required()
    expect(body).toEqual({
      version: 1,
      resources: [resource.url],
      instructions: expect.stringContaining('POST'),
      x402Version: 2,
      kind: 'resource-server',
      name: resource.serviceName,
      description: expect.stringContaining('x402'),
      endpoints: [{ url: resource.url, method: 'POST', description: resource.description }],
      docs: 'https://svc.test/skill.md',
      openapi: 'https://svc.test/openapi.json',
      updated: '2026-11-23T10:00:00.000Z',
    })
    // Each endpoint is a bare pointer: its terms are the 402's alone.
    for (const entry of body.endpoints) expect(Object.keys(entry).sort()).toEqual(['description', 'method', 'url'])
  })

  it('is also the discovery document x402scan reads at /.well-known/x402: version 1 and resources as absolute URLs', async () => {
    // The shape as x402scan's registration takes it (nothing under node_modules/@x402 specifies it: docs/payments.md):
    // a number version of 1, resources a list of URLs, instructions optional; other members are ignored by it.
    const x402scanDocument = z.object({
      version: z.literal(1),
      resources: z.array(z.url()).min(1),
      instructions: z.string().optional(),
    })
    const body = x402scanDocument.parse(await (await manifest(ON)).json())
    expect(body.resources).toEqual(['https://svc.test/api/x402/deploy'])
    for (const url of body.resources) expect(new URL(url).origin).toBe(ON.PUBLIC_URL)
  })

  it('answers a CORS preflight and HEAD, and 405 with Allow for anything else', async () => {
    const preflight = await manifest(ON, {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    const head = await manifest(ON, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
    const post = await manifest(ON, { method: 'POST' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toContain('GET')
  })

  it('is off like the door (404 PAID_DEPLOYS_OFF), and answers CONFIG_INVALID for a bad setting without its value', async () => {
    const off = await manifest({ X402_PRICE: '1.00' })
    expect(off.status).toBe(404)
    expect(await off.json()).toMatchObject({ ok: false, code: 'PAID_DEPLOYS_OFF', error: expect.stringContaining('X402_FACILITATOR_URL') })
    const bad = await manifest({ ...ON, X402_PRICE: 'one dollar' })
    expect(bad.status).toBe(500)
    const text = await bad.text()
    expect(JSON.parse(text)).toMatchObject({ ok: false, code: 'CONFIG_INVALID' })
    expect(text).not.toContain('one dollar')
  })
})

describe('where the door says it is: the public origin, never a Host a client names', () => {
  const HOSTILE = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }
  /** Every URL-bearing answer of the door over `env`, asked through a hostile Host: the 402 (header and body) and the manifest. */
  async function answersOver(env: Record<string, string>) {
    const source = sourceOver(env)
    const door = withOpenApiCheck('/api/x402/deploy', createPaidDeployEndpoint(source))
    const paid = await door(
      new Request('https://evil.example/api/x402/deploy', {
        method: 'POST',
        headers: { ...HOSTILE, 'content-type': 'application/json' },
        body: JSON.stringify(EXAMPLE_PAID_DEPLOY),
      }),
    )
    const manifest = await withOpenApiCheck(
      '/api/x402/manifest',
      createDiscoveryManifestEndpoint(source),
    )(new Request('https://evil.example/.well-known/x402', { headers: HOSTILE }))
    return { paid, manifest }
  }

  it('names the door by PUBLIC_URL in the 402 and the manifest, whatever Host and X-Forwarded-Host say', async () => {
    const { paid, manifest } = await answersOver({ ...ON, PUBLIC_URL: 'https://public.example' })
    expect(paid.status).toBe(402)
    const header = decodePaymentRequiredHeader(paid.headers.get('payment-required')!)
    expect(header.resource.url).toBe('https://public.example/api/x402/deploy')
    const listed = (await manifest.json()) as Record<string, unknown>
    expect(listed).toMatchObject({ docs: 'https://public.example/skill.md', openapi: 'https://public.example/openapi.json' })
    const everything = JSON.stringify([header, await paid.json(), listed])
    expect(everything).not.toContain('evil')
    expect(everything).toContain('https://public.example/api/x402/deploy')
  })

  it('takes Vercel’s production URL when PUBLIC_URL is not set', async () => {
    const { paid } = await answersOver({ ...ON, PUBLIC_URL: '', VERCEL: '1', VERCEL_PROJECT_PRODUCTION_URL: 'svc.vercel.app' })
    expect(decodePaymentRequiredHeader(paid.headers.get('payment-required')!).resource.url).toBe('https://svc.vercel.app/api/x402/deploy')
  })

  it('is off, naming PUBLIC_URL, when neither is set: it never advertises a guessed URL', async () => {
    for (const env of [
      { ...ON, PUBLIC_URL: '' },
      { ...ON, PUBLIC_URL: '', VERCEL: '1', VERCEL_URL: 'svc-git-branch.vercel.app' },
    ]) {
      const { paid, manifest } = await answersOver(env)
      for (const answer of [paid, manifest]) {
        expect(answer.status).toBe(404)
        expect(answer.headers.get('payment-required')).toBeNull()
        expect(await answer.json()).toMatchObject({ ok: false, code: 'PAID_DEPLOYS_OFF', error: expect.stringContaining('PUBLIC_URL') })
      }
    }
  })
})

describe("the OpenAPI document's x-payment-info", () => {
  it('marks the paid operation with its price and scheme while paid deploys are on, and the scheme alone when off', async () => {
    const config = loadPaymentsConfig(ON, loadDeployConfig(ON))
    expect(paidDeployPaymentInfo(config)).toEqual({
      price: { mode: 'fixed', currency: 'USD', amount: '1.00' },
      protocols: [
        {
          x402: {
            x402Version: 2,
            scheme: 'exact',
            network: 'eip155:8453',
            asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
            payTo: ON.X402_PAY_TO,
          },
        },
      ],
      discovery: '/.well-known/x402',
    })
    const off = { ...ON, X402_PRICE: '' }
    expect(paidDeployPaymentInfo(loadPaymentsConfig(off, loadDeployConfig(off)))).toEqual({
      protocols: [{ x402: { x402Version: 2, scheme: 'exact' } }],
      discovery: '/.well-known/x402',
    })
    // This process has paid deploys off: the served document says the scheme, and lists the manifest's path.
    const document = (await (await openapi.fetch(new Request('https://svc.test/api/openapi'))).json()) as any
    expect(document.paths['/api/x402/deploy'].post['x-payment-info']).toMatchObject({ protocols: [{ x402: { scheme: 'exact' } }] })
    expect(document.paths['/api/x402/manifest'].get.operationId).toBe('getX402Manifest')
  })
})
