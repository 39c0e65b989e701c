import { keccak_256 } from '@noble/hashes/sha3'

/** An EVM address as `0x` + 40 hex digits, any case. */
export type AddressText = `0x${string}`

const ADDRESS_SHAPE = /^0x[0-9a-fA-F]{40}$/

/**
 * The EIP-55 checksummed form of a 20-byte address. Light on purpose (keccak only, no viem): the deploy handler's
 * validation runs before any chain or signing code is loaded.
 */
export function checksumAddress(address: string): AddressText {
  if (!ADDRESS_SHAPE.test(address)) throw new TypeError('not a 20-byte 0x address')
  const lower = address.slice(2).toLowerCase()
  const hash = keccak_256(new TextEncoder().encode(lower))
  let out = '0x'
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!
  }
  return out as AddressText
}

/** True for a 20-byte 0x address that is all lower-case or carries a valid EIP-55 checksum (viem's strict rule). */
export function isValidAddress(address: string): boolean {
  if (!ADDRESS_SHAPE.test(address)) return false
  return address === address.toLowerCase() || checksumAddress(address) === address
}
