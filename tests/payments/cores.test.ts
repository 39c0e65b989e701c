import { generateKeyPairSync, type KeyObject, verify } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { x402Client } from '@x402/fetch'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { loadDeployConfig } from '../../lib/deploy/config.js'
import { baseUnitsOf, loadPaymentsConfig, pricedPaymentsConfig } from '../../lib/payments/config.js'
import {
  AUTHORIZATION_CLOCK_SKEW_SECONDS,
  AUTHORIZATION_MARGIN_SECONDS,
  checkPaymentTerms,
  checkValidityLength,
  checkValidityWindow,
  signatureRecoversToPayer,
} from '../../lib/payments/door/localChecks.js'
import { type DecodedPayment, decodePaymentHeader, PAYMENT_HEADER_MAX_LENGTH } from '../../lib/payments/door/paymentPayload.js'
import { PAYMENT_TIMEOUT_SECONDS, paymentRequirementsOf, resourceOf } from '../../lib/payments/door/requirements.js'
import { cdpJwt } from '../../lib/payments/facilitator/cdpAuth.js'
import { DOOR_REFUSAL_REASONS, doorRefusalOf } from '../../lib/payments/verdict/refusalReasons.js'
import { ConfigError } from '../../lib/platform/config.js'

// The paid door's pure cores: its configuration, the requirements the server builds, the header decoded, and the
// local checks that refuse a payment before the facilitator is asked.

const SIGNER = '0x1111111111111111111111111111111111111111'
const PAY_TO = '0x000000000000000000000000000000000000bEEF'
const on = {
  X402_PRICE: '1.50',
  X402_FACILITATOR_URL: 'https://facilitator.example/x402',
  KMS_KEY_ID: 'k',
  AWS_REGION: 'us-east-1',
  PUBLIC_URL: 'https://svc.example',
}
const load = (env: Record<string, string>) => loadPaymentsConfig(env, loadDeployConfig(env))
/** The settings priced as a 6-decimal token whose domain is the configured one says. */
const priced = (env: Record<string, string>) => pricedPaymentsConfig(load(env), { decimals: 6, domainProblems: [] })

