import { type Address, formatUnits, getAddress, type Hex, keccak256, type PublicClient, parseAbi, toHex } from 'viem'
import { SOCIALS_MAX } from './metadataLimits.js'
import type { RoleCandidates } from './roleLogs.js'
import { MAX_TOKEN_UNITS } from './tokenAmount.js'

// A B20 token's powers as the chain has them at one block: who holds each role (the names the role logs gave,
// confirmed with hasRole), the cap and supply, which features are paused, the roles the service's signer still holds,
// and its ERC-7572 metadata. Everything is read in one eth_call through Multicall3, at the block given, so the answer
// is one state of the chain, never a mix of two.

/** Multicall3, at the same address on every chain (Base included). */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'

/** What is read of a B20 token (base-std IB20's signatures). */
export const b20PowersAbi = parseAbi([
  'function totalSupply() view returns (uint256)',
  'function supplyCap() view returns (uint256)',
  'function isPaused(uint8 feature) view returns (bool)',
  'function contractURI() view returns (string)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function hasRole(bytes32 role, address account) view returns (bool)',
])

/** B20's built-in roles at Beryl (OPERATOR_ROLE is the asset variant's), each `keccak256(name)` but the admin's. */
export const B20_ROLES = {
  DEFAULT_ADMIN_ROLE: `0x${'0'.repeat(64)}` as Hex,
  MINT_ROLE: keccak256(toHex('MINT_ROLE')),
  BURN_ROLE: keccak256(toHex('BURN_ROLE')),
  BURN_BLOCKED_ROLE: keccak256(toHex('BURN_BLOCKED_ROLE')),
  PAUSE_ROLE: keccak256(toHex('PAUSE_ROLE')),
  UNPAUSE_ROLE: keccak256(toHex('UNPAUSE_ROLE')),
  METADATA_ROLE: keccak256(toHex('METADATA_ROLE')),
  OPERATOR_ROLE: keccak256(toHex('OPERATOR_ROLE')),
} as const

/** The name of a built-in role, or its id for a role the token's admin made up. */
export const roleName = (role: Hex): string =>
  Object.entries(B20_ROLES).find(([, id]) => id === role.toLowerCase())?.[0] ?? role.toLowerCase()

/** IB20's PausableFeature values the answer names (SEIZE came later than Beryl's three). */
const FEATURES = { transfer: 0, mint: 1, burn: 2 } as const

/** Most accounts of one role confirmed with hasRole in one read: a bound on the eth_call, whatever an admin granted. */
export const ROLE_ACCOUNTS_MAX = 100

/** A token's powers at one block. Amounts are whole tokens as decimal strings. */
export type TokenPowers = {
  admins: Address[]
  minters: Address[]
  pausers: Address[]
  metadataEditors: Address[]
  /** Whole tokens; null: no cap (`type(uint128).max`). */
  supplyCap: string | null
  totalSupply: string
  paused: { transfer: boolean; mint: boolean; burn: boolean }
  /** The roles the service's signer holds, by name (empty: none). */
  signerRoles: string[]
}

/** The token's ERC-7572 metadata as its contractURI says it (untrusted text); `uri` when it points elsewhere. */
export type TokenMetadataView = {
  name?: string
  symbol?: string
  description?: string
  image?: string
  website?: string
  /** A name (`x`, `telegram`, …) to a URL, as the contractURI's `socials` has it (not an ERC-7572 field: this service's). */
  socials?: Record<string, string>
  /** The contractURI itself when it is a link, not an inline data URI: the metadata is there. */
  uri?: string
}

/** Parameters of {@link readTokenPowers}. */
export type ReadTokenPowersParameters = {
  client: PublicClient
  token: Address
  decimals: number
  /** Who may hold each role, from the role logs ({@link RoleCandidates}); each is confirmed here. */
  candidates: RoleCandidates
  /** The service's signer, whose roles are asked of every built-in role directly (no log needed). */
  signer: Address
  blockNumber: bigint
}

/** What {@link readTokenPowers} answers. */
export type ReadTokenPowersReturnType = {
  powers: TokenPowers
  metadata: TokenMetadataView | null
  /** The token's name and symbol now (its metadata editors may change them). */
  name: string
  symbol: string
}

/** Reads the token's powers and metadata at `blockNumber` in one eth_call (Multicall3). */
export async function readTokenPowers({
  client,
  token,
  decimals,
  candidates,
  signer,
  blockNumber,
}: ReadTokenPowersParameters): Promise<ReadTokenPowersReturnType> {
  const read = <const F extends 'totalSupply' | 'supplyCap' | 'isPaused' | 'contractURI' | 'name' | 'symbol' | 'hasRole'>(
    functionName: F,
    args: readonly unknown[] = [],
  ) => ({ address: token, abi: b20PowersAbi, functionName, args }) as const
  const asked = Object.entries(candidates).flatMap(([role, accounts]) =>
    accounts.slice(0, ROLE_ACCOUNTS_MAX).map((account) => ({ role: role as Hex, account })),
  )
  const signerAsked = Object.values(B20_ROLES).map((role) => ({ role, account: signer }))
  const pairs = [...asked, ...signerAsked]
  const results = await client.multicall({
    multicallAddress: MULTICALL3_ADDRESS,
    // viem cuts a multicall into chunks of 1 KiB of calldata by default, each an eth_call of its own: 0 keeps it one.
    batchSize: 0,
    blockNumber,
    allowFailure: false,
    contracts: [
      read('totalSupply'),
      read('supplyCap'),
      read('isPaused', [FEATURES.transfer]),
      read('isPaused', [FEATURES.mint]),
      read('isPaused', [FEATURES.burn]),
      read('contractURI'),
      read('name'),
      read('symbol'),
      ...pairs.map(({ role, account }) => read('hasRole', [role, account])),
    ] as never,
  })
  const [totalSupply, supplyCap, transfer, mint, burn, uri, name, symbol, ...held] = results as unknown as [
    bigint,
    bigint,
    boolean,
    boolean,
    boolean,
    string,
    string,
    string,
    ...boolean[],
  ]
  const holders = (role: Hex) =>
    [...new Set(pairs.filter((pair, i) => held[i] && pair.role === role).map((pair) => getAddress(pair.account)))].sort()
  const signerRoles = inRoleOrder(
    pairs.filter((pair, i) => held[i] && pair.account.toLowerCase() === signer.toLowerCase()).map((pair) => roleName(pair.role)),
  )
  return {
    powers: {
      admins: holders(B20_ROLES.DEFAULT_ADMIN_ROLE),
      minters: holders(B20_ROLES.MINT_ROLE),
      pausers: holders(B20_ROLES.PAUSE_ROLE),
      metadataEditors: holders(B20_ROLES.METADATA_ROLE),
      supplyCap: supplyCap >= MAX_TOKEN_UNITS ? null : formatUnits(supplyCap, decimals),
      totalSupply: formatUnits(totalSupply, decimals),
      paused: { transfer, mint, burn },
      signerRoles,
    },
    metadata: contractUriMetadata(uri),
    name,
    symbol,
  }
}

