// The token page's 24 h charts (price, volume, liquidity, rank) from /api/token-history, hand-drawn like the page's
// other charts.
import { drawSeries, ends, svgElement } from './charts.js'
import { getJson } from './data.js'
import { price, usd } from './format.js'
import { byId, state } from './state.js'

/** @typedef {import('./state.js').TokenHistory} TokenHistory */

const NO_HISTORY = 'No history yet: the service keeps a point every 5 minutes while a token is in the top 100.'
const FIVE_MINUTES_MS = 300_000

/**
 * One chart of the page, with its first and last value in words.
 * @param {string} title
 * @param {(number | null)[]} values
 * @param {{ kind: string, invert?: boolean, format: (value: number) => string }} options
 * @returns {HTMLElement}
 */
function historyChart(title, values, { kind, invert = false, format }) {
  const figure = document.createElement('figure')
  figure.className = 'chart'
  const svg = svgElement('svg', { viewBox: '0 0 300 90', preserveAspectRatio: 'none', role: 'img' })
  const drawn = drawSeries(svg, values, { width: 300, height: 90, kind, invert })
  const span = ends(values)
  const summary = span ? `${format(span.first)} → ${format(span.last)}` : 'not enough points'
  svg.setAttribute('aria-label', `${title} over the last 24 h: ${summary}`)
  const caption = document.createElement('figcaption')
  const name = document.createElement('span')
  name.textContent = title
  const figures = document.createElement('span')
  figures.className = 'muted'
  figures.textContent = summary
  caption.append(name, figures)
  figure.append(svg, caption)
  figure.dataset.drawn = String(drawn)
  return figure
}

/**
 * Loads the token's 24 h history and draws price, volume, liquidity and rank.
 * @param {string} address
 */
export async function showTokenHistory(address) {
  const holder = byId('detail-charts')
  const request = ++state.tokenPage.historyRequest
  const note = document.createElement('p')
  note.className = 'muted'
  // market-history lists every token of the latest snapshot: no request (and no 404) for the others.
  if (!state.history?.sparklines?.prices?.[address]) {
    note.textContent = NO_HISTORY
    holder.replaceChildren(note)
    return
  }
  note.textContent = 'Loading 24 h history…'
  holder.replaceChildren(note)
  try {
    const response = await getJson(`/api/token-history?address=${address}`)
    if (request !== state.tokenPage.historyRequest) return
    if (!response.ok) {
      note.textContent = 'History unavailable right now.'
      return
    }
    const { points } = /** @type {TokenHistory} */ (await response.json())
    if (request !== state.tokenPage.historyRequest) return
    const first = points[0]
    const last = points[points.length - 1]
    if (!first || !last || points.length < 2) {
      note.textContent = NO_HISTORY
      return
    }
    // On a 5-minute grid from the first point to the last: marks where the token was out of the top 100 break the line.
    const start = Date.parse(first.t)
    const slots = Math.round((Date.parse(last.t) - start) / FIVE_MINUTES_MS) + 1
    /** @param {(point: TokenHistory['points'][number]) => number | null} pick */
    const grid = (pick) => {
      /** @type {(number | null)[]} */
      const values = new Array(slots).fill(null)
      for (const point of points) values[Math.round((Date.parse(point.t) - start) / FIVE_MINUTES_MS)] = pick(point)
      return values
    }
    holder.replaceChildren(
      historyChart(
        'Price',
        grid((p) => (p.priceUsd === null ? null : Number(p.priceUsd))),
        { kind: 'volume', format: price },
      ),
      historyChart(
        'Volume 24h',
        grid((p) => p.volume24h),
        { kind: 'volume', format: usd },
      ),
      historyChart(
        'Liquidity',
        grid((p) => p.liquidityUsd),
        { kind: 'volume', format: usd },
      ),
      historyChart(
        'Rank',
        grid((p) => p.rank),
        { kind: 'volume', invert: true, format: (v) => `#${v}` },
      ),
    )
  } catch {
    if (request === state.tokenPage.historyRequest) note.textContent = 'History unavailable: the service could not be reached.'
  }
}

/** Drops an answer still on its way (the page closed): it is not drawn into the next page. */
export function forgetTokenHistory() {
  state.tokenPage.historyRequest++
}
