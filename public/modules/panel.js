// The detail panel: a token's 24 fields, its links, and its 24 h charts from /api/token-history.
import { drawSeries, ends, svgElement } from './charts.js'
import { getJson } from './data.js'
import { focusTokenControl, tokenControlOf } from './focus.js'
import { count, percent, price, usd } from './format.js'
import { byId, dialogById, state } from './state.js'

/** @typedef {import('./state.js').Token} Token */
/** @typedef {import('./state.js').TokenHistory} TokenHistory */
/** @typedef {import('./focus.js').TokenControl} TokenControl */

const EXPLORER = 'https://basescan.org'
const NO_HISTORY = 'No history yet: the service keeps a point every 5 minutes while a token is in the top 100.'
const FIVE_MINUTES_MS = 300_000

/**
 * The 24 fields of a token, with labels and how to show them.
 * @type {readonly [keyof Token, string, (value: unknown) => string][]}
 */
const FIELDS = [
  ['rank', 'Rank', (v) => `#${v}`],
  ['symbol', 'Symbol', String],
  ['name', 'Name', String],
  ['address', 'Token address', String],
  ['priceUsd', 'Price (USD)', (v) => (v === null ? '–' : `$${v}`)],
  ['priceChange5m', 'Change 5m', percent],
  ['priceChange1h', 'Change 1h', percent],
  ['priceChange6h', 'Change 6h', percent],
  ['priceChange24h', 'Change 24h', percent],
  ['volume1h', 'Volume 1h', usd],
  ['volume6h', 'Volume 6h', usd],
  ['volume24h', 'Volume 24h', usd],
  ['liquidity', 'Liquidity', usd],
  ['marketCap', 'Market cap', usd],
  ['fdv', 'FDV', usd],
  ['buys1h', 'Buys 1h', count],
  ['sells1h', 'Sells 1h', count],
  ['buys24h', 'Buys 24h', count],
  ['sells24h', 'Sells 24h', count],
  ['pairAddress', 'Pair address', (v) => String(v ?? '–')],
  [
    'pairCreatedAt',
    'Pair created',
    (v) => (typeof v === 'number' ? `${new Date(v).toISOString().replace('T', ' ').slice(0, 16)} UTC` : '–'),
  ],
  ['pairUrl', 'Pair page', String],
  ['dexId', 'DEX', String],
  ['pairName', 'Pair', String],
]

/**
 * What opened the panel, to give the focus back to: the element, and which token's control it was, taken while the
 * element was on the page (a refresh while the panel is open replaces the rows and the trending entries).
 * @type {{ element: HTMLElement, control: TokenControl | null } | null}
 */
let opener = null
/** Counts chart requests, so an answer for a panel already closed or reopened is dropped. */
let detailRequest = 0

/**
 * A link that opens in a new tab and tells the other site nothing.
 * @param {string} href
 * @param {string} text
 * @returns {HTMLAnchorElement}
 */
function link(href, text) {
  const a = document.createElement('a')
  a.href = href
  a.target = '_blank'
  a.rel = 'noopener noreferrer'
  a.textContent = text
  return a
}

/**
 * One chart of the panel, with its first and last value in words.
 * @param {string} title
 * @param {(number | null)[]} values
 * @param {{ kind: string, invert?: boolean, format: (value: number) => string }} options
 * @returns {HTMLElement}
 */
function detailChart(title, values, { kind, invert = false, format }) {
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
 * @param {Token} token
 */
async function loadDetailCharts(token) {
  const holder = byId('detail-charts')
  const request = ++detailRequest
  const note = document.createElement('p')
  note.className = 'muted'
  // market-history lists every token of the latest snapshot: no request (and no 404) for the others.
  if (!state.history?.sparklines?.prices?.[token.address]) {
    note.textContent = NO_HISTORY
    holder.replaceChildren(note)
    return
  }
  note.textContent = 'Loading 24 h history…'
  holder.replaceChildren(note)
  try {
    const response = await getJson(`/api/token-history?address=${token.address}`)
    if (request !== detailRequest) return
    if (!response.ok) {
      note.textContent = 'History unavailable right now.'
      return
    }
    const { points } = /** @type {TokenHistory} */ (await response.json())
    if (request !== detailRequest) return
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
      detailChart(
        'Price',
        grid((p) => (p.priceUsd === null ? null : Number(p.priceUsd))),
        { kind: 'volume', format: price },
      ),
      detailChart(
        'Volume 24h',
        grid((p) => p.volume24h),
        { kind: 'volume', format: usd },
      ),
      detailChart(
        'Liquidity',
        grid((p) => p.liquidityUsd),
        { kind: 'volume', format: usd },
      ),
      detailChart(
        'Rank',
        grid((p) => p.rank),
        { kind: 'volume', invert: true, format: (v) => `#${v}` },
      ),
    )
  } catch {
    if (request === detailRequest) note.textContent = 'History unavailable: the service could not be reached.'
  }
}

/**
 * Opens the panel for the token with this address, from the control the user chose.
 * @param {string} address
 * @param {HTMLElement} from
 */
export function openDetail(address, from) {
  const token = state.data?.liveActivity.find((t) => t.address === address)
  if (!token) return
  opener = { element: from, control: tokenControlOf(from) }
  byId('detail-title').textContent = `${token.symbol} · ${token.name}`
  const links = []
  if (/^https?:\/\//.test(token.pairUrl)) links.push(link(token.pairUrl, `${token.pairName} on ${token.dexId} (DexScreener)`))
  links.push(link(`${EXPLORER}/token/${token.address}`, 'Token on BaseScan'))
  byId('detail-links').replaceChildren(...links)
  const fields = FIELDS.map(([key, label, format]) => {
    const row = document.createElement('div')
    const dt = document.createElement('dt')
    dt.textContent = label
    const dd = document.createElement('dd')
    dd.textContent = format(token[key])
    dd.dataset.field = key
    row.append(dt, dd)
    return row
  })
  byId('detail-fields').replaceChildren(...fields)
  const dialog = dialogById('detail')
  if (!dialog.open) dialog.showModal()
  byId('detail-close').focus()
  void loadDetailCharts(token)
}

/** After the panel closed: drops a chart answer still on its way, and gives the focus back to the same token. */
function onDetailClosed() {
  detailRequest++
  // The table or the trending list may have been redrawn while the panel was open: then focus the same token's new control.
  if (opener?.element.isConnected) opener.element.focus()
  else focusTokenControl(opener?.control ?? null)
  opener = null
}

/** Wires the panel: opened from a row or a trending entry; closed by its button, Escape or a click on the backdrop. */
export function wireDetailPanel() {
  byId('tokens')
    .querySelector('tbody')
    ?.addEventListener('click', (event) => {
      const row = /** @type {HTMLElement} */ (event.target).closest('tr[data-address]')
      const button = row?.querySelector('.token')
      if (row instanceof HTMLElement && row.dataset.address && button instanceof HTMLElement) openDetail(row.dataset.address, button)
    })
  byId('trending').addEventListener('click', (event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest('button[data-address]')
    if (button instanceof HTMLElement && button.dataset.address) openDetail(button.dataset.address, button)
  })
  const dialog = dialogById('detail')
  byId('detail-close').addEventListener('click', () => dialog.close())
  dialog.addEventListener('close', onDetailClosed)
  // A click on the backdrop (outside the panel's box) closes it too.
  dialog.addEventListener('click', (event) => {
    if (event.target === event.currentTarget) dialog.close()
  })
}
