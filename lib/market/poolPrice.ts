// Exact decimal maths for a launch's pool (pure): the token's price in ETH from the pool's sqrtPriceX96 in integer
// maths, and the decimal strings prices and amounts are kept as (18 significant digits for a price, wei for ETH): no
// floating point in what is kept; numbers are made only in the answers.

/** Significant digits a stored price keeps. */
export const PRICE_SIGNIFICANT_DIGITS = 18
/** Native ETH's decimals (the pool's currency0). */
const ETH_DECIMALS = 18
const Q192 = 1n << 192n

/** A decimal string rounded to `significant` digits (half up) of the exact quotient `num / den` (both > 0). */
export function divideToSignificant(num: bigint, den: bigint, significant = PRICE_SIGNIFICANT_DIGITS): string {
  if (num <= 0n || den <= 0n) throw new RangeError('divideToSignificant needs a positive quotient')
  const low = 10n ** BigInt(significant - 1)
  const high = low * 10n
  // k: the power of ten the quotient is scaled by so that it has exactly `significant` integer digits.
  let k = significant - (num.toString().length - den.toString().length)
  const scaled = (k: number): [bigint, bigint] => (k >= 0 ? [num * 10n ** BigInt(k), den] : [num, den * 10n ** BigInt(-k)])
  let [n, d] = scaled(k)
  let q = n / d
  while (q >= high || q < low) {
    k += q >= high ? -1 : 1
    ;[n, d] = scaled(k)
    q = n / d
  }
  if (2n * (n % d) >= d) q += 1n
  if (q === high) {
    q = low
    k -= 1
  }
  return placeDecimal(q, k)
}

/** `q × 10^-k` written out (no exponent), trailing zeros of the fraction dropped. */
function placeDecimal(q: bigint, k: number): string {
  if (k <= 0) return (q * 10n ** BigInt(-k)).toString()
  const digits = q.toString().padStart(k + 1, '0')
  const whole = digits.slice(0, digits.length - k)
  const fraction = digits.slice(digits.length - k).replace(/0+$/, '')
  return fraction ? `${whole}.${fraction}` : whole
}

/** A non-negative decimal string as an exact fraction `[num, den]` (den a power of ten). */
export function decimalFraction(value: string): [bigint, bigint] {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value)
  if (!match) throw new RangeError(`not a decimal: ${value}`)
  const fraction = match[2] ?? ''
  return [BigInt(match[1]! + fraction), 10n ** BigInt(fraction.length)]
}

/** Compares two non-negative decimal strings exactly. */
export function compareDecimals(a: string, b: string): number {
  const [an, ad] = decimalFraction(a)
  const [bn, bd] = decimalFraction(b)
  const left = an * bd
  const right = bn * ad
  return left < right ? -1 : left > right ? 1 : 0
}

/**
 * The token's price in ETH (pure, exact to its 18 significant digits) where the token is currency1 and native ETH
 * currency0: sqrtPriceX96² / 2^192 is token base units per wei, so one whole token is
 * 2^192 · 10^decimals / (sqrtPriceX96² · 10^18) ETH.
 */
export function tokenPriceEth(sqrtPriceX96: bigint, decimals: number, significant = PRICE_SIGNIFICANT_DIGITS): string {
  if (sqrtPriceX96 <= 0n) throw new RangeError('sqrtPriceX96 must be positive')
  return divideToSignificant(Q192 * 10n ** BigInt(decimals), sqrtPriceX96 * sqrtPriceX96 * 10n ** BigInt(ETH_DECIMALS), significant)
}

/**
 * What `units` base units of the token are worth in ETH at `sqrtPriceX96` (pure, exact to 18 significant digits; the
 * token currency1, native ETH currency0): units · 2^192 / (sqrtPriceX96² · 10^18). Over the whole supply, the market cap.
 */
export function tokenValueEth(sqrtPriceX96: bigint, units: bigint, significant = PRICE_SIGNIFICANT_DIGITS): string {
  if (sqrtPriceX96 <= 0n) throw new RangeError('sqrtPriceX96 must be positive')
  if (units === 0n) return '0'
  return divideToSignificant(Q192 * units, sqrtPriceX96 * sqrtPriceX96 * 10n ** BigInt(ETH_DECIMALS), significant)
}

/** `a × b` of two decimal strings, to 18 significant digits; "0" when either is 0. */
export function multiplyDecimals(a: string, b: string): string {
  const [an, ad] = decimalFraction(a)
  const [bn, bd] = decimalFraction(b)
  if (an === 0n || bn === 0n) return '0'
  return divideToSignificant(an * bn, ad * bd)
}

/** Wei as a decimal string of ETH, exactly. */
export function weiToEth(wei: bigint): string {
  return wei === 0n ? '0' : placeDecimal(wei, ETH_DECIMALS)
}

/** Base units as a decimal string of whole units, exactly. */
export function unitsToDecimal(units: bigint, decimals: number): string {
  return units === 0n ? '0' : decimals === 0 ? units.toString() : placeDecimal(units, decimals)
}