/** Parameters of {@link readRolesOf}. */
export type ReadRolesOfParameters = { client: PublicClient; token: Address; account: Address; blockNumber: bigint }

/** The built-in roles `account` holds on the token at `blockNumber` (one eth_call through Multicall3). */
export async function readRolesOf({ client, token, account, blockNumber }: ReadRolesOfParameters): Promise<Hex[]> {
  const roles = Object.values(B20_ROLES)
  const held = await client.multicall({
    multicallAddress: MULTICALL3_ADDRESS,
    blockNumber,
    allowFailure: false,
    contracts: roles.map((role) => ({ address: token, abi: b20PowersAbi, functionName: 'hasRole', args: [role, account] }) as const),
  })
  return roles.filter((_, i) => held[i])
}

/** Role names once each, B20's built-in ones in {@link B20_ROLES}' order, then any other role's id: the feed's order too. */
function inRoleOrder(names: readonly string[]): string[] {
  const order = Object.keys(B20_ROLES)
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length)
  return [...new Set(names)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
}

/** Parameters of {@link readSignerRoles}. */
export type ReadSignerRolesParameters = {
  client: PublicClient
  /** Each token, and the account asked of: the service's signer that sent its createB20. */
  tokens: readonly { token: Address; signer: Address }[]
  /** The block to read at (default: the latest). */
  blockNumber?: bigint
}

/** Per token, in order: the names of B20's built-in roles its signer holds (empty: none); null where a read failed. */
export type ReadSignerRolesReturnType = (string[] | null)[]

/**
 * Reads which of B20's built-in roles each token's signer holds: `hasRole` for every role of every token, all in one
 * eth_call through Multicall3, whatever the number of tokens. A token whose calls fail (no code there yet) is null;
 * an RPC that fails throws.
 */
export async function readSignerRoles({ client, tokens, blockNumber }: ReadSignerRolesParameters): Promise<ReadSignerRolesReturnType> {
  if (tokens.length === 0) return []
  const roles = Object.entries(B20_ROLES)
  const results = await client.multicall({
    multicallAddress: MULTICALL3_ADDRESS,
    batchSize: 0, // one eth_call, not viem's 1 KiB chunks
    allowFailure: true,
    ...(blockNumber === undefined ? {} : { blockNumber }),
    contracts: tokens.flatMap(({ token, signer }) =>
      roles.map(([, role]) => ({ address: token, abi: b20PowersAbi, functionName: 'hasRole' as const, args: [role, signer] as const })),
    ),
  })
  // viem answers a failed eth_call as every call failed with that one error: the read failed, not the tokens.
  const [first] = results
  if (first?.status === 'failure' && results.every((result) => result.error === first.error)) throw first.error
  return tokens.map((_, i) => {
    const held = results.slice(i * roles.length, (i + 1) * roles.length)
    if (held.some((result) => result.status !== 'success')) return null
    return roles.filter((_, j) => held[j]!.result === true).map(([name]) => name)
  })
}

/**
 * The ERC-7572 fields of a contractURI (pure): an inline JSON data URI (base64 or percent-encoded) decoded, a link
 * answered as `uri`, nothing (null) for an empty one or one that is neither. Strings only; the text is the token's
 * editors', untrusted.
 */
export function contractUriMetadata(uri: string): TokenMetadataView | null {
  if (uri === '') return null
  const data = /^data:application\/json(;charset=utf-8)?(;base64)?,(.*)$/is.exec(uri)
  if (!data) return /^(https|ipfs|ar):\/\//i.test(uri) ? { uri } : null
  let json: unknown
  try {
    json = JSON.parse(data[2] ? Buffer.from(data[3]!, 'base64').toString('utf8') : decodeURIComponent(data[3]!))
  } catch {
    return null
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return null
  const fields = json as Record<string, unknown>
  const view: TokenMetadataView = {}
  const socials = fields.socials
  if (socials !== null && typeof socials === 'object' && !Array.isArray(socials)) {
    const links = Object.entries(socials).filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    if (links.length > 0) view.socials = Object.fromEntries(links.slice(0, SOCIALS_MAX))
  }
  for (const [from, to] of [
    ['name', 'name'],
    ['symbol', 'symbol'],
    ['description', 'description'],
    ['image', 'image'],
    ['external_link', 'website'],
  ] as const) {
    const value = fields[from]
    if (typeof value === 'string') view[to] = value
  }
  return Object.keys(view).length > 0 ? view : null
}
