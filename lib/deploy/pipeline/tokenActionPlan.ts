// What an action on a launched token asks of the chain, as pure planning: the role it needs, the calls its sender
// makes, what they will do in one sentence, and the refusals known before any simulation (a mint past the cap, a
// hand-over to an address that cannot take it, nothing to renounce). Who sends the calls is decided by tokenAction.ts.
import { type Address, formatUnits, type Hex, isAddressEqual, parseUnits } from 'viem'
import { B20_FACTORY_ADDRESS } from '../../chain/b20.js'
import { parseTokenAmount } from '../../chain/tokenAmount.js'
import { metadataDataUri } from '../../chain/tokenBirth.js'
import { grantRoleCall, handOverCalls, metadataCalls, mintCall, renounceCalls, type TokenCall } from '../../chain/tokenManageCalls.js'
import { B20_ROLES, roleName, type TokenMetadataView, type TokenPowers } from '../../chain/tokenPowers.js'
import { type DeployResult, failure, invalidRequest } from '../outcome.js'

/** The actions that run a launched token, by their request fields (amounts in whole tokens, as `initialSupply`). */
export type TokenActionRequest =
  | {
      action: 'update_metadata'
      description?: string
      image?: string
      website?: string
      socials?: Record<string, string>
      name?: string
      symbol?: string
    }
  | { action: 'mint'; to: Address; amount: string }
  | { action: 'transfer_admin'; to: Address }
  | { action: 'renounce'; confirm?: boolean }

/** The token as the plan needs it: its powers and metadata now, its identity. */
export type PlannedToken = {
  address: Address
  decimals: number
  name: string
  symbol: string
  powers: TokenPowers
  metadata: TokenMetadataView | null
  /** The service's signer, which created it. */
  signer: Address
}

/** Who keeps a role once `from` has given up its own. */
export type RoleKept = { role: string; accounts: Address[] }

/** A planned action: its calls from `from`, what they do, and (renounce) who keeps what. */
export type TokenActionPlan = { calls: TokenCall[]; effect: string; keeps?: RoleKept[] }

/** The role an action needs of its sender; null: renounce, which gives up whatever the sender holds. */
export function roleNeeded(action: TokenActionRequest['action']): Hex | null {
  if (action === 'update_metadata') return B20_ROLES.METADATA_ROLE
  if (action === 'mint') return B20_ROLES.MINT_ROLE
  if (action === 'transfer_admin') return B20_ROLES.DEFAULT_ADMIN_ROLE
  return null
}

/** Parameters of {@link planTokenAction}. */
export type PlanTokenActionParameters = {
  request: TokenActionRequest
  token: PlannedToken
  /** Who sends the calls. */
  from: Address
  /** The roles `from` holds now. */
  held: readonly Hex[]
}

/** Plans an action on a token from `from` (pure): its calls and effect, or why it cannot be done. */
export function planTokenAction(parameters: PlanTokenActionParameters): DeployResult<{ plan: TokenActionPlan }> {
  const { request, token, from, held } = parameters
  const needed = roleNeeded(request.action)
  const planned = planCalls(parameters)
  if (!planned.ok || !needed || held.includes(needed) || !held.includes(B20_ROLES.DEFAULT_ADMIN_ROLE)) return planned
  // An admin without the role grants it to itself for these calls and gives it up after them, in the same batch: it
  // keeps no power it did not have.
  const { plan } = planned
  return {
    ok: true,
    plan: {
      ...plan,
      calls: [grantRoleCall(token.address, needed, from), ...plan.calls, ...renounceCalls(token.address, from, [needed], false)],
      effect: `${plan.effect} ${from} is admin without ${roleName(needed)}: it takes the role for these calls and gives it up after them, in the same transaction.`,
    },
  }
}

