import {
  type Address,
  decodeErrorResult,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  type Hex,
  keccak256,
  parseAbiParameters,
  toHex,
} from 'viem'
import { type B20Variant, VARIANT_ID } from './b20Variants.js'

export { type B20Variant, STABLECOIN_DECIMALS, VARIANT_ID } from './b20Variants.js'

/** The B20 factory precompile (same address on every network where B20 is active). */
export const B20_FACTORY_ADDRESS: Address = '0xB20f000000000000000000000000000000000000'
/** The ActivationRegistry precompile. */
export const ACTIVATION_REGISTRY_ADDRESS: Address = '0x8453000000000000000000000000000000000001'
/** `keccak256("MINT_ROLE")`: the role that may mint. */
export const MINT_ROLE: Hex = keccak256(toHex('MINT_ROLE'))
/** Selector of `createB20(uint8,bytes32,bytes,bytes[])`. */
export const CREATE_B20_SELECTOR: Hex = '0x62975e6a'

/** The factory surface at Beryl: four functions, the creation event and the errors. */
export const b20FactoryAbi = [
  {
    type: 'function',
    name: 'createB20',
    stateMutability: 'payable',
    inputs: [
      { name: 'variant', type: 'uint8' },
      { name: 'salt', type: 'bytes32' },
      { name: 'params', type: 'bytes' },
      { name: 'initCalls', type: 'bytes[]' },
    ],
    outputs: [{ name: 'token', type: 'address' }],
  },
  {
    type: 'function',
    name: 'getB20Address',
    stateMutability: 'view',
    inputs: [
      { name: 'variant', type: 'uint8' },
      { name: 'sender', type: 'address' },
      { name: 'salt', type: 'bytes32' },
    ],
    outputs: [{ type: 'address' }],
  },
  { type: 'function', name: 'isB20', stateMutability: 'view', inputs: [{ name: 'token', type: 'address' }], outputs: [{ type: 'bool' }] },
  {
    type: 'function',
    name: 'isB20Initialized',
    stateMutability: 'view',
    inputs: [{ name: 'token', type: 'address' }],
    outputs: [{ type: 'bool' }],
  },
  {
    type: 'event',
    name: 'B20Created',
    inputs: [
      { name: 'token', type: 'address', indexed: true },
      { name: 'variant', type: 'uint8', indexed: true },
      { name: 'name', type: 'string', indexed: false },
      { name: 'symbol', type: 'string', indexed: false },
      { name: 'decimals', type: 'uint8', indexed: false },
      { name: 'variantEventParams', type: 'bytes', indexed: false },
    ],
  },
  { type: 'error', name: 'NonPayable', inputs: [] },
  { type: 'error', name: 'TokenAlreadyExists', inputs: [{ name: 'token', type: 'address' }] },
  { type: 'error', name: 'InvalidVariant', inputs: [] },
  {
    type: 'error',
    name: 'UnsupportedVersion',
    inputs: [
      { name: 'version', type: 'uint8' },
      { name: 'variant', type: 'uint8' },
    ],
  },
  { type: 'error', name: 'MissingRequiredField', inputs: [{ name: 'field', type: 'string' }] },
  { type: 'error', name: 'InvalidCurrency', inputs: [{ name: 'code', type: 'string' }] },
  { type: 'error', name: 'InvalidDecimals', inputs: [{ name: 'decimals', type: 'uint8' }] },
  { type: 'error', name: 'InitCallFailed', inputs: [{ name: 'index', type: 'uint256' }] },
  { type: 'error', name: 'FeatureNotActivated', inputs: [{ name: 'feature', type: 'bytes32' }] },
] as const

/**
 * Token errors that can bubble up from an initCall, decoded by name as well: Base's exact signatures, arguments in
 * Base's order (the names label the words, so an order of our own would mislabel them).
 */
export const b20TokenErrorsAbi = [
  {
    type: 'error',
    name: 'AccessControlUnauthorizedAccount',
    inputs: [
      { name: 'account', type: 'address' },
      { name: 'neededRole', type: 'bytes32' },
    ],
  },
  { type: 'error', name: 'InvalidReceiver', inputs: [{ name: 'receiver', type: 'address' }] },
  {
    type: 'error',
    name: 'SupplyCapExceeded',
    inputs: [
      { name: 'cap', type: 'uint256' },
      { name: 'attempted', type: 'uint256' },
    ],
  },
  {
    type: 'error',
    name: 'InvalidSupplyCap',
    inputs: [
      { name: 'currentSupply', type: 'uint256' },
      { name: 'proposedCap', type: 'uint256' },
    ],
  },
  { type: 'error', name: 'ContractPaused', inputs: [{ name: 'feature', type: 'uint8' }] },
  { type: 'error', name: 'LastAdminCannotRenounce', inputs: [] },
  { type: 'error', name: 'NotSoleAdmin', inputs: [] },
] as const

