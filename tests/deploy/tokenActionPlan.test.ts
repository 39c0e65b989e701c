import { type Address, decodeFunctionData, getAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { B20_FACTORY_ADDRESS } from '../../lib/chain/b20.js'
import { tokenManageAbi } from '../../lib/chain/tokenManageCalls.js'
import { B20_ROLES, contractUriMetadata, type TokenPowers } from '../../lib/chain/tokenPowers.js'
import { mintAction } from '../../lib/deploy/actions/tokenActions.js'
import { type PlannedToken, planTokenAction, rolesKept } from '../../lib/deploy/pipeline/tokenActionPlan.js'
import { minedEventType } from '../../lib/deploy/webhooks/eventTypes.js'

// The planning of an action on a launched token, pure: the calls each action makes from its sender, in the order the
// token needs them, and the refusals known before any simulation.

const TOKEN = getAddress('0xb200000000000000000000a1b2c3d4e5f6a7b8c9')
const SIGNER = getAddress('0x96d8e6909c6750d9bae128c3593a1ab760c2b4fb')
const OWNER = getAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')
const OTHER = getAddress('0x1111111111111111111111111111111111111111')
const { DEFAULT_ADMIN_ROLE: ADMIN, MINT_ROLE: MINT, METADATA_ROLE: METADATA, PAUSE_ROLE: PAUSE } = B20_ROLES

const powers = (over: Partial<TokenPowers> = {}): TokenPowers => ({
  admins: [SIGNER],
  minters: [SIGNER],
  pausers: [],
  metadataEditors: [],
  supplyCap: '5000',
  totalSupply: '1000',
  paused: { transfer: false, mint: false, burn: false },
  signerRoles: ['DEFAULT_ADMIN_ROLE', 'MINT_ROLE'],
  ...over,
})
const token = (over: Partial<PlannedToken> = {}): PlannedToken => ({
  address: TOKEN,
  decimals: 18,
  name: 'Run Token',
  symbol: 'RUN',
  powers: powers(),
  metadata: { name: 'Run Token', symbol: 'RUN', description: 'First words' },
  signer: SIGNER,
  ...over,
})
const decoded = (plan: { calls: { to: Address; data: `0x${string}` }[] }) =>
  plan.calls.map((call) => {
    expect(call.to).toBe(TOKEN)
    const { functionName, args } = decodeFunctionData({ abi: tokenManageAbi, data: call.data })
    return [functionName, ...(args ?? [])]
  })

describe('planning an action on a launched token', () => {
  it('mints whole tokens in base units, and refuses past the cap naming the room left', () => {
    const planned = planTokenAction({
      request: { action: 'mint', to: OWNER, amount: '12.5' },
      token: token(),
      from: SIGNER,
      held: [ADMIN, MINT],
    })
    expect(planned.ok && decoded(planned.plan)).toEqual([['mint', OWNER, 12_500_000_000_000_000_000n]])
    const exact = planTokenAction({ request: { action: 'mint', to: OWNER, amount: '4000' }, token: token(), from: SIGNER, held: [MINT] })
    expect(exact.ok).toBe(true)
    const over = planTokenAction({
      request: { action: 'mint', to: OWNER, amount: '4000.000000000000000001' },
      token: token(),
      from: SIGNER,
      held: [MINT],
    })
    expect(over).toMatchObject({ ok: false, code: 'SUPPLY_CAP_EXCEEDED', roomLeft: '4000', details: [{ field: 'amount' }] })
    const full = planTokenAction({
      request: { action: 'mint', to: OWNER, amount: '1' },
      token: token({ powers: powers({ totalSupply: '5000' }) }),
      from: SIGNER,
      held: [MINT],
    })
    expect(full).toMatchObject({ code: 'SUPPLY_CAP_EXCEEDED', roomLeft: '0' })
    // A token that has minted nothing yet: the whole cap is left.
    const empty = token({ powers: powers({ supplyCap: '100', totalSupply: '0' }) })
    expect(planTokenAction({ request: { action: 'mint', to: OWNER, amount: '100' }, token: empty, from: SIGNER, held: [MINT] }).ok).toBe(
      true,
    )
    expect(
      planTokenAction({ request: { action: 'mint', to: OWNER, amount: '101' }, token: empty, from: SIGNER, held: [MINT] }),
    ).toMatchObject({
      code: 'SUPPLY_CAP_EXCEEDED',
      roomLeft: '100',
    })
    const uncapped = planTokenAction({
      request: { action: 'mint', to: OWNER, amount: '1000000000' },
      token: token({ powers: powers({ supplyCap: null }) }),
      from: SIGNER,
      held: [MINT],
    })
    expect(uncapped.ok).toBe(true)
    const tooPrecise = planTokenAction({
      request: { action: 'mint', to: OWNER, amount: '1.5' },
      token: token({ decimals: 0 }),
      from: SIGNER,
      held: [MINT],
    })
    expect(tooPrecise).toMatchObject({ ok: false, code: 'INVALID_INTENT', details: [{ field: 'amount' }] })
  })

  it('lets an admin without the role take it for the calls and give it up in the same batch', () => {
    const planned = planTokenAction({
      request: { action: 'update_metadata', name: 'New' },
      token: token(),
      from: SIGNER,
      held: [ADMIN, MINT],
    })
    expect(planned.ok && decoded(planned.plan)).toEqual([
      ['grantRole', METADATA, SIGNER],
      ['updateContractURI', expect.stringMatching(/^data:application\/json;base64,/)],
      ['updateName', 'New'],
      ['renounceRole', METADATA, SIGNER],
    ])
    // A holder of the role makes the calls alone.
    const holder = planTokenAction({
      request: { action: 'update_metadata', symbol: 'NEW' },
      token: token({ metadata: null }),
      from: OWNER,
      held: [METADATA],
    })
    expect(holder.ok && decoded(holder.plan)).toEqual([['updateSymbol', 'NEW']])
  })

  it('keeps the metadata fields not given, and writes a new name into an inline contractURI', () => {
    const planned = planTokenAction({
      request: { action: 'update_metadata', image: 'https://example.org/i.png', socials: { x: 'https://x.com/run' } },
      token: token(),
      from: OWNER,
      held: [METADATA],
    })
    if (!planned.ok) throw new Error(planned.error)
    const [[, uri]] = decoded(planned.plan) as [[string, string]]
    expect(contractUriMetadata(uri)).toEqual({
      name: 'Run Token',
      symbol: 'RUN',
      description: 'First words',
      image: 'https://example.org/i.png',
      socials: { x: 'https://x.com/run' },
    })
    // A link contractURI is not merged into: the new one holds the token's identity and the fields given.
    const linked = planTokenAction({
      request: { action: 'update_metadata', description: 'd' },
      token: token({ metadata: { uri: 'https://x.org/m.json' } }),
      from: OWNER,
      held: [METADATA],
    })
    if (!linked.ok) throw new Error(linked.error)
    expect(contractUriMetadata((decoded(linked.plan)[0] as [string, string])[1])).toEqual({
      name: 'Run Token',
      symbol: 'RUN',
      description: 'd',
    })
  })

  it('hands over: grants first (admin, then the roles held), then the sender renounces every role, admin last', () => {
    const planned = planTokenAction({
      request: { action: 'transfer_admin', to: OWNER },
      token: token(),
      from: SIGNER,
      held: [ADMIN, MINT, PAUSE],
    })
    expect(planned.ok && decoded(planned.plan)).toEqual([
      ['grantRole', ADMIN, OWNER],
      ['grantRole', MINT, OWNER],
      ['renounceRole', MINT, SIGNER],
      ['renounceRole', PAUSE, SIGNER],
      ['renounceRole', ADMIN, SIGNER],
    ])
    for (const to of [TOKEN, SIGNER, getAddress(B20_FACTORY_ADDRESS)]) {
      const refused = planTokenAction({ request: { action: 'transfer_admin', to }, token: token(), from: SIGNER, held: [ADMIN] })
      expect(refused).toMatchObject({ ok: false, code: 'INVALID_INTENT', details: [{ field: 'to' }] })
    }
    const toSelf = planTokenAction({ request: { action: 'transfer_admin', to: OWNER }, token: token(), from: OWNER, held: [ADMIN] })
    expect(toSelf).toMatchObject({ ok: false, code: 'INVALID_INTENT' })
  })

  it('renounces with renounceLastAdmin only for the sole admin, and says who keeps what', () => {
    const sole = planTokenAction({ request: { action: 'renounce', confirm: true }, token: token(), from: SIGNER, held: [ADMIN, MINT] })
    expect(sole.ok && decoded(sole.plan)).toEqual([['renounceRole', MINT, SIGNER], ['renounceLastAdmin']])
    expect(sole.ok && sole.plan.effect).toContain('last admin')
    const shared = token({ powers: powers({ admins: [OWNER, SIGNER], minters: [SIGNER, OTHER] }) })
    const one = planTokenAction({ request: { action: 'renounce' }, token: shared, from: SIGNER, held: [ADMIN, MINT] })
    expect(one.ok && decoded(one.plan)).toEqual([
      ['renounceRole', MINT, SIGNER],
      ['renounceRole', ADMIN, SIGNER],
    ])
    expect(one.ok && one.plan.keeps).toEqual([
      { role: 'DEFAULT_ADMIN_ROLE', accounts: [OWNER] },
      { role: 'MINT_ROLE', accounts: [OTHER] },
      { role: 'PAUSE_ROLE', accounts: [] },
      { role: 'METADATA_ROLE', accounts: [] },
    ])
    expect(planTokenAction({ request: { action: 'renounce' }, token: token(), from: OTHER, held: [] })).toMatchObject({
      ok: false,
      code: 'NO_ROLES',
    })
    expect(rolesKept(powers(), SIGNER).every((kept) => kept.accounts.length === 0)).toBe(true)
  })

  it('refuses a mint amount that is no amount before reading anything', () => {
    const check = (amount: string) => mintAction.check({ body: { action: 'mint', token: TOKEN, to: OWNER, amount }, idempotencyKey: null })
    for (const bad of ['-1', '0', '0.000', '1e18', '12.', ' 5', ''])
      expect(check(bad), bad).toMatchObject({
        ok: false,
        code: 'INVALID_INTENT',
        details: expect.arrayContaining([{ field: 'amount', reason: expect.any(String) }]),
      })
    for (const good of ['1', '12.5', '0.000001']) expect(check(good).ok, good).toBe(true)
  })

  it('names each mined action’s webhook event by its kind, and every other kind a deploy’s', () => {
    expect(minedEventType('mint', 'confirmed')).toBe('token.minted')
    expect(minedEventType('update_metadata', 'confirmed')).toBe('token.updated')
    expect(minedEventType('transfer_admin', 'confirmed')).toBe('token.admin_transferred')
    expect(minedEventType('renounce', 'confirmed')).toBe('token.renounced')
    expect(minedEventType('renounce', 'reverted')).toBe('token.action_reverted')
    expect(minedEventType('launch', 'confirmed')).toBe('deploy.confirmed')
    expect(minedEventType('mint_fixture', 'reverted')).toBe('deploy.reverted')
  })
})