/** The calls of an action as the holder of its role makes them. */
function planCalls({ request, token, from, held }: PlanTokenActionParameters): DeployResult<{ plan: TokenActionPlan }> {
  const at = token.address
  if (request.action === 'update_metadata') {
    const contractUri = nextContractUri(request, token)
    const calls = metadataCalls({ token: at, contractUri, name: request.name, symbol: request.symbol })
    const what = [
      contractUri !== undefined ? 'its metadata (contractURI)' : '',
      request.name ? `its name to "${request.name}"` : '',
      request.symbol ? `its symbol to "${request.symbol}"` : '',
    ]
    return { ok: true, plan: { calls, effect: `Updates ${at}: ${what.filter(Boolean).join(', ')}.` } }
  }
  if (request.action === 'mint') return planMint(request, token)
  if (request.action === 'transfer_admin') {
    const to = request.to
    const refusedTo = [token.address, token.signer, B20_FACTORY_ADDRESS, from].find((no) => isAddressEqual(no, to))
    if (refusedTo)
      return invalidRequest('transfer_admin', [
        { field: 'to', reason: 'must not be the token, the B20 factory, the service’s signer or the sender itself' },
      ])
    const given = [B20_ROLES.DEFAULT_ADMIN_ROLE, B20_ROLES.MINT_ROLE, B20_ROLES.METADATA_ROLE].filter((role) => held.includes(role))
    return {
      ok: true,
      plan: {
        calls: handOverCalls(at, from, to, held),
        effect: `Makes ${to} an admin of ${at}${given.length > 1 ? ` with ${given.slice(1).map(roleName).join(' and ')}` : ''}, then ${from} gives up every role it holds (${held.map(roleName).join(', ')}), in one transaction.`,
      },
    }
  }
  if (held.length === 0) return failure('NO_ROLES', `${from} holds no role on ${at}: there is nothing to renounce.`)
  const soleAdmin = token.powers.admins.length === 1 && isAddressEqual(token.powers.admins[0]!, from)
  const keeps = rolesKept(token.powers, from)
  const lastAdmin = soleAdmin
    ? ' It is the last admin: nobody can grant or revoke a role afterwards, and the holders of the other roles keep them for good.'
    : ''
  return {
    ok: true,
    plan: {
      calls: renounceCalls(at, from, held, soleAdmin),
      effect: `${from} gives up every role it holds on ${at} (${held.map(roleName).join(', ')}).${lastAdmin}`,
      keeps,
    },
  }
}

/** A mint within the cap: `SUPPLY_CAP_EXCEEDED` naming the room left (whole tokens) otherwise. */
function planMint(request: { to: Address; amount: string }, token: PlannedToken): DeployResult<{ plan: TokenActionPlan }> {
  const parsed = parseTokenAmount(request.amount, token.decimals)
  if (!parsed.ok) return invalidRequest('mint', [{ field: 'amount', reason: parsed.reason }])
  const { supplyCap, totalSupply } = token.powers
  if (supplyCap !== null) {
    // The chain's own figures (a supply of 0 included), read back exactly: not a request's amount, so no > 0 rule.
    const left = parseUnits(supplyCap, token.decimals) - parseUnits(totalSupply, token.decimals)
    if (parsed.units > left) {
      const roomLeft = formatUnits(left > 0n ? left : 0n, token.decimals)
      return failure(
        'SUPPLY_CAP_EXCEEDED',
        `Minting ${request.amount} would pass the supply cap of ${supplyCap}: ${roomLeft} can still be minted.`,
        {
          details: [
            { field: 'amount', reason: `must be at most ${roomLeft} (the room left under the cap of ${supplyCap}; ${totalSupply} minted)` },
          ],
          roomLeft,
        },
      )
    }
  }
  return {
    ok: true,
    plan: {
      calls: [mintCall(token.address, request.to, parsed.units)],
      effect: `Mints ${request.amount} ${token.symbol} to ${request.to}.`,
    },
  }
}

/** The contractURI after an update of its ERC-7572 fields (the others kept), or undefined when none changes. */
function nextContractUri(request: Extract<TokenActionRequest, { action: 'update_metadata' }>, token: PlannedToken): string | undefined {
  const { description, image, website, socials, name, symbol } = request
  const fieldsChange = description !== undefined || image !== undefined || website !== undefined || socials !== undefined
  // An inline contractURI names the token too: a new name or symbol is written there as well.
  const inline = token.metadata !== null && token.metadata.uri === undefined
  if (!fieldsChange && !(inline && (name !== undefined || symbol !== undefined))) return undefined
  const current = token.metadata?.uri === undefined ? (token.metadata ?? {}) : {}
  return metadataDataUri({
    name: name ?? token.name,
    symbol: symbol ?? token.symbol,
    description: description ?? current.description,
    image: image ?? current.image,
    website: website ?? current.website,
    socials: socials ?? current.socials,
  })
}

/** Who keeps each role once `from` has given up its own: the other holders the powers name. */
export function rolesKept(powers: TokenPowers, from: Address): RoleKept[] {
  const lists: [string, readonly Address[]][] = [
    ['DEFAULT_ADMIN_ROLE', powers.admins],
    ['MINT_ROLE', powers.minters],
    ['PAUSE_ROLE', powers.pausers],
    ['METADATA_ROLE', powers.metadataEditors],
  ]
  return lists.map(([role, accounts]) => ({ role, accounts: accounts.filter((account) => !isAddressEqual(account, from)) }))
}
