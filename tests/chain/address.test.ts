import { randomBytes } from 'node:crypto'
import { getAddress, isAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { checksumAddress, isValidAddress } from '../../lib/chain/address.js'

const random = () => `0x${randomBytes(20).toString('hex')}`

describe('checksumAddress / isValidAddress (the light address rules of the deploy handler)', () => {
  it('checksums exactly as viem does, for 500 random addresses', () => {
    for (let i = 0; i < 500; i++) {
      const address = random()
      expect(checksumAddress(address)).toBe(getAddress(address))
      expect(checksumAddress(address.toUpperCase().replace('0X', '0x'))).toBe(getAddress(address))
    }
  })

  it('accepts what viem accepts under its strict rule, and refuses a broken checksum', () => {
    for (let i = 0; i < 200; i++) {
      const lower = random()
      const checksummed = getAddress(lower)
      const flipped = checksummed.replace(/[a-f]/, (c) => c.toUpperCase())
      for (const candidate of [lower, checksummed, flipped, lower.toUpperCase().replace('0X', '0x')]) {
        expect(isValidAddress(candidate)).toBe(isAddress(candidate, { strict: true }))
      }
    }
  })

  it('refuses anything that is not 20 bytes of 0x hex', () => {
    for (const bad of ['', '0x', '0x123', `0x${'g'.repeat(40)}`, `${'a'.repeat(42)}`, `0x${'a'.repeat(41)}`]) {
      expect(isValidAddress(bad)).toBe(false)
      expect(() => checksumAddress(bad)).toThrow(TypeError)
    }
  })
})