const grantRoleAbi = [
  {
    type: 'function',
    name: 'grantRole',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'role', type: 'bytes32' },
      { name: 'account', type: 'address' },
    ],
    outputs: [],
  },
] as const

const ASSET_PARAMS = parseAbiParameters('(uint8 version, string name, string symbol, address initialAdmin, uint8 decimals)')
const STABLECOIN_PARAMS = parseAbiParameters('(uint8 version, string name, string symbol, address initialAdmin, string currency)')

/** What a B20 token is created from; `admin` is `initialAdmin`, the zero address for a token with no admin. */
export type B20TokenSpec =
  | { variant: 'asset'; name: string; symbol: string; admin: Address; decimals: number }
  | { variant: 'stablecoin'; name: string; symbol: string; admin: Address; currency: string }

/** ABI-encodes the version-1 `params` tuple of a variant, as ONE tuple parameter (starts with the offset word). */
export function encodeB20Params(spec: B20TokenSpec): Hex {
  if (spec.variant === 'asset') {
    return encodeAbiParameters(ASSET_PARAMS, [
      { version: 1, name: spec.name, symbol: spec.symbol, initialAdmin: spec.admin, decimals: spec.decimals },
    ])
  }
  return encodeAbiParameters(STABLECOIN_PARAMS, [
    { version: 1, name: spec.name, symbol: spec.symbol, initialAdmin: spec.admin, currency: spec.currency },
  ])
}

/** The initCalls that make the admin the mint-role holder too: `[grantRole(MINT_ROLE, admin)]`. */
export function encodeAdminInitCalls(admin: Address): Hex[] {
  return [encodeFunctionData({ abi: grantRoleAbi, functionName: 'grantRole', args: [MINT_ROLE, admin] })]
}

/**
 * Calldata of `createB20(variant, salt, params, initCalls)` for a token spec; the initCalls default to making the admin
 * the mint-role holder (`encodeAdminInitCalls`).
 */
export function encodeCreateB20(spec: B20TokenSpec, salt: Hex, initCalls: readonly Hex[] = encodeAdminInitCalls(spec.admin)): Hex {
  return encodeFunctionData({
    abi: b20FactoryAbi,
    functionName: 'createB20',
    args: [VARIANT_ID[spec.variant], salt, encodeB20Params(spec), initCalls],
  })
}

/**
 * The deterministic token address: `0xB2 ++ 9 zero bytes ++ variant ++ keccak256(abi.encode(sender, salt))[0..9]`.
 * `sender` is the `msg.sender` of `createB20`; the variant is not hashed.
 */
export function predictB20Address(variant: B20Variant, sender: Address, salt: Hex): Address {
  const hash = keccak256(encodeAbiParameters(parseAbiParameters('address, bytes32'), [sender, salt]))
  return getAddress(`0xb2${'00'.repeat(9)}${VARIANT_ID[variant].toString(16).padStart(2, '0')}${hash.slice(2, 20)}`)
}

/** A decoded revert: the error's name and its arguments as JSON-safe values. */
export type B20Revert = { name: string; args: Record<string, string | number | boolean> }

/** Names a factory (or bubbled-up token) revert from its data; unknown data is reported as such. */
export function decodeB20Revert(data: Hex | undefined): B20Revert {
  if (!data || data === '0x') return { name: 'UnknownRevert', args: {} }
  if (data.toLowerCase().startsWith(CREATE_B20_SELECTOR)) return { name: 'MalformedParams', args: {} }
  for (const abi of [b20FactoryAbi, b20TokenErrorsAbi] as const) {
    try {
      const decoded = decodeErrorResult({ abi, data })
      const item = abi.find((i) => i.type === 'error' && i.name === decoded.errorName) as
        | { inputs: readonly { name: string }[] }
        | undefined
      const args: Record<string, string | number | boolean> = {}
      item?.inputs.forEach((input, i) => {
        const value = (decoded.args as readonly unknown[] | undefined)?.[i]
        args[input.name] =
          typeof value === 'bigint'
            ? value <= BigInt(Number.MAX_SAFE_INTEGER)
              ? Number(value)
              : value.toString()
            : (value as string | number | boolean)
      })
      return { name: decoded.errorName, args }
    } catch {
      // not one of this ABI's errors
    }
  }
  return { name: 'UnknownRevert', args: { data: data.slice(0, 2 + 8) } }
}
