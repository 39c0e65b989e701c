import { decodeFunctionData, encodeFunctionData, getAddress, keccak256, parseAbi, toBytes, toFunctionSelector } from 'viem'
import { describe, expect, it } from 'vitest'
import { encodeAdminInitCalls } from '../../lib/chain/b20.js'
import { MAX_TOKEN_UNITS, parseTokenAmount } from '../../lib/chain/tokenAmount.js'
import { encodeBirthInitCalls, metadataDataUri } from '../../lib/chain/tokenBirth.js'

const ADMIN = '0xadadadadadadadadadadadadadadadadadadadad'
const HOLDER = '0x1111111111111111111111111111111111111111'
// The token surface as Base's IB20 names it, written out here rather than taken from the module under test.
const IB20 = parseAbi([
  'function grantRole(bytes32 role, address account)',
  'function updateSupplyCap(uint256 newSupplyCap)',
  'function mint(address to, uint256 amount)',
  'function updateContractURI(string uri)',
])

describe('parseTokenAmount', () => {
  it.each([
    ['1000000', 18, 1_000_000n * 10n ** 18n],
    ['12.5', 6, 12_500_000n],
    ['0.000001', 6, 1n],
    ['1', 0, 1n],
    ['007', 2, 700n],
    ['340282366920938463463.374607431768211455', 18, MAX_TOKEN_UNITS],
  ] as const)('reads %s at %i decimals', (text, decimals, units) => {
    expect(parseTokenAmount(text, decimals)).toEqual({ ok: true, units })
  })

  it.each([
    ['', 18, 'decimal number'],
    ['abc', 18, 'decimal number'],
    ['-5', 18, 'decimal number'],
    ['1e6', 18, 'decimal number'],
    ['1,000', 18, 'decimal number'],
    [' 1', 18, 'decimal number'],
    ['1.', 18, 'decimal number'],
    ['.5', 18, 'decimal number'],
    ['0', 18, 'more than 0'],
    ['0.000', 6, 'more than 0'],
    ['0.0000001', 6, 'at most 6 digits'],
    ['1.5', 0, 'at most 0 digits'],
    ['340282366920938463463.374607431768211456', 18, '2^128-1'],
    ['1000000000000000000000000000000000000000', 0, '2^128-1'],
  ] as const)('refuses %j at %i decimals', (text, decimals, reason) => {
    const parsed = parseTokenAmount(text, decimals)
    expect(parsed.ok).toBe(false)
    expect(parsed.ok ? '' : parsed.reason).toContain(reason)
  })
})

describe('metadataDataUri', () => {
  const decode = (uri: string) => JSON.parse(Buffer.from(uri.replace('data:application/json;base64,', ''), 'base64').toString('utf8'))

  it('writes ERC-7572 JSON with only the keys given besides name and symbol, website as external_link', () => {
    const full = metadataDataUri({
      name: 'Ünïcode Token',
      symbol: 'UNI',
      description: 'A “quoted” line',
      image: 'https://x.example/i.png',
      website: 'https://x.example',
    })
    expect(full.startsWith('data:application/json;base64,')).toBe(true)
    expect(decode(full)).toEqual({
      name: 'Ünïcode Token',
      symbol: 'UNI',
      description: 'A “quoted” line',
      image: 'https://x.example/i.png',
      external_link: 'https://x.example',
    })
    expect(decode(metadataDataUri({ name: 'N', symbol: 'S', image: 'https://x.example/i.png' }))).toEqual({
      name: 'N',
      symbol: 'S',
      image: 'https://x.example/i.png',
    })
  })
})

describe('encodeBirthInitCalls', () => {
  const decoded = (calls: readonly `0x${string}`[]) => calls.map((data) => decodeFunctionData({ abi: IB20, data }))

  it('orders roles, the cap, the mint, then the metadata, by IB20’s own selectors', () => {
    const calls = encodeBirthInitCalls({
      minter: ADMIN,
      supplyCap: 10n ** 24n,
      mint: { to: HOLDER, units: 10n ** 21n },
      contractUri: 'data:x',
    })
    expect(calls.map((c) => c.slice(0, 10))).toEqual(
      ['grantRole(bytes32,address)', 'updateSupplyCap(uint256)', 'mint(address,uint256)', 'updateContractURI(string)'].map((s) =>
        toFunctionSelector(s),
      ),
    )
    expect(decoded(calls).map((c) => [c.functionName, c.args])).toEqual([
      ['grantRole', [keccak256(toBytes('MINT_ROLE')), getAddress(ADMIN)]],
      ['updateSupplyCap', [10n ** 24n]],
      ['mint', [HOLDER, 10n ** 21n]],
      ['updateContractURI', ['data:x']],
    ])
  })

  it('grants no role at all for a fixed supply, and sends today’s calldata when nothing new is asked', () => {
    const fixed = encodeBirthInitCalls({ minter: null, supplyCap: 5n, mint: { to: HOLDER, units: 5n } })
    expect(decoded(fixed).map((c) => c.functionName)).toEqual(['updateSupplyCap', 'mint'])
    expect(encodeBirthInitCalls({ minter: ADMIN })).toEqual(encodeAdminInitCalls(ADMIN))
    expect(encodeBirthInitCalls({ minter: ADMIN })).toEqual([
      encodeFunctionData({ abi: IB20, functionName: 'grantRole', args: [keccak256(toBytes('MINT_ROLE')), ADMIN] }),
    ])
  })
})