describe('the paid door configuration', () => {
  it('is off, saying which variables are missing, unless price, facilitator, signer and public origin are all set', () => {
    expect(load({}).offReason).toBe('X402_PRICE, X402_FACILITATOR_URL, KMS_KEY_ID, PUBLIC_URL are not set')
    const noFacilitator = { X402_PRICE: '1', KMS_KEY_ID: 'k', AWS_REGION: 'us-east-1', SIGNER_ADDRESS: SIGNER, PUBLIC_URL: on.PUBLIC_URL }
    expect(load(noFacilitator).offReason).toBe('X402_FACILITATOR_URL is not set')
    // The public origin: PUBLIC_URL, else Vercel's production URL; neither, and the door is off (it never guesses one).
    expect(load({ ...on, PUBLIC_URL: '', SIGNER_ADDRESS: SIGNER }).offReason).toBe('PUBLIC_URL is not set')
    expect(load({ ...on, PUBLIC_URL: '', SIGNER_ADDRESS: SIGNER, VERCEL_PROJECT_PRODUCTION_URL: 'svc.vercel.app' })).toMatchObject({
      offReason: null,
      publicOrigin: 'https://svc.vercel.app',
    })
    const config = load({ ...on, SIGNER_ADDRESS: SIGNER })
    expect(config).toMatchObject({
      offReason: null,
      publicOrigin: 'https://svc.example',
      price: '1.50',
      payTo: SIGNER,
      asset: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2' },
      network: 'eip155:8453',
      dailyCap: 100,
      payerDailyCap: 5,
      cdp: null,
    })
    expect(load({ ...on, X402_PAY_TO: PAY_TO, CHAIN_ID: '84532' })).toMatchObject({
      payTo: PAY_TO,
      network: 'eip155:84532',
      asset: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', name: 'USDC', version: '2' },
    })
  })

  it('refuses bad values naming the variable and never the value', () => {
    const secret = 'pem-secret-value-that-must-not-leak'
    const attempt = () =>
      load({
        ...on,
        X402_PRICE: '1.0000000000000000001',
        X402_FACILITATOR_URL: 'ftp://nope',
        X402_ASSET: '0x00000000000000000000000000000000000000aa',
        X402_DAILY_CAP: '-1',
        CDP_API_KEY_SECRET: secret,
      })
    expect(attempt).toThrow(ConfigError)
    let message = ''
    try {
      attempt()
    } catch (error) {
      message = (error as Error).message
    }
    for (const name of [
      'X402_PRICE',
      'X402_FACILITATOR_URL',
      'X402_ASSET_NAME',
      'X402_ASSET_VERSION',
      'X402_DAILY_CAP',
      'CDP_API_KEY_ID',
      'X402_PAY_TO',
    ])
      expect(message).toContain(name)
    for (const value of [secret, '1.0000000000000000001', 'ftp://nope', '0x00000000000000000000000000000000000000aa'])
      expect(message).not.toContain(value)
    expect(() => load({ ...on, X402_PRICE: '0.00', SIGNER_ADDRESS: SIGNER })).toThrow(/X402_PRICE/)
  })

  it('reads prices in whole tokens into base units exactly, at the decimals the asset says', () => {
    expect(baseUnitsOf('1', 6)).toBe('1000000')
    expect(baseUnitsOf('0.01', 6)).toBe('10000')
    expect(baseUnitsOf('12.345678', 6)).toBe('12345678')
    expect(baseUnitsOf('1.5', 18)).toBe('1500000000000000000')
    const settings = load({ ...on, X402_PRICE: '1.0000001', SIGNER_ADDRESS: SIGNER })
    expect(pricedPaymentsConfig(settings, { decimals: 18, domainProblems: [] })).toMatchObject({
      amount: '1000000100000000000',
      asset: { decimals: 18 },
    })
  })

  it('refuses to price what the asset on chain contradicts, naming the setting: never a wrong price', () => {
    const settings = load({ ...on, X402_PRICE: '1.0000001', SIGNER_ADDRESS: SIGNER })
    expect(() => pricedPaymentsConfig(settings, { decimals: 6, domainProblems: [] })).toThrow(/X402_PRICE: .*6 decimals/)
    expect(() => pricedPaymentsConfig(settings, { decimals: null, domainProblems: [] })).toThrow(/X402_ASSET: no token/)
    expect(() =>
      pricedPaymentsConfig(load({ ...on, SIGNER_ADDRESS: SIGNER }), { decimals: 6, domainProblems: ['name', 'version'] }),
    ).toThrow(/X402_ASSET_NAME: .*X402_ASSET_VERSION: /)
  })
})

describe('the JWT a hosted facilitator (CDP) is sent', () => {
  const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>
  const verifies = (jwt: string, key: KeyObject, algorithm: string | null, dsaEncoding?: 'ieee-p1363') => {
    const [header, claims, signature] = jwt.split('.') as [string, string, string]
    return verify(
      algorithm,
      Buffer.from(`${header}.${claims}`),
      dsaEncoding ? { key, dsaEncoding } : key,
      Buffer.from(signature, 'base64url'),
    )
  }
  const url = 'https://api.cdp.coinbase.com/platform/v2/x402/settle'

  it('is ES256 over a PEM EC key (newlines escaped or not), naming the key and the one request it allows', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    for (const secret of [pem, pem.replaceAll('\n', '\\n')]) {
      const jwt = cdpJwt({ credentials: { keyId: 'kid-1', secret }, method: 'POST', url, nowSeconds: 1_800_000_000 })
      expect(JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'ES256', kid: 'kid-1', typ: 'JWT' })
      expect(claimsOf(jwt)).toEqual({
        sub: 'kid-1',
        iss: 'cdp',
        uris: ['POST api.cdp.coinbase.com/platform/v2/x402/settle'],
        iat: 1_800_000_000,
        nbf: 1_800_000_000,
        exp: 1_800_000_120,
      })
      expect(verifies(jwt, publicKey, 'sha256', 'ieee-p1363')).toBe(true)
    }
  })

  it('is EdDSA over a base64 Ed25519 key (seed and public key, 64 bytes)', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519')
    const jwk = privateKey.export({ format: 'jwk' }) as { d: string; x: string }
    const secret = Buffer.concat([Buffer.from(jwk.d, 'base64url'), Buffer.from(jwk.x, 'base64url')]).toString('base64')
    const jwt = cdpJwt({ credentials: { keyId: 'kid-2', secret }, method: 'GET', url, nowSeconds: 1_800_000_000 })
    expect(JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'EdDSA', kid: 'kid-2' })
    expect(verifies(jwt, publicKey, null)).toBe(true)
    expect(() => cdpJwt({ credentials: { keyId: 'k', secret: 'not a key' }, method: 'GET', url, nowSeconds: 1_800_000_000 })).toThrow(
      /neither a PEM EC key nor/,
    )
  })
})

