import { decodeAbiParameters, decodeFunctionData, encodeAbiParameters, type Hex, parseAbiParameters, toHex, zeroAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { b20FactoryAbi, encodeCreateB20, MINT_ROLE } from '../../lib/chain/b20.js'
import { birthViewOf, mintsInLogs } from '../../lib/chain/birthView.js'
import { readMetadataDataUri } from '../../lib/chain/tokenBirth.js'
import { parseDeployIntent } from '../../lib/deploy/actions/agentDeploy.js'
import { planDeploy } from '../../lib/deploy/pipeline/deployPlan.js'
import type { DeployIntent } from '../../lib/deploy/pipeline/intent.js'
// The token surface as Base's IB20 names it, written out in tests/support rather than taken from the modules under test.
import { ib20Abi } from '../support/b20Token.js'

const base = { action: 'agent_deploy', name: 'Ready Token', symbol: 'RDY' }
const ADMIN = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
const HOLDER = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359'
const SIGNER = '0x1111111111111111111111111111111111111111'
const SALT = toHex(7n, { size: 32 })
const problems = (body: Record<string, unknown>) => {
  const parsed = parseDeployIntent({ ...base, ...body })
  return parsed.ok ? [] : parsed.details
}
const intentOf = (body: Record<string, unknown>): DeployIntent => {
  const parsed = parseDeployIntent({ ...base, ...body })
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.details))
  return parsed.intent
}
const initCallsOf = (data: Hex) => {
  const { args } = decodeFunctionData({ abi: b20FactoryAbi, data })
  return (args[3] as readonly Hex[]).map((call) => {
    const decoded = decodeFunctionData({ abi: ib20Abi, data: call })
    return [decoded.functionName, ...decoded.args]
  })
}
const initialAdminOf = (data: Hex) => {
  const { args } = decodeFunctionData({ abi: b20FactoryAbi, data })
  return decodeAbiParameters(parseAbiParameters('(uint8, string, string, address)'), args[2] as Hex)[0][3]
}

