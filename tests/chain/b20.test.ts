import {
  decodeAbiParameters,
  decodeFunctionData,
  encodeErrorResult,
  getAddress,
  type Hex,
  keccak256,
  parseAbiParameters,
  toBytes,
  toHex,
} from 'viem'
import { describe, expect, it } from 'vitest'
import {
  b20FactoryAbi,
  b20TokenErrorsAbi,
  CREATE_B20_SELECTOR,
  decodeB20Revert,
  encodeAdminInitCalls,
  encodeB20Params,
  encodeCreateB20,
  MINT_ROLE,
  predictB20Address,
} from '../../lib/chain/b20.js'

const SENDER = '0x1111111111111111111111111111111111111111'
const SALT = `0x${'22'.repeat(32)}` as Hex
const ADMIN = getAddress('0x00000000000000000000000000000000000000aa')

describe('predictB20Address', () => {
  it('matches Base’s published test vectors for both variants', () => {
    expect(predictB20Address('asset', SENDER, SALT)).toBe('0xB200000000000000000000f4f69ba108F6504Dc5')
    expect(predictB20Address('stablecoin', SENDER, SALT)).toBe('0xb200000000000000000001F4f69Ba108F6504dc5')
  })
  it('depends on sender and salt (abi.encode, not packed)', () => {
    expect(predictB20Address('asset', SENDER, toHex(1n, { size: 32 }))).not.toBe(predictB20Address('asset', SENDER, SALT))
    expect(predictB20Address('asset', ADMIN, SALT)).not.toBe(predictB20Address('asset', SENDER, SALT))
  })
})

describe('encodeB20Params', () => {
  it('encodes the version-1 asset tuple as ONE tuple parameter (offset word first)', () => {
    const params = encodeB20Params({ variant: 'asset', name: 'N', symbol: 'S', admin: ADMIN, decimals: 18 })
    expect(params.slice(0, 66)).toBe(`0x${'0'.repeat(62)}20`)
    const [decoded] = decodeAbiParameters(
      parseAbiParameters('(uint8 version, string name, string symbol, address initialAdmin, uint8 decimals)'),
      params,
    )
    expect(decoded).toEqual({ version: 1, name: 'N', symbol: 'S', initialAdmin: ADMIN, decimals: 18 })
  })
  it('encodes the stablecoin tuple with its currency and no decimals', () => {
    const params = encodeB20Params({ variant: 'stablecoin', name: 'Dollar', symbol: 'USDX', admin: ADMIN, currency: 'USD' })
    const [decoded] = decodeAbiParameters(
      parseAbiParameters('(uint8 version, string name, string symbol, address initialAdmin, string currency)'),
      params,
    )
    expect(decoded).toEqual({ version: 1, name: 'Dollar', symbol: 'USDX', initialAdmin: ADMIN, currency: 'USD' })
  })
})

describe('encodeCreateB20', () => {
  it('calls createB20(variant, salt, params, [grantRole(MINT_ROLE, admin)])', () => {
    const data = encodeCreateB20({ variant: 'stablecoin', name: 'D', symbol: 'D', admin: ADMIN, currency: 'EUR' }, SALT)
    expect(data.startsWith(CREATE_B20_SELECTOR)).toBe(true)
    const { functionName, args } = decodeFunctionData({ abi: b20FactoryAbi, data })
    expect(functionName).toBe('createB20')
    expect(args[0]).toBe(1)
    expect(args[1]).toBe(SALT)
    expect(args[3]).toEqual(encodeAdminInitCalls(ADMIN))
    expect(args[3]![0]!.startsWith('0x2f2ff15d')).toBe(true)
    expect(MINT_ROLE).toBe(keccak256(toHex('MINT_ROLE')))
    expect(args[3]![0]).toContain(MINT_ROLE.slice(2))
  })
})

describe('decodeB20Revert', () => {
  it.each([
    ['TokenAlreadyExists', [ADMIN], { token: ADMIN }],
    ['InvalidDecimals', [5], { decimals: 5 }],
    ['FeatureNotActivated', [keccak256(toHex('base.b20_stablecoin'))], { feature: keccak256(toHex('base.b20_stablecoin')) }],
    ['InvalidCurrency', ['usd'], { code: 'usd' }],
    ['MissingRequiredField', ['currency'], { field: 'currency' }],
    ['UnsupportedVersion', [2, 0], { version: 2, variant: 0 }],
    ['InitCallFailed', [1n], { index: 1 }],
    ['NonPayable', [], {}],
  ] as const)('names %s with its arguments', (name, args, expected) => {
    const data = encodeErrorResult({ abi: b20FactoryAbi, errorName: name, args: args as never })
    expect(decodeB20Revert(data)).toEqual({ name, args: expected })
  })
  it('names token errors that bubble up from an initCall', () => {
    const data = encodeErrorResult({ abi: b20TokenErrorsAbi, errorName: 'AccessControlUnauthorizedAccount', args: [ADMIN, MINT_ROLE] })
    expect(decodeB20Revert(data)).toEqual({ name: 'AccessControlUnauthorizedAccount', args: { account: ADMIN, neededRole: MINT_ROLE } })
  })
  it('labels the supply errors’ words in Base’s order: SupplyCapExceeded(cap, attempted), InvalidSupplyCap(currentSupply, proposedCap)', () => {
    // Revert data as Base's token writes it, built from the signature alone (not from our ABI).
    const words = (...values: bigint[]) => values.map((v) => v.toString(16).padStart(64, '0')).join('')
    const selector = (signature: string) => keccak256(toBytes(signature)).slice(0, 10)
    expect(decodeB20Revert(`${selector('SupplyCapExceeded(uint256,uint256)')}${words(1000n, 1500n)}` as Hex)).toEqual({
      name: 'SupplyCapExceeded',
      args: { cap: 1000, attempted: 1500 },
    })
    expect(decodeB20Revert(`${selector('InvalidSupplyCap(uint256,uint256)')}${words(700n, 500n)}` as Hex)).toEqual({
      name: 'InvalidSupplyCap',
      args: { currentSupply: 700, proposedCap: 500 },
    })
    expect(decodeB20Revert(selector('NotSoleAdmin()') as Hex)).toEqual({ name: 'NotSoleAdmin', args: {} })
  })

  it('reports malformed params, empty and unknown data', () => {
    expect(decodeB20Revert(CREATE_B20_SELECTOR)).toEqual({ name: 'MalformedParams', args: {} })
    expect(decodeB20Revert('0x')).toEqual({ name: 'UnknownRevert', args: {} })
    expect(decodeB20Revert(undefined)).toEqual({ name: 'UnknownRevert', args: {} })
    expect(decodeB20Revert('0xdeadbeef00')).toEqual({ name: 'UnknownRevert', args: { data: '0xdeadbeef' } })
  })
})
