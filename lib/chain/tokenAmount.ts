import { accepted, type Result, refused } from '../platform/result.js'

// Amounts of whole tokens as agents write them, read into base units. Light on purpose (no viem): the deploy handler's
// validation runs before any chain or signing code is loaded.

/** The largest amount a B20 token holds, in base units: `type(uint128).max` (also the default cap, "no cap"). */
export const MAX_TOKEN_UNITS = 2n ** 128n - 1n

/** Result of {@link parseTokenAmount}: the amount in base units, or why the text is not one. */
export type ParseTokenAmountReturnType = Result<{ units: bigint }, 'INVALID_AMOUNT', { reason: string }>

/**
 * Reads a decimal amount of whole tokens (`"1000000"`, `"12.5"`) as base units of a token with `decimals`: more than
 * 0, at most `decimals` fraction digits, at most 2^128-1 base units. No exponent, sign or separator is accepted.
 */
export function parseTokenAmount(text: string, decimals: number): ParseTokenAmountReturnType {
  const match = /^(\d{1,78})(?:\.(\d{1,78}))?$/.exec(text)
  if (!match) return refused('INVALID_AMOUNT', { reason: 'must be a decimal number of whole tokens, like "1000000" or "12.5"' })
  const [, whole, fraction = ''] = match
  if (fraction.length > decimals) return refused('INVALID_AMOUNT', { reason: `must have at most ${decimals} digits after the point` })
  const units = BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0')
  if (units === 0n) return refused('INVALID_AMOUNT', { reason: 'must be more than 0' })
  if (units > MAX_TOKEN_UNITS) return refused('INVALID_AMOUNT', { reason: 'must be at most 2^128-1 base units' })
  return accepted({ units })
}