describe('the requirements the server builds', () => {
  const config = priced({ ...on, X402_PAY_TO: PAY_TO })
  it('asks the exact scheme on eip155:<CHAIN_ID> in the asset, with its EIP-712 domain, payTo and the amount in base units', () => {
    expect(paymentRequirementsOf(config)).toEqual({
      scheme: 'exact',
      network: 'eip155:8453',
      amount: '1500000',
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      payTo: PAY_TO,
      maxTimeoutSeconds: PAYMENT_TIMEOUT_SECONDS,
      extra: { name: 'USD Coin', version: '2' },
    })
    expect(resourceOf('https://svc.example/api/x402/deploy')).toMatchObject({
      url: 'https://svc.example/api/x402/deploy',
      mimeType: 'application/json',
    })
  })
})

describe('a payment header, decoded and checked locally', () => {
  const config = priced({ ...on, X402_PAY_TO: PAY_TO })
  const requirements = paymentRequirementsOf(config)
  const now = Math.floor(Date.now() / 1000)
  const signed = async (accepts = requirements) => {
    const account = privateKeyToAccount(generatePrivateKey())
    const client = new x402Client().register('eip155:*', new ExactEvmScheme(toClientEvmSigner(account)))
    client.setSpendControls(false)
    return client.createPaymentPayload({ x402Version: 2, resource: resourceOf('https://svc.example/api/x402/deploy'), accepts: [accepts] })
  }
  const decode = (payload: PaymentPayload): DecodedPayment => {
    const decoded = decodePaymentHeader(encodePaymentSignatureHeader(payload))
    if (!decoded.ok) throw new Error(decoded.reason)
    return decoded.payment
  }

  it('decodes what the 2.27 client signs (validAfter 0), which passes every check and recovers to its payer', async () => {
    const payment = decode(await signed())
    expect(payment.authorization.validAfter).toBe(0n)
    expect(payment.authorization.value).toBe(1_500_000n)
    expect(checkPaymentTerms(payment, requirements)).toBeNull()
    expect(checkValidityWindow(payment, now)).toBeNull()
    expect(await signatureRecoversToPayer(payment, requirements, 8453)).toBe(true)
  })

  it('recovers the signer whatever the case the operator wrote the token address in (a checksum or not)', async () => {
    const odd = paymentRequirementsOf(
      priced({
        ...on,
        X402_PAY_TO: PAY_TO,
        X402_ASSET: '0x5A4D000000000000000000000000000000005A4D',
        X402_ASSET_NAME: 'Odd',
        X402_ASSET_VERSION: '1',
      }),
    )
    expect(await signatureRecoversToPayer(decode(await signed(odd)), odd, 8453)).toBe(true)
  })

  it('refuses malformed and oversized headers before anything else', () => {
    for (const header of [
      '',
      'not base64!',
      Buffer.from('{"x402Version":2}').toString('base64'),
      'a'.repeat(PAYMENT_HEADER_MAX_LENGTH + 1),
    ])
      expect(decodePaymentHeader(header)).toMatchObject({ ok: false, reason: expect.any(String) })
    const permit2 = Buffer.from(JSON.stringify({ x402Version: 2, accepted: requirements, payload: { permit2Authorization: {} } })).toString(
      'base64',
    )
    expect(decodePaymentHeader(permit2)).toMatchObject({ ok: false, reason: expect.stringContaining('EIP-3009') })
  })

  it('refuses a payment with any member beside the EIP-3009 payload, and hands on only what it checked', async () => {
    const good = await signed()
    const inner = good.payload as Record<string, unknown>
    const header = (payload: unknown) => encodePaymentSignatureHeader(payload as PaymentPayload)
    // A Permit2 authorization beside the EIP-3009 one would have the facilitator settle by Permit2.
    const beside = decodePaymentHeader(header({ ...good, payload: { ...inner, permit2Authorization: { from: '0x1' } } }))
    expect(beside).toMatchObject({ ok: false, reason: expect.stringContaining('permit2Authorization') })
    const inAuthorization = { ...inner, authorization: { ...(inner.authorization as object), spender: '0x1' } }
    expect(decodePaymentHeader(header({ ...good, payload: inAuthorization }))).toMatchObject({ ok: false })
    expect(decodePaymentHeader(header({ ...good, permit2: {} }))).toMatchObject({ ok: false, reason: expect.stringContaining('permit2') })
    // What the client signs passes, and what is handed on is exactly its two checked members.
    const passed = decode(good)
    expect(Object.keys(passed.payload.payload).sort()).toEqual(['authorization', 'signature'])
    expect(passed.payload.payload).toEqual({ signature: inner.signature, authorization: inner.authorization })
  })

  it('holds the payment to the server’s requirements, never to its own accepted echo', async () => {
    const cases: [string, Partial<typeof requirements>][] = [
      ['amount_mismatch', { amount: '1' }],
      ['pay_to_mismatch', { payTo: '0x000000000000000000000000000000000000dEaD' }],
      ['network_mismatch', { network: 'eip155:1' }],
      ['asset_mismatch', { asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' }],
    ]
    for (const [reason, claimed] of cases) {
      const payment = decode(await signed({ ...requirements, ...claimed }))
      expect(checkPaymentTerms(payment, requirements), reason).toMatchObject({ reason })
    }
  })

  it('refuses an authorization that pays someone else, pays less, is not yet valid, expires soon, or is signed by another key', async () => {
    const good = decode(await signed())
    const tamper = (authorization: Partial<DecodedPayment['authorization']>): DecodedPayment => ({
      ...good,
      authorization: { ...good.authorization, ...authorization },
    })
    expect(checkPaymentTerms(tamper({ to: '0x000000000000000000000000000000000000dEaD' }), requirements)).toMatchObject({
      reason: 'recipient_mismatch',
    })
    expect(checkPaymentTerms(tamper({ value: 1n }), requirements)).toMatchObject({ reason: 'value_mismatch' })
    expect(checkValidityWindow(tamper({ validAfter: BigInt(now + 60) }), now)).toMatchObject({
      reason: 'authorization_not_yet_valid',
    })
    expect(checkValidityWindow(tamper({ validBefore: BigInt(now + AUTHORIZATION_MARGIN_SECONDS - 1) }), now)).toMatchObject({
      reason: 'authorization_expired',
    })
    // Valid for longer than the requirements' maxTimeoutSeconds (past the clock skew allowed): refused, naming validBefore.
    const longest = now + requirements.maxTimeoutSeconds + AUTHORIZATION_CLOCK_SKEW_SECONDS
    expect(checkValidityLength(tamper({ validBefore: BigInt(longest) }), now, requirements.maxTimeoutSeconds)).toBeNull()
    expect(checkValidityLength(tamper({ validBefore: BigInt(longest + 1) }), now, requirements.maxTimeoutSeconds)).toMatchObject({
      reason: 'authorization_too_long',
      message: expect.stringContaining('validBefore'),
    })
    // A changed field no longer matches the signature; another payer's signature never recovers to this payer.
    expect(await signatureRecoversToPayer(tamper({ value: 2_000_000n }), requirements, 8453)).toBe(false)
    const stranger = decode(await signed())
    expect(await signatureRecoversToPayer({ ...good, signature: stranger.signature }, requirements, 8453)).toBe(false)
    expect(await signatureRecoversToPayer({ ...good, signature: `0x${'00'.repeat(65)}` }, requirements, 8453)).toBe(false)
  })
})

describe('the door’s refusal reasons', () => {
  /** Every reason string @x402/evm's code holds (its facilitator's verify and settle words), read from the package. */
  function x402EvmReasons(): string[] {
    const root = join(import.meta.dirname, '..', '..', 'node_modules', '@x402', 'evm', 'dist', 'cjs')
    const files = readdirSync(root, { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('.js'))
    const words = new Set<string>()
    for (const file of files)
      for (const [, word] of readFileSync(join(root, file), 'utf8').matchAll(/["'](invalid_exact_evm_[a-z0-9_]+)["']/g)) words.add(word!)
    return [...words]
  }

  it('map every reason of the exact EVM scheme’s facilitator to one of the door’s, none left to the catch-all', () => {
    const reasons = x402EvmReasons()
    expect(reasons.length).toBeGreaterThan(15) // the walk sees the package's words
    for (const said of reasons) {
      const { reason, message } = doorRefusalOf(said)
      expect(Object.keys(DOOR_REFUSAL_REASONS), said).toContain(reason)
      expect(reason, said).not.toBe('payment_refused')
      expect(message).toBe(DOOR_REFUSAL_REASONS[reason])
      expect(message).not.toContain('invalid_exact_evm')
    }
  })

  it.each([
    ['invalid_exact_evm_insufficient_balance', 'insufficient_funds'],
    ['insufficient_funds', 'insufficient_funds'],
    ['invalid_exact_evm_nonce_already_used', 'authorization_used'],
    ['invalid_exact_evm_signature', 'invalid_signature'],
    ['invalid_exact_evm_failed_to_parse_signature', 'invalid_signature'],
    ['invalid_exact_evm_token_name_mismatch', 'invalid_signature'],
    ['invalid_exact_evm_missing_eip712_domain', 'invalid_signature'],
    ['invalid_exact_evm_payload_authorization_valid_before', 'authorization_expired'],
    ['invalid_exact_evm_payload_authorization_valid_after', 'authorization_not_yet_valid'],
    ['invalid_exact_evm_authorization_value', 'value_mismatch'],
    ['invalid_exact_evm_payload_authorization_value_mismatch', 'value_mismatch'],
    ['invalid_exact_evm_recipient_mismatch', 'recipient_mismatch'],
    ['invalid_exact_evm_network_mismatch', 'network_mismatch'],
    ['invalid_exact_evm_scheme', 'scheme_mismatch'],
    ['unsupported_payload_type', 'scheme_mismatch'],
    ['invalid_exact_evm_payload_undeployed_smart_wallet', 'unsupported_payer'],
    ['invalid_exact_evm_eip3009_not_supported', 'unsupported_payer'],
    ['invalid_exact_evm_transaction_failed', 'settlement_failed'],
    ['invalid_exact_evm_transaction_simulation_failed', 'settlement_failed'],
    ['settle_failed', 'settlement_failed'],
    // The door's own words (its local checks, the chain's verdicts) are their own reasons.
    ['authorization_too_long', 'authorization_too_long'],
    ['authorization_canceled', 'authorization_canceled'],
    ['pay_to_mismatch', 'pay_to_mismatch'],
    ['asset_mismatch', 'asset_mismatch'],
    // Anything else, a hosted facilitator's own words or an attacker's, is the catch-all, never echoed.
    ['<script>alert(1)</script>', 'payment_refused'],
    ['', 'payment_refused'],
    ['toString', 'payment_refused'],
    ['__proto__', 'payment_refused'],
  ])('answer %j as %s', (said, reason) => {
    expect(doorRefusalOf(said).reason).toBe(reason)
  })
})
