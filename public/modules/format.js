// Number and text formatting for the dashboard: pure functions, no DOM.

const INTEGER = new Intl.NumberFormat('en-US')
const PRICE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 })

/** @type {readonly [number, string][]} */
const USD_SIZES = [
  [1e12, 'T'],
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'K'],
]

/**
 * Formats USD compactly: $1.23B, $4.5M, $12.3K, $950.
 * @param {unknown} n
 * @returns {string}
 */
export function usd(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '–'
  const abs = Math.abs(n)
  for (const [size, suffix] of USD_SIZES) {
    if (abs >= size) return `$${(n / size).toFixed(abs / size >= 100 ? 0 : abs / size >= 10 ? 1 : 2)}${suffix}`
  }
  return `$${n.toFixed(abs >= 100 ? 0 : 2)}`
}

/**
 * Formats a USD price (a decimal string or a number), keeping small prices readable.
 * @param {unknown} value
 * @returns {string}
 */
export function price(value) {
  if (value === null || value === undefined) return '–'
  const n = Number(value)
  if (!Number.isFinite(n)) return '–'
  if (n >= 1) return `$${PRICE.format(n)}`
  if (n === 0) return '$0'
  return `$${n.toPrecision(4)}`
}

/**
 * A signed percent, or a dash when unknown.
 * @param {unknown} value
 * @returns {string}
 */
export const percent = (value) =>
  typeof value === 'number' && Number.isFinite(value) ? `${value > 0 ? '+' : ''}${value.toFixed(1)}%` : '–'

/**
 * Which way a change went, as a class name.
 * @param {unknown} value
 * @returns {'flat' | 'up' | 'down'}
 */
export const direction = (value) => (typeof value !== 'number' || value === 0 ? 'flat' : value > 0 ? 'up' : 'down')

/**
 * A whole number with thousands separators, or a dash.
 * @param {unknown} n
 * @returns {string}
 */
export const count = (n) => (typeof n === 'number' ? INTEGER.format(n) : '–')
