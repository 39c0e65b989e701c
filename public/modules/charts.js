// Hand-drawn SVG lines: the 24 h price lines beside tokens, the volume chart, and the detail panel's charts.
import { direction, percent, usd } from './format.js'
import { byId, state } from './state.js'

/** @typedef {import('./state.js').Token} Token */
/** @typedef {(number | null)[]} Series */

const SVG = 'http://www.w3.org/2000/svg'

/**
 * An SVG element with the given attributes.
 * @param {string} name
 * @param {Record<string, string | number>} attributes
 * @returns {SVGElement}
 */
export function svgElement(name, attributes) {
  const element = /** @type {SVGElement} */ (document.createElementNS(SVG, name))
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value))
  return element
}

/**
 * @param {unknown} v
 * @returns {v is number}
 */
const isNumber = (v) => typeof v === 'number' && Number.isFinite(v)

/**
 * An SVG path through the values (nulls break the line) across width × height; `invert` puts small values on top
 * (ranks). Returns '' when fewer than two points are known.
 * @param {readonly (number | null | undefined)[]} values
 * @param {number} width
 * @param {number} height
 * @param {{ invert?: boolean, pad?: number }} [options]
 * @returns {string}
 */
export function linePath(values, width, height, { invert = false, pad = 2 } = {}) {
  const known = values.filter(isNumber)
  if (known.length < 2) return ''
  const min = Math.min(...known)
  const max = Math.max(...known)
  const span = max - min || 1
  const step = values.length > 1 ? width / (values.length - 1) : 0
  let d = ''
  let pen = 'M'
  values.forEach((v, i) => {
    if (!isNumber(v)) {
      pen = 'M'
      return
    }
    const share = max === min ? 0.5 : (v - min) / span
    const y = pad + (invert ? share : 1 - share) * (height - 2 * pad)
    d += `${pen}${(i * step).toFixed(1)} ${y.toFixed(1)}`
    pen = 'L'
  })
  return d
}

/**
 * First and last known value of a series, or null when none is known.
 * @param {readonly (number | null | undefined)[]} values
 * @returns {{ first: number, last: number } | null}
 */
export function ends(values) {
  const known = values.filter(isNumber)
  return known.length === 0 ? null : { first: /** @type {number} */ (known[0]), last: /** @type {number} */ (known[known.length - 1]) }
}

/**
 * A 24 h price line for a token, or a note when the service holds too little of its history.
 * @param {Token} token
 * @param {number} [width]
 * @returns {Element}
 */
export function sparkline(token, width = 96) {
  const prices = state.history?.sparklines?.prices?.[token.address]
  const path = prices ? linePath(prices, width, 28) : ''
  const span = prices ? ends(prices) : null
  if (!path || !span) {
    const none = document.createElement('span')
    none.className = 'no-history'
    none.textContent = state.history ? 'no history' : ''
    return none
  }
  const change = span.first === 0 ? 0 : ((span.last - span.first) / span.first) * 100
  const svg = svgElement('svg', {
    class: `spark ${direction(change)}`,
    viewBox: `0 0 ${width} 28`,
    preserveAspectRatio: 'none',
    role: 'img',
    'aria-label': `${token.symbol}, price over 24 h: ${percent(change)}`,
  })
  svg.append(svgElement('path', { class: 'line', d: path }))
  return svg
}

/**
 * Draws a series into an SVG chart (a line, optionally with the area under it); false when there is too little to draw.
 * @param {Element} svg
 * @param {readonly (number | null | undefined)[]} values
 * @param {{ width: number, height: number, kind: string, area?: boolean, invert?: boolean }} options
 * @returns {boolean}
 */
export function drawSeries(svg, values, { width, height, kind, area = false, invert = false }) {
  const path = linePath(values, width, height, { invert, pad: 4 })
  svg.replaceChildren()
  if (!path) return false
  if (area) svg.append(svgElement('path', { class: 'area', d: `${path}L${width} ${height}L0 ${height}Z` }))
  svg.append(svgElement('path', { class: `line ${kind}`, d: path }))
  return true
}

/** Draws the total 24h volume of the top 100 over the last 24 hours, with a caption that says it in words. */
export function renderVolumeChart() {
  const points = state.history?.volume?.points ?? []
  const svg = byId('volume-chart')
  const caption = byId('volume-caption')
  const values = points.map((p) => p.totalVolume24h)
  const first = points[0]
  const last = points[points.length - 1]
  if (!first || !last || !drawSeries(svg, values, { width: 600, height: 140, kind: 'volume', area: true })) {
    svg.setAttribute('aria-label', 'Total 24h volume of the top 100 over the last 24 hours: no history yet')
    caption.textContent = 'History builds up as the service runs (a point every 5 minutes).'
    return
  }
  const change = first.totalVolume24h === 0 ? 0 : ((last.totalVolume24h - first.totalVolume24h) / first.totalVolume24h) * 100
  const since = new Date(first.t).toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit' })
  const text = `Now ${usd(last.totalVolume24h)}, ${percent(change)} since ${since} (${points.length} points, every 5 minutes).`
  caption.textContent = text
  svg.setAttribute('aria-label', `Total 24h volume of the top 100: ${text}`)
}

/** Puts the price lines into the rows and trending entries on screen, without rebuilding them. */
export function renderSparklines() {
  const byAddress = new Map((state.data?.liveActivity ?? []).map((t) => [t.address, t]))
  for (const holder of document.querySelectorAll('#tokens td.spark-col, #trending .spark-slot')) {
    const address = /** @type {HTMLElement | null} */ (holder.closest('[data-address]'))?.dataset.address
    const token = address ? byAddress.get(address) : undefined
    if (token) holder.replaceChildren(sparkline(token, holder.tagName === 'TD' ? 96 : 72))
  }
}