describe('agent_deploy birth fields: every bad value is named by its field', () => {
  it.each([
    ['a number instead of a string', { initialSupply: 1000, recipient: HOLDER }, 'initialSupply', 'must be a string'],
    ['a non-number', { initialSupply: 'lots', recipient: HOLDER }, 'initialSupply', 'decimal number'],
    ['a negative amount', { initialSupply: '-5', recipient: HOLDER }, 'initialSupply', 'decimal number'],
    ['a zero amount', { initialSupply: '0', recipient: HOLDER }, 'initialSupply', 'more than 0'],
    ['an exponent', { initialSupply: '1e6', recipient: HOLDER }, 'initialSupply', 'decimal number'],
    [
      'too many fraction digits for 6 decimals',
      { decimals: 6, initialSupply: '1.0000001', recipient: HOLDER },
      'initialSupply',
      'at most 6 digits',
    ],
    ['too many fraction digits for 18', { initialSupply: `1.${'1'.repeat(19)}`, recipient: HOLDER }, 'initialSupply', 'at most 18 digits'],
    [
      'too many fraction digits for a stablecoin',
      { variant: 'stablecoin', initialSupply: '0.1234567', recipient: HOLDER },
      'initialSupply',
      'at most 6 digits',
    ],
    [
      'more than 2^128-1 base units',
      { initialSupply: '340282366920938463463.374607431768211456', recipient: HOLDER },
      'initialSupply',
      '2^128-1',
    ],
    ['a cap below the supply', { initialSupply: '100', supplyCap: '99.9', recipient: HOLDER }, 'supplyCap', 'at least initialSupply'],
    ['a zero cap', { supplyCap: '0' }, 'supplyCap', 'more than 0'],
    [
      'fixedSupply with a cap',
      { fixedSupply: true, initialSupply: '100', recipient: HOLDER, supplyCap: '200' },
      'supplyCap',
      'fixedSupply',
    ],
    ['fixedSupply with admin', { fixedSupply: true, initialSupply: '100', recipient: HOLDER, admin: ADMIN }, 'admin', 'no admin'],
    ['fixedSupply without a supply', { fixedSupply: true, recipient: HOLDER }, 'initialSupply', 'required with fixedSupply'],
    ['fixedSupply without a recipient', { fixedSupply: true, initialSupply: '100' }, 'recipient', 'required'],
    ['fixedSupply as a string', { fixedSupply: 'yes' }, 'fixedSupply', 'true or false'],
    ['a supply with neither recipient nor admin', { initialSupply: '100' }, 'recipient', 'service’s own signer'],
    ['a recipient without a supply', { recipient: HOLDER }, 'recipient', 'only with initialSupply'],
    ['the zero address as recipient', { initialSupply: '1', recipient: zeroAddress }, 'recipient', 'not the zero address'],
    ['a badly checksummed recipient', { initialSupply: '1', recipient: HOLDER.replace('fB', 'Fb') }, 'recipient', 'checksum'],
    ['501 characters of description', { description: 'd'.repeat(501) }, 'description', 'at most 500'],
    ['an empty description', { description: '  ' }, 'description', 'must not be empty'],
    ['a description with a zero-width space', { description: 'good\u200btoken' }, 'description', 'zero-width'],
    ['a description with a line break', { description: 'one\ntwo' }, 'description', 'control'],
    ['an http image', { image: 'http://example.com/a.png' }, 'image', 'https://'],
    ['a javascript: image', { image: 'javascript:alert(1)' }, 'image', 'https://'],
    ['a data: image', { image: 'data:image/png;base64,AAAA' }, 'image', 'https://'],
    ['credentials in the website', { website: 'https://user:pass@example.com' }, 'website', 'no user name or password'],
    ['a user name alone in the website', { website: 'https://user@example.com' }, 'website', 'no user name or password'],
    ['an ftp website', { website: 'ftp://example.com' }, 'website', 'https://'],
    ['a website with a space', { website: 'https://exa mple.com' }, 'website', 'https://'],
    ['a 513-character image URL', { image: `https://example.com/${'a'.repeat(493)}` }, 'image', 'at most 512'],
    ['a number as website', { website: 42 }, 'website', 'https URL'],
  ])('refuses %s', (_, body, field, reason) => {
    const found = problems(body)
    expect(found).toContainEqual({ field, reason: expect.stringContaining(reason) })
  })

  it('names a missing recipient once, whichever rules miss it', () => {
    expect(problems({ fixedSupply: true, initialSupply: '100' }).filter((p) => p.field === 'recipient')).toHaveLength(1)
    expect(
      problems({ fixedSupply: true, initialSupply: '100', admin: ADMIN })
        .map((p) => p.field)
        .sort(),
    ).toEqual(['admin', 'recipient'])
  })

  it('lists every problem at once, the birth fields beside the others', () => {
    expect(
      problems({ symbol: 'no spaces', initialSupply: '0', image: 'http://x.test', fixedSupply: true, admin: ADMIN })
        .map((p) => p.field)
        .sort(),
    ).toEqual(['admin', 'image', 'initialSupply', 'recipient', 'symbol'])
  })

  it('accepts the edges: 500 characters, a 512-character URL, the largest supply, a cap equal to the supply', () => {
    expect(problems({ description: 'd'.repeat(500), image: `https://example.com/${'a'.repeat(492)}` })).toEqual([])
    expect(problems({ initialSupply: '340282366920938463463.374607431768211455', recipient: HOLDER })).toEqual([])
    expect(problems({ decimals: 6, initialSupply: '12.345678', supplyCap: '12.345678', admin: ADMIN })).toEqual([])
    expect(problems({ website: 'https://EXAMPLE.com:8443/path?q=1#top' })).toEqual([])
  })

  it('reads amounts in base units of the token’s decimals, and gives the supply to the admin by default', () => {
    expect(intentOf({ decimals: 6, initialSupply: '12.5', admin: ADMIN }).birth).toEqual({
      initialSupply: 12_500_000n,
      recipient: ADMIN,
      supplyCap: undefined,
      fixedSupply: false,
      metadata: undefined,
    })
    expect(intentOf({ initialSupply: '12.5', recipient: HOLDER.toLowerCase() }).birth.initialSupply).toBe(125n * 10n ** 17n)
    expect(intentOf({ initialSupply: '1', recipient: HOLDER.toLowerCase() }).birth.recipient).toBe(HOLDER)
    expect(intentOf({ variant: 'stablecoin', decimals: 18, supplyCap: '10000000' }).birth.supplyCap).toBe(10_000_000n * 10n ** 6n)
    expect(intentOf({ fixedSupply: true, initialSupply: '21000000', recipient: HOLDER }).birth).toMatchObject({
      fixedSupply: true,
      supplyCap: 21_000_000n * 10n ** 18n,
    })
    expect(intentOf({ description: 'Hi', website: 'https://example.com' }).birth.metadata).toEqual({
      description: 'Hi',
      website: 'https://example.com',
    })
  })
})

