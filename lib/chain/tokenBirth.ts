import {
  type Address,
  decodeAbiParameters,
  decodeFunctionData,
  encodeFunctionData,
  getAddress,
  type Hex,
  isAddressEqual,
  parseAbi,
  parseAbiParameters,
  zeroAddress,
} from 'viem'
import { B20_FACTORY_ADDRESS, b20FactoryAbi, MINT_ROLE } from './b20.js'
import { batchCallTo } from './batchAccount.js'

// What a token gets at birth, as pure encoding and decoding: the ERC-7572 metadata as an on-chain data URI, the
// initCalls of createB20 in the order that works (roles, then the cap, then the mint, then the metadata), and the same
// read back from a createB20's calldata, so every answer about a deploy (the deploy itself, its receipt, the list, the
// webhooks) shows what the transaction really asks for. Amounts are read in `tokenAmount.ts`.

/** What a token's initCalls call on its own surface, by IB20's signatures. */
const tokenBirthAbi = parseAbi([
  'function grantRole(bytes32 role, address account)',
  'function updateSupplyCap(uint256 newSupplyCap)',
  'function mint(address to, uint256 amount)',
  'function updateContractURI(string uri)',
])

/** Parameters of {@link metadataDataUri}: name and symbol always, the rest only when given. */
export type MetadataDataUriParameters = {
  name: string
  symbol: string
  description?: string
  image?: string
  website?: string
  /** Where the token is on social networks: a name (`x`, `telegram`, …) to an https URL. */
  socials?: Record<string, string>
}

/**
 * The token's ERC-7572 `contractURI` as an on-chain JSON data URI (no pinning service): `name`, `symbol`, and of
 * `description`, `image` and `external_link` (the website) only those given.
 */
export function metadataDataUri({ name, symbol, description, image, website, socials }: MetadataDataUriParameters): string {
  const json = {
    name,
    symbol,
    ...(description !== undefined ? { description } : {}),
    ...(image !== undefined ? { image } : {}),
    ...(website !== undefined ? { external_link: website } : {}),
    ...(socials !== undefined && Object.keys(socials).length > 0 ? { socials } : {}),
  }
  return `data:application/json;base64,${Buffer.from(JSON.stringify(json), 'utf8').toString('base64')}`
}

/** Parameters of {@link encodeBirthInitCalls}. */
export type EncodeBirthInitCallsParameters = {
  /** Who gets the mint role (the token's admin); null for a fixed supply, where nobody may ever mint. */
  minter: Address | null
  /** The cap from birth, in base units, when one is set. */
  supplyCap?: bigint
  /** What is minted at birth, and to whom. */
  mint?: { to: Address; units: bigint }
  /**
   * A launch's pool share, minted before `mint` to the signer that seeds the pool in its next transactions (read back
   * as {@link TokenBirth.poolMint}: of two mints, the first is the pool's).
   */
  poolMint?: { to: Address; units: bigint }
  /** The `contractURI` to set, when there is metadata. */
  contractUri?: string
}

/**
 * The initCalls of a token's creation in the order that works: grant the mint role, set the cap, mint, set the
 * metadata. They run inside the factory's bootstrap window, so the mint needs no role of its own; the cap comes before
 * the mint because a mint past the cap reverts the whole creation.
 */
export function encodeBirthInitCalls({ minter, supplyCap, mint, poolMint, contractUri }: EncodeBirthInitCallsParameters): Hex[] {
  const calls: Hex[] = []
  if (minter) calls.push(encodeFunctionData({ abi: tokenBirthAbi, functionName: 'grantRole', args: [MINT_ROLE, minter] }))
  if (supplyCap !== undefined) calls.push(encodeFunctionData({ abi: tokenBirthAbi, functionName: 'updateSupplyCap', args: [supplyCap] }))
  if (poolMint) calls.push(encodeFunctionData({ abi: tokenBirthAbi, functionName: 'mint', args: [poolMint.to, poolMint.units] }))
  if (mint) calls.push(encodeFunctionData({ abi: tokenBirthAbi, functionName: 'mint', args: [mint.to, mint.units] }))
  if (contractUri !== undefined)
    calls.push(encodeFunctionData({ abi: tokenBirthAbi, functionName: 'updateContractURI', args: [contractUri] }))
  return calls
}

