import { type Address, encodeFunctionData, type Hex, parseAbi } from 'viem'
import { MINT_ROLE } from './b20.js'

// What a token needs at birth, as pure encoding: amounts in base units, the ERC-7572 metadata as an on-chain data URI,
// and the initCalls of createB20 in the order that works (roles, then the cap, then the mint, then the metadata).
// Groundwork for the agent_deploy fields initialSupply, recipient, supplyCap, fixedSupply, description, image and
// website: the deploy does not send these yet.

/** The largest amount a B20 token holds, in base units: `type(uint128).max` (also the default cap, "no cap"). */
export const MAX_TOKEN_UNITS = 2n ** 128n - 1n

/** What a token's initCalls call on its own surface, by IB20's signatures. */
const tokenBirthAbi = parseAbi([
  'function grantRole(bytes32 role, address account)',
  'function updateSupplyCap(uint256 newSupplyCap)',
  'function mint(address to, uint256 amount)',
  'function updateContractURI(string uri)',
])

/** Result of {@link parseTokenAmount}: the amount in base units, or why the text is not one. */
export type ParseTokenAmountReturnType = { ok: true; units: bigint } | { ok: false; reason: string }

/**
 * Reads a decimal amount of whole tokens (`"1000000"`, `"12.5"`) as base units of a token with `decimals`: more than
 * 0, at most `decimals` fraction digits, at most 2^128-1 base units. No exponent, sign or separator is accepted.
 */
export function parseTokenAmount(text: string, decimals: number): ParseTokenAmountReturnType {
  const match = /^(\d{1,78})(?:\.(\d{1,78}))?$/.exec(text)
  if (!match) return { ok: false, reason: 'must be a decimal number of whole tokens, like "1000000" or "12.5"' }
  const [, whole, fraction = ''] = match
  if (fraction.length > decimals) return { ok: false, reason: `must have at most ${decimals} digits after the point` }
  const units = BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0')
  if (units === 0n) return { ok: false, reason: 'must be more than 0' }
  if (units > MAX_TOKEN_UNITS) return { ok: false, reason: 'must be at most 2^128-1 base units' }
  return { ok: true, units }
}

/** Parameters of {@link metadataDataUri}: name and symbol always, the rest only when given. */
export type MetadataDataUriParameters = { name: string; symbol: string; description?: string; image?: string; website?: string }

/**
 * The token's ERC-7572 `contractURI` as an on-chain JSON data URI (no pinning service): `name`, `symbol`, and of
 * `description`, `image` and `external_link` (the website) only those given.
 */
export function metadataDataUri({ name, symbol, description, image, website }: MetadataDataUriParameters): string {
  const json = {
    name,
    symbol,
    ...(description !== undefined ? { description } : {}),
    ...(image !== undefined ? { image } : {}),
    ...(website !== undefined ? { external_link: website } : {}),
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
  /** The `contractURI` to set, when there is metadata. */
  contractUri?: string
}

/**
 * The initCalls of a token's creation in the order that works: grant the mint role, set the cap, mint, set the
 * metadata. They run inside the factory's bootstrap window, so the mint needs no role of its own; the cap comes before
 * the mint because a mint past the cap reverts the whole creation.
 */
export function encodeBirthInitCalls({ minter, supplyCap, mint, contractUri }: EncodeBirthInitCallsParameters): Hex[] {
  const calls: Hex[] = []
  if (minter) calls.push(encodeFunctionData({ abi: tokenBirthAbi, functionName: 'grantRole', args: [MINT_ROLE, minter] }))
  if (supplyCap !== undefined) calls.push(encodeFunctionData({ abi: tokenBirthAbi, functionName: 'updateSupplyCap', args: [supplyCap] }))
  if (mint) calls.push(encodeFunctionData({ abi: tokenBirthAbi, functionName: 'mint', args: [mint.to, mint.units] }))
  if (contractUri !== undefined)
    calls.push(encodeFunctionData({ abi: tokenBirthAbi, functionName: 'updateContractURI', args: [contractUri] }))
  return calls
}