describe('planDeploy: the initCalls a token is born with', () => {
  it('sends exactly today’s calldata when none of the birth fields is given', () => {
    const spec = { variant: 'asset', name: 'Ready Token', symbol: 'RDY', decimals: 18 } as const
    expect(planDeploy({ intent: intentOf({}), signer: SIGNER, salt: SALT }).data).toBe(encodeCreateB20({ ...spec, admin: SIGNER }, SALT))
    expect(planDeploy({ intent: intentOf({ admin: ADMIN }), signer: SIGNER, salt: SALT }).data).toBe(
      encodeCreateB20({ ...spec, admin: ADMIN }, SALT),
    )
    expect(initCallsOf(planDeploy({ intent: intentOf({}), signer: SIGNER, salt: SALT }).data)).toEqual([['grantRole', MINT_ROLE, SIGNER]])
  })

  it('grants the mint role, then sets the cap, then mints, then sets the metadata', () => {
    const intent = intentOf({ decimals: 6, admin: ADMIN, initialSupply: '1000', recipient: HOLDER, supplyCap: '5000', description: 'D' })
    const plan = planDeploy({ intent, signer: SIGNER, salt: SALT })
    const calls = initCallsOf(plan.data)
    expect(calls.map(([name]) => name)).toEqual(['grantRole', 'updateSupplyCap', 'mint', 'updateContractURI'])
    expect(calls.slice(0, 3)).toEqual([
      ['grantRole', MINT_ROLE, ADMIN],
      ['updateSupplyCap', 5_000_000_000n],
      ['mint', HOLDER, 1_000_000_000n],
    ])
    expect(JSON.parse(Buffer.from(String(calls[3]![1]).split(',')[1]!, 'base64').toString())).toEqual({
      name: 'Ready Token',
      symbol: 'RDY',
      description: 'D',
    })
    expect(initialAdminOf(plan.data)).toBe(ADMIN)
    expect(plan.token).toEqual({
      name: 'Ready Token',
      symbol: 'RDY',
      variant: 'asset',
      decimals: 6,
      admin: ADMIN,
      minter: ADMIN,
      initialSupply: '1000',
      supplyCap: '5000',
      recipient: HOLDER,
      metadata: { description: 'D' },
    })
  })

  it('creates a fixed supply with no admin and no minter: initialAdmin zero, the cap equal to the supply', () => {
    const plan = planDeploy({
      intent: intentOf({ fixedSupply: true, initialSupply: '21000000', recipient: HOLDER }),
      signer: SIGNER,
      salt: SALT,
    })
    expect(initialAdminOf(plan.data)).toBe(zeroAddress)
    const units = 21_000_000n * 10n ** 18n
    expect(initCallsOf(plan.data)).toEqual([
      ['updateSupplyCap', units],
      ['mint', HOLDER, units],
    ])
    expect(plan.token).toMatchObject({ admin: null, initialSupply: '21000000', supplyCap: '21000000', recipient: HOLDER, metadata: null })
  })

  it('keeps the signer as admin and minter only when no admin is given, with the supply to the named recipient', () => {
    const plan = planDeploy({ intent: intentOf({ initialSupply: '1', recipient: HOLDER }), signer: SIGNER, salt: SALT })
    expect(initCallsOf(plan.data).map(([name, ...args]) => [name, args.at(-1)])).toEqual([
      ['grantRole', SIGNER],
      ['mint', 10n ** 18n],
    ])
    expect(plan.token).toMatchObject({ admin: SIGNER, recipient: HOLDER })
  })
})

