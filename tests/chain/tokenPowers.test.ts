import { type Address, getAddress, type Hex, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { foldRoleEvents, type RoleEvent } from '../../lib/chain/roleLogs.js'
import { B20_ROLES, contractUriMetadata, roleName } from '../../lib/chain/tokenPowers.js'
import { feesOwedUnits } from '../../lib/deploy/pool/positionFees.js'

// The pure cores behind token_status: the role logs folded into names to confirm, a contractURI decoded, the names of
// B20's roles, and a position's fees owed (the SDK's arithmetic, wrapping as the pool's does).

const [A, B, C] = [
  '0x00000000000000000000000000000000000000a1',
  '0x00000000000000000000000000000000000000b2',
  '0x00000000000000000000000000000000000000c3',
].map((a) => getAddress(a)) as [Address, Address, Address]
const MINT = B20_ROLES.MINT_ROLE
const ADMIN = B20_ROLES.DEFAULT_ADMIN_ROLE
const grant = (role: Hex, account: Address): RoleEvent => ({ kind: 'granted', role, account })
const revoke = (role: Hex, account: Address): RoleEvent => ({ kind: 'revoked', role, account })

describe('foldRoleEvents', () => {
  it('adds a grant and removes a revoke, in order, per role; a role left empty is dropped', () => {
    expect(foldRoleEvents({}, [grant(ADMIN, A), grant(MINT, A), grant(MINT, B), revoke(MINT, A)])).toEqual({ [ADMIN]: [A], [MINT]: [B] })
    expect(foldRoleEvents({}, [grant(MINT, A), revoke(MINT, A)])).toEqual({})
    // Revoked, then granted again: held.
    expect(foldRoleEvents({}, [grant(MINT, A), revoke(MINT, A), grant(MINT, A)])).toEqual({ [MINT]: [A] })
  })

  it('goes on from what an earlier scan found, whatever the case of the role and the address', () => {
    const first = foldRoleEvents({}, [grant(MINT, A), grant(MINT, C)])
    const upper = MINT.toUpperCase().replace('0X', '0x') as Hex
    expect(foldRoleEvents(first, [revoke(upper, A.toLowerCase() as Address), grant(MINT, B)])).toEqual({ [MINT]: [B, C].sort() })
  })

  it('never counts a grant twice, and a revoke of someone never granted changes nothing', () => {
    expect(foldRoleEvents({}, [grant(MINT, A), grant(MINT, A), revoke(MINT, B)])).toEqual({ [MINT]: [A] })
  })
})

describe('roleName', () => {
  it('names B20’s built-in roles and leaves a made-up one as its id', () => {
    expect(roleName(ADMIN)).toBe('DEFAULT_ADMIN_ROLE')
    expect(roleName(MINT)).toBe('MINT_ROLE')
    expect(roleName(B20_ROLES.UNPAUSE_ROLE)).toBe('UNPAUSE_ROLE')
    const own = toHex('CUSTOM', { size: 32 })
    expect(roleName(own)).toBe(own)
  })
})

describe('contractUriMetadata', () => {
  const base64 = (json: object) => `data:application/json;base64,${Buffer.from(JSON.stringify(json)).toString('base64')}`

  it('decodes an inline ERC-7572 JSON (base64 or percent-encoded), external_link as website, strings only', () => {
    expect(
      contractUriMetadata(base64({ name: 'X', symbol: 'XX', description: 'd', image: 'https://i', external_link: 'https://w' })),
    ).toEqual({
      name: 'X',
      symbol: 'XX',
      description: 'd',
      image: 'https://i',
      website: 'https://w',
    })
    expect(contractUriMetadata(`data:application/json,${encodeURIComponent('{"description":"é"}')}`)).toEqual({ description: 'é' })
    expect(contractUriMetadata(base64({ description: 42, image: null, name: 'N' }))).toEqual({ name: 'N' })
  })

  it('answers a link as uri, and nothing for empty text, another data type, bad JSON or no known field', () => {
    expect(contractUriMetadata('https://example.com/meta.json')).toEqual({ uri: 'https://example.com/meta.json' })
    expect(contractUriMetadata('ipfs://bafy')).toEqual({ uri: 'ipfs://bafy' })
    expect(contractUriMetadata('')).toBeNull()
    expect(contractUriMetadata('data:text/plain;base64,aGk=')).toBeNull()
    expect(contractUriMetadata('data:application/json;base64,bm90IGpzb24=')).toBeNull()
    expect(contractUriMetadata(base64([1, 2]))).toBeNull()
    expect(contractUriMetadata(base64({ banner_image: 'x' }))).toBeNull()
    expect(contractUriMetadata('javascript:alert(1)')).toBeNull()
  })
})

describe('feesOwedUnits', () => {
  const Q128 = 2n ** 128n

  it('is (growth now - last) × liquidity / 2^128 per currency, rounded down', () => {
    expect(feesOwedUnits({ liquidity: 10n ** 18n, last: [0n, 0n], now: [Q128, 3n * Q128] })).toEqual([10n ** 18n, 3n * 10n ** 18n])
    expect(feesOwedUnits({ liquidity: 3n, last: [0n, 0n], now: [Q128 / 2n, Q128 / 3n] })).toEqual([1n, 0n])
    expect(feesOwedUnits({ liquidity: 0n, last: [5n, 5n], now: [Q128, Q128] })).toEqual([0n, 0n])
    expect(feesOwedUnits({ liquidity: 10n ** 18n, last: [Q128, Q128], now: [Q128, Q128] })).toEqual([0n, 0n])
  })

  it('wraps the growth modulo 2^256, as the pool’s unchecked subtraction does', () => {
    const max = 2n ** 256n
    // The growth passed 2^256 since the position's last update: it still owes what grew.
    expect(feesOwedUnits({ liquidity: 2n, last: [max - Q128, 0n], now: [Q128, 0n] })).toEqual([4n, 0n])
  })
})
