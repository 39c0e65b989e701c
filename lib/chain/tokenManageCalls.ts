import { type Address, encodeFunctionData, type Hex, parseAbi } from 'viem'
import { B20_ROLES } from './tokenPowers.js'

// What running a launched token takes on its own surface, as pure encoding: the calls its role holders make to update
// its metadata, mint, hand the admin over or give their roles up, by base-std IB20's signatures. Who sends them (the
// service's signer, or the owner's own wallet) is decided elsewhere.

/** The token functions a role holder calls (base-std IB20). */
export const tokenManageAbi = parseAbi([
  'function updateContractURI(string uri)',
  'function updateName(string newName)',
  'function updateSymbol(string newSymbol)',
  'function mint(address to, uint256 amount)',
  'function grantRole(bytes32 role, address account)',
  'function renounceRole(bytes32 role, address callerConfirmation)',
  'function renounceLastAdmin()',
])

/** One call to the token: where, with what calldata (never any value: every B20 selector is nonpayable). */
export type TokenCall = { to: Address; data: Hex }

/** The role names the powers list, with the roles they stand for. */
export type RoleHolders = { role: Hex; name: string; holders: readonly Address[] }

const call = (token: Address, data: Hex): TokenCall => ({ to: token, data })

/** Parameters of {@link metadataCalls}. */
export type MetadataCallsParameters = {
  token: Address
  /** The new contractURI, when the ERC-7572 fields change. */
  contractUri?: string
  name?: string
  symbol?: string
}

/** The calls that update a token's metadata: its contractURI, its name and its symbol, each only when given. */
export function metadataCalls({ token, contractUri, name, symbol }: MetadataCallsParameters): TokenCall[] {
  return [
    ...(contractUri !== undefined
      ? [call(token, encodeFunctionData({ abi: tokenManageAbi, functionName: 'updateContractURI', args: [contractUri] }))]
      : []),
    ...(name !== undefined ? [call(token, encodeFunctionData({ abi: tokenManageAbi, functionName: 'updateName', args: [name] }))] : []),
    ...(symbol !== undefined
      ? [call(token, encodeFunctionData({ abi: tokenManageAbi, functionName: 'updateSymbol', args: [symbol] }))]
      : []),
  ]
}

/** The call that mints `units` base units of the token to `to`. */
export function mintCall(token: Address, to: Address, units: bigint): TokenCall {
  return call(token, encodeFunctionData({ abi: tokenManageAbi, functionName: 'mint', args: [to, units] }))
}

/** The call by which an admin grants `role` to `account`. */
export function grantRoleCall(token: Address, role: Hex, account: Address): TokenCall {
  return call(token, encodeFunctionData({ abi: tokenManageAbi, functionName: 'grantRole', args: [role, account] }))
}

/** The roles handed over with the admin: the minter's and the metadata editor's, where the old admin held them. */
export const HANDED_OVER_ROLES: readonly Hex[] = [B20_ROLES.MINT_ROLE, B20_ROLES.METADATA_ROLE]

/**
 * The calls by which `from` gives up every role in `held`: each other role first, the admin's last, by
 * `renounceRole(role, from)`; the sole admin's by `renounceLastAdmin()` (IB20: the last admin cannot renounceRole).
 */
export function renounceCalls(token: Address, from: Address, held: readonly Hex[], soleAdmin: boolean): TokenCall[] {
  const admin = B20_ROLES.DEFAULT_ADMIN_ROLE
  const others = held.filter((role) => role !== admin)
  const calls = others.map((role) =>
    call(token, encodeFunctionData({ abi: tokenManageAbi, functionName: 'renounceRole', args: [role, from] })),
  )
  if (held.includes(admin))
    calls.push(
      call(
        token,
        soleAdmin
          ? encodeFunctionData({ abi: tokenManageAbi, functionName: 'renounceLastAdmin' })
          : encodeFunctionData({ abi: tokenManageAbi, functionName: 'renounceRole', args: [admin, from] }),
      ),
    )
  return calls
}

/**
 * The calls that hand a token over from `from` to `to`: `to` is granted the admin role and, of the minter's and the
 * metadata editor's roles, those `from` holds; then `from` gives up every role it holds (the admin's last, so the grant
 * comes first). Sent as one batch: all of it happens, or none.
 */
export function handOverCalls(token: Address, from: Address, to: Address, held: readonly Hex[]): TokenCall[] {
  const granted = [B20_ROLES.DEFAULT_ADMIN_ROLE, ...HANDED_OVER_ROLES.filter((role) => held.includes(role))]
  const grants = granted.map((role) => grantRoleCall(token, role, to))
  // `from` is no longer the sole admin once `to` is one: renounceRole does it.
  return [...grants, ...renounceCalls(token, from, held, false)]
}

/** The role ids of the names a token's powers list (`signerRoles`: `MINT_ROLE`, …); made-up roles by their id. */
export function roleIdsOf(names: readonly string[]): Hex[] {
  return names.map((name) => (name in B20_ROLES ? B20_ROLES[name as keyof typeof B20_ROLES] : (name as Hex)))
}