describe('reading a deploy back', () => {
  it.each([
    ['nothing at birth', {}],
    ['an admin', { admin: ADMIN }],
    ['a supply to the admin', { admin: ADMIN, initialSupply: '1000000' }],
    ['a supply to a recipient, a cap and metadata', { initialSupply: '12.5', recipient: HOLDER, supplyCap: '100', description: 'Ünï ✓' }],
    ['a fixed supply', { fixedSupply: true, initialSupply: '21000000', recipient: HOLDER }],
    ['6 decimals, the smallest unit', { decimals: 6, admin: ADMIN, initialSupply: '0.000001', website: 'https://example.com' }],
    [
      'a stablecoin with a cap',
      { variant: 'stablecoin', admin: ADMIN, initialSupply: '10', supplyCap: '10000000', image: 'https://x.example/i.png' },
    ],
  ])('says the token as its calldata reads back (%s): the answer, the receipt and the records agree', (_, body) => {
    const intent = intentOf(body)
    const plan = planDeploy({ intent, signer: SIGNER, salt: SALT })
    const { name, symbol, variant, decimals } = intent
    expect(plan.token).toEqual({ name, symbol, variant, decimals, ...birthViewOf(plan.data, decimals) })
  })

  it('round-trips the ERC-7572 metadata, Unicode included, and refuses what is not a data URI of it', () => {
    const intent = intentOf({ description: 'Ünïcödé ✓ “quoted”', image: 'https://example.com/i.png', website: 'https://example.com' })
    const { data } = planDeploy({ intent, signer: SIGNER, salt: SALT })
    expect(birthViewOf(data, 18).metadata).toEqual({
      description: 'Ünïcödé ✓ “quoted”',
      image: 'https://example.com/i.png',
      website: 'https://example.com',
    })
    expect(readMetadataDataUri('https://example.com/meta.json')).toBeNull()
    expect(readMetadataDataUri('data:application/json;base64,not-json')).toBeNull()
    expect(readMetadataDataUri(`data:application/json;base64,${btoa('{"name":"x","symbol":"y"}')}`)).toBeNull()
  })

  it('reads nothing from calldata that is not a createB20, and keeps what it can of malformed params', () => {
    expect(birthViewOf('0x1234', 18)).toEqual({
      admin: null,
      minter: null,
      initialSupply: null,
      supplyCap: null,
      recipient: null,
      metadata: null,
    })
    const odd = encodeCreateB20({ variant: 'asset', name: 'A', symbol: 'A', admin: ADMIN, decimals: 18 }, SALT, ['0xdeadbeef'])
    expect(birthViewOf(odd, 18)).toMatchObject({ admin: ADMIN, initialSupply: null })
  })

  it('finds the token’s mints in a receipt’s logs, and only those', () => {
    const token = '0xB200000000000000000000f4f69ba108F6504Dc5'
    const transfer = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
    const word = (address: string) => `0x${address.slice(2).toLowerCase().padStart(64, '0')}` as Hex
    const amount = encodeAbiParameters(parseAbiParameters('uint256'), [1_500_000n])
    const logs = [
      { address: token, topics: [transfer, word(zeroAddress), word(HOLDER)], data: amount },
      // A transfer between holders is not a mint; another contract's mint is not this token's.
      { address: token, topics: [transfer, word(ADMIN), word(HOLDER)], data: amount },
      { address: HOLDER, topics: [transfer, word(zeroAddress), word(HOLDER)], data: amount },
      // Another event of the token (ContractURIUpdated()).
      { address: token, topics: ['0xa5d4097edda6d87cb9329af83fb3712ef77eeb13738ffe43cc35a4ce305ad962'], data: '0x' },
    ] as { address: Hex; topics: [Hex, ...Hex[]]; data: Hex }[]
    expect(mintsInLogs(logs, token, 6)).toEqual([{ to: HOLDER, amount: '1.5', units: '1500000' }])
  })
})