/** The metadata fields an agent gives, as the service names them (`website` is ERC-7572's `external_link`). */
export type TokenMetadata = { description?: string; image?: string; website?: string }

/** Reads back the metadata fields of a {@link metadataDataUri}; null when the text is not one (or has none of them). */
export function readMetadataDataUri(uri: string): TokenMetadata | null {
  const prefix = 'data:application/json;base64,'
  if (!uri.startsWith(prefix)) return null
  try {
    const json = JSON.parse(Buffer.from(uri.slice(prefix.length), 'base64').toString('utf8')) as Record<string, unknown>
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined)
    const metadata: TokenMetadata = {
      ...(text(json.description) !== undefined ? { description: text(json.description) } : {}),
      ...(text(json.image) !== undefined ? { image: text(json.image) } : {}),
      ...(text(json.external_link) !== undefined ? { website: text(json.external_link) } : {}),
    }
    return Object.keys(metadata).length > 0 ? metadata : null
  } catch {
    return null
  }
}

/** What a createB20 gives its token, read from the calldata: the admin in `params` and each known initCall. */
export type TokenBirth = {
  /** `initialAdmin` of `params`; null when it is the zero address (no admin, ever). */
  admin: Address | null
  /** Who was granted the mint role; null when nobody was. */
  minter: Address | null
  /** The cap set at birth, in base units; null when none was (the default: no cap). */
  supplyCap: bigint | null
  /** What was minted at birth to its recipient (the last mint), and to whom; null when nothing was. */
  mint: { to: Address; units: bigint } | null
  /** A launch's pool share (the first of two mints), minted to the signer that seeds the pool; null when none. */
  poolMint: { to: Address; units: bigint } | null
  /** The `contractURI` set at birth; null when none was. */
  contractUri: string | null
}

const ADMIN_OF_PARAMS = parseAbiParameters('(uint8 version, string name, string symbol, address initialAdmin)')

/**
 * Reads a createB20 calldata back into what the token gets at birth (pure); null when it is not a createB20. A pooled
 * launch's `executeBatch` is read through its call to the factory: there the pool's share is always minted first (to
 * the signer, who seeds the pool in the same batch), so a lone mint is the pool's (the whole supply in the pool).
 */
export function readTokenBirth(data: Hex): TokenBirth | null {
  const batched = batchCallTo(data, B20_FACTORY_ADDRESS)
  if (batched) {
    const birth = readTokenBirth(batched.data)
    if (birth?.mint && !birth.poolMint) return { ...birth, poolMint: birth.mint, mint: null }
    return birth
  }
  let args: readonly unknown[]
  try {
    const decoded = decodeFunctionData({ abi: b20FactoryAbi, data })
    if (decoded.functionName !== 'createB20') return null
    args = decoded.args
  } catch {
    return null
  }
  const [, , params, initCalls] = args as [number, Hex, Hex, readonly Hex[]]
  const birth: TokenBirth = { admin: null, minter: null, supplyCap: null, mint: null, poolMint: null, contractUri: null }
  try {
    // Both variants' tuples begin with (version, name, symbol, initialAdmin): the head is read the same way.
    const [head] = decodeAbiParameters(ADMIN_OF_PARAMS, params)
    birth.admin = isAddressEqual(head.initialAdmin, zeroAddress) ? null : getAddress(head.initialAdmin)
  } catch {
    // malformed params: the admin stays unknown
  }
  for (const call of initCalls) {
    try {
      const decoded = decodeFunctionData({ abi: tokenBirthAbi, data: call })
      if (decoded.functionName === 'grantRole' && decoded.args[0] === MINT_ROLE) birth.minter = getAddress(decoded.args[1])
      if (decoded.functionName === 'updateSupplyCap') birth.supplyCap = decoded.args[0]
      if (decoded.functionName === 'mint') {
        birth.poolMint = birth.mint
        birth.mint = { to: getAddress(decoded.args[0]), units: decoded.args[1] }
      }
      if (decoded.functionName === 'updateContractURI') birth.contractUri = decoded.args[0]
    } catch {
      // an initCall this service never sends
    }
  }
  return birth
}
