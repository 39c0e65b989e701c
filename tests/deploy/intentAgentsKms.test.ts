import { secp256k1 } from '@noble/curves/secp256k1.js'
import { describe, expect, it } from 'vitest'
import { KmsSignerError, parseDerSignature, publicKeyFromSpki } from '../../lib/chain/kmsAccount.js'
import { parseDeployIntent } from '../../lib/deploy/actions/agentDeploy.js'
import { receiptAction } from '../../lib/deploy/actions/receipt.js'
import { digestAgentKey, generateAgentKey, matchAgentKey } from '../../lib/deploy/agents/agentKeys.js'
import { canonicalJson } from '../../lib/deploy/pipeline/idempotency.js'

const base = { action: 'agent_deploy', name: 'My Token', symbol: 'MYT' }
const details = (body: unknown) => {
  const r = parseDeployIntent(body)
  return r.ok ? [] : r.details
}

describe('parseDeployIntent', () => {
  it('applies the defaults: asset, 18 decimals, signer as admin, random salt', () => {
    expect(parseDeployIntent(base)).toEqual({
      ok: true,
      intent: {
        name: 'My Token',
        symbol: 'MYT',
        variant: 'asset',
        decimals: 18,
        admin: undefined,
        salt: undefined,
        currency: undefined,
        birth: { initialSupply: undefined, recipient: undefined, supplyCap: undefined, fixedSupply: false, metadata: undefined },
        dryRun: false,
        waitSeconds: 0,
      },
    })
  })
  it('forces 6 decimals and defaults the currency to USD for a stablecoin', () => {
    const r = parseDeployIntent({ ...base, variant: 'stablecoin', decimals: 18 })
    expect(r).toMatchObject({ ok: true, intent: { variant: 'stablecoin', decimals: 6, currency: 'USD' } })
    expect(parseDeployIntent({ ...base, variant: 'stablecoin', currency: 'EUR' })).toMatchObject({ ok: true, intent: { currency: 'EUR' } })
  })
  it('accepts lower-case and correctly checksummed admins, returns them checksummed', () => {
    const lower = '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'
    expect(parseDeployIntent({ ...base, admin: lower })).toMatchObject({
      ok: true,
      intent: { admin: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' },
    })
    expect(parseDeployIntent({ ...base, admin: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }).ok).toBe(true)
  })
  it.each([
    [{ ...base, name: '' }, 'name'],
    [{ ...base, name: 'x'.repeat(65) }, 'name'],
    [{ ...base, name: ' padded' }, 'name'],
    [{ ...base, name: 'bad\u202Ename' }, 'name'],
    [{ ...base, symbol: 'TOOLONGSYMBOL' }, 'symbol'],
    [{ ...base, symbol: 'MY-T' }, 'symbol'],
    [{ ...base, symbol: '' }, 'symbol'],
    [{ ...base, variant: 'nft' }, 'variant'],
    [{ ...base, decimals: 5 }, 'decimals'],
    [{ ...base, decimals: 19 }, 'decimals'],
    [{ ...base, decimals: 6.5 }, 'decimals'],
    [{ ...base, decimals: '18' }, 'decimals'],
    [{ ...base, admin: '0x5AAeb6053f3e94c9b9a09f33669435e7ef1beaed' }, 'admin'],
    [{ ...base, admin: '0x0000000000000000000000000000000000000000' }, 'admin'],
    [{ ...base, admin: 'vitalik.eth' }, 'admin'],
    [{ ...base, salt: '0x1234' }, 'salt'],
    [{ ...base, currency: 'USD' }, 'currency'],
    [{ ...base, variant: 'stablecoin', currency: 'usd' }, 'currency'],
    [{ ...base, variant: 'stablecoin', currency: 'ABC' }, 'currency'],
    [{ ...base, dryRun: 'yes' }, 'dryRun'],
    [{ ...base, owner: '0x1' }, 'owner'],
  ])('refuses %j on %s', (body, field) => {
    expect(details(body).map((d) => d.field)).toContain(field)
  })
  it('lists every problem at once, with a reason for each', () => {
    const found = details({ action: 'agent_deploy', symbol: 'T-1', decimals: 30, extra: 1, another: 2 })
    expect(found.map((d) => d.field).sort()).toEqual(['another', 'decimals', 'extra', 'name', 'symbol'])
    for (const d of found) expect(d.reason.length).toBeGreaterThan(5)
  })
  it('accepts the limits exactly', () => {
    expect(parseDeployIntent({ ...base, name: 'x'.repeat(64), symbol: 'A'.repeat(11), decimals: 6 }).ok).toBe(true)
    expect(parseDeployIntent({ ...base, decimals: 18, salt: `0x${'ab'.repeat(32)}` }).ok).toBe(true)
  })
  it('refuses a body that is not an object', () => {
    expect(details([1, 2]).length).toBeGreaterThan(0)
    expect(details(null).length).toBeGreaterThan(0)
  })
})

/** The receipt action's check of a body: what it would run, or its refusal. */
const parseReceiptRequest = (body: unknown) => receiptAction.check({ body, idempotencyKey: null })

describe('the receipt request', () => {
  it('takes a 32-byte hash', () => {
    const hash = `0x${'AB'.repeat(32)}`
    expect(parseReceiptRequest({ action: 'receipt', tx_hash: hash })).toMatchObject({ ok: true, run: expect.any(Function) })
    expect(parseReceiptRequest({ action: 'receipt', tx_hash: hash, waitSeconds: 25 })).toMatchObject({ ok: true })
  })
  it('refuses a missing or malformed hash and unknown fields', () => {
    const refused = (details: object[]) => ({ ok: false, code: 'INVALID_INTENT', details })
    expect(parseReceiptRequest({ action: 'receipt' })).toMatchObject(refused([{ field: 'tx_hash' }]))
    expect(parseReceiptRequest({ action: 'receipt', tx_hash: '0x12' })).toMatchObject(refused([{ field: 'tx_hash' }]))
    expect(parseReceiptRequest({ action: 'receipt', tx_hash: `0x${'0'.repeat(64)}`, x: 1 })).toMatchObject(refused([{ field: 'x' }]))
    expect(parseReceiptRequest({ action: 'receipt', tx_hash: `0x${'0'.repeat(64)}`, waitSeconds: 26 })).toMatchObject(
      refused([{ field: 'waitSeconds' }]),
    )
  })
})

describe('agent keys', () => {
  it('matches a key by its SHA-256 digest, never by the key itself', () => {
    const { key, digest } = generateAgentKey()
    expect(key).toMatch(/^bcr_[A-Za-z0-9_-]{43}$/)
    expect(digest).toBe(digestAgentKey(key))
    expect(matchAgentKey(key, ['0'.repeat(64), digest])).toBe(digest)
    expect(matchAgentKey(key, [])).toBeNull()
    expect(matchAgentKey(digest, [digest])).toBeNull()
    expect(matchAgentKey(null, [digest])).toBeNull()
    expect(matchAgentKey('', [digest])).toBeNull()
    expect(matchAgentKey('x'.repeat(300), [digestAgentKey('x'.repeat(300))])).toBeNull()
  })
})

describe('KMS DER parsing', () => {
  it('reads r and s, including integers with a leading 00', () => {
    const sk = secp256k1.utils.randomSecretKey()
    for (let i = 0; i < 20; i++) {
      const digest = secp256k1.utils.randomSecretKey()
      const sig = secp256k1.Signature.fromBytes(secp256k1.sign(digest, sk, { prehash: false }), 'compact')
      expect(parseDerSignature(sig.toBytes('der'))).toEqual({ r: sig.r, s: sig.s })
    }
  })
  it('refuses anything that is not a DER signature', () => {
    expect(() => parseDerSignature(new Uint8Array([0x30, 0x02, 0x02, 0x00]))).toThrow(KmsSignerError)
    expect(() => parseDerSignature(new Uint8Array(64))).toThrow(KmsSignerError)
  })
  it('reads the public key out of the SubjectPublicKeyInfo and refuses other key types', () => {
    const pub = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), false)
    const spki = Buffer.concat([Buffer.from('3056301006072a8648ce3d020106052b8104000a034200', 'hex'), pub])
    expect(publicKeyFromSpki(spki)).toBe(`0x${Buffer.from(pub).toString('hex')}`)
    expect(() => publicKeyFromSpki(spki.subarray(1))).toThrow(KmsSignerError)
  })
})

describe('canonicalJson', () => {
  it('is the same for the same body whatever the key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }),
    )
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: 2 }))
  })
})
