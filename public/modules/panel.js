// The token page (a modal dialog a link can open, `#/token/0x…`): the token's candles and volume, its 24 fields from the
// control room (or a search, or its launch's facts), its links, and its 24 h charts from /api/token-history.
import { drawSeries, ends, svgElement } from './charts.js'
import { getJson } from './data.js'
import { focusTokenControl, tokenControlOf } from './focus.js'
import { count, percent, price, usd } from './format.js'
import { byId, dialogById, state } from './state.js'

/** @typedef {import('./state.js').Token} Token */
/** @typedef {import('./state.js').Launch} Launch */
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
 * element was on the page (a refresh while the panel is open replaces the rows and the trending entries). Null when a
 * link opened it.
 * @type {{ element: HTMLElement, control: TokenControl | null } | null}
 */
let opener = null
/** The token whose page is open, and the timeframe its candles are shown in (kept from one page to the next). */
const page = { address: /** @type {string | null} */ (null), frame: '1h' }

// The token page in the URL, `#/token/0x…`: a trader can link to it, and Back closes it.
const TOKEN_ROUTE = /^#\/token\/(0x[0-9a-fA-F]{40})$/

/** Whether this page put the token in the URL (then closing the page goes Back, so Forward reopens it). */
let pushed = false

/**
 * The token the URL names, lower-case, or null.
 * @returns {string | null}
 */
function routedToken() {
  const match = TOKEN_ROUTE.exec(location.hash)
  return match?.[1] ? match[1].toLowerCase() : null
}

/**
 * Puts a token's page in the URL (an entry of its own in the history).
 * @param {string} address
 */
function routeToToken(address) {
  if (routedToken() === address) return
  location.hash = `#/token/${address}`
  pushed = true
}

/** Takes the token out of the URL as its page closes: Back when this page put it there, else the URL without it. */
function leaveTokenRoute() {
  if (!routedToken()) return
  if (pushed) history.back()
  else history.replaceState(null, '', `${location.pathname}${location.search}`)
  pushed = false
}

/**
 * Calls `onToken` with the token the URL names (or null) each time it changes: Back, Forward, a link pasted or followed.
 * @param {(address: string | null) => void} onToken
 */
function onRouteChange(onToken) {
  addEventListener('hashchange', () => {
    const address = routedToken()
    if (!address) pushed = false // Back took it out already
    onToken(address)
  })
}

/**
 * The facts of a launch as the token page lists them: label, value, and for a URL whether it may be a link (https).
 * @param {Launch} launch
 * @returns {[field: string, label: string, value: string, href?: string][]}
 */
function launchFacts(launch) {
  /** @type {[string, string, string, string?][]} */
  const facts = [
    ['status', 'Status', launch.status === 'confirmed' ? 'confirmed' : 'pending (sent, not yet seen mined)'],
    ['address', 'Token address', launch.address],
    ['variant', 'Variant', `${launch.variant}, ${launch.decimals} decimals`],
    ['initialSupply', 'Initial supply', launch.initialSupply ?? 'none'],
    ['supplyCap', 'Supply cap', launch.supplyCap ?? 'none'],
    ['createdAt', 'Deployed', `${launch.createdAt.replace('T', ' ').slice(0, 16)} UTC`],
    ['txHash', 'Transaction', launch.txHash],
  ]
  if (launch.metadata?.description) facts.push(['description', 'Description', launch.metadata.description])
  for (const [field, label] of /** @type {const} */ ([
    ['website', 'Website'],
    ['image', 'Image'],
  ])) {
    const url = launch.metadata?.[field]
    if (url) facts.push([field, label, url, isHttps(url) ? url : undefined])
  }
  if (launch.market)
    facts.push([
      'market',
      'Market',
      `${launch.market.dexId} pool ${launch.market.pairAddress ?? ''}`,
      isHttps(launch.market.pairUrl) ? launch.market.pairUrl : undefined,
    ])
  return facts
}

/**
 * Whether a URL is https (the only kind an agent's URL is linked as).
 * @param {string} url
 * @returns {boolean}
 */
function isHttps(url) {
  try {
    return new URL(url).protocol === 'https:'
  } catch {
    return false
  }
}

/**
 * The launch of a token, if the page has heard of it (the New launches panel, or the stream).
 * @param {string} address
 * @returns {Launch | null}
 */
const launchOf = (address) => state.launches.byAddress.get(address.toLowerCase()) ?? null

/** @type {Promise<typeof import('./candles.js')> | null} */
let candleModule = null
/**
 * The candles module, loaded with the first token page (it loads the chart library in turn): the dashboard's first
 * load carries neither.
 * @returns {Promise<typeof import('./candles.js')>}
 */
const candles = () => {
  candleModule ??= import('./candles.js')
  return candleModule
}

/** The timeframes the page's buttons offer. */
const FRAMES = ['5m', '15m', '1h', '4h', '1d']
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
 * @param {string} address
 */
async function loadDetailCharts(address) {
  const holder = byId('detail-charts')
  const request = ++detailRequest
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
 * The fields of the page: the token's 24 from a room or a search, else its launch's facts (a URL an agent wrote is a
 * link only when it is https), else a note that the service knows no more than the address.
 * @param {Token | null} token
 * @param {Launch | null} launch
 * @returns {HTMLElement[]}
 */
function fieldRows(token, launch) {
  /** @type {[string, string, string, string?][]} */
  const rows = token
    ? FIELDS.map(([key, label, format]) => [key, label, format(token[key])])
    : launch
      ? launchFacts(launch)
      : [['note', 'Top 100', 'Not in the top 100 right now: the candles above are its most liquid Base pool’s.']]
  return rows.map(([key, label, value, href]) => {
    const row = document.createElement('div')
    const dt = document.createElement('dt')
    dt.textContent = label
    const dd = document.createElement('dd')
    if (href) dd.append(link(href, value))
    else dd.textContent = value
    dd.dataset.field = key
    row.append(dt, dd)
    return row
  })
}

/**
 * Opens the token page of this address, from the control the user chose (null: a link opened it). What the page
 * shows of the token comes from the room when it is in the top 100, else from `known` (a search's row, a launch).
 * @param {string} address
 * @param {HTMLElement | null} from
 * @param {{ token?: Token }} [known]
 */
export function openDetail(address, from, known = {}) {
  address = address.toLowerCase()
  const token = state.data?.liveActivity.find((t) => t.address === address) ?? known.token ?? null
  const launch = launchOf(address)
  const dialog = dialogById('detail')
  if (from) opener = { element: from, control: tokenControlOf(from) }
  const changed = page.address !== address
  page.address = address
  byId('detail-title').textContent = token
    ? `${token.symbol} · ${token.name}`
    : launch
      ? `${launch.symbol} · ${launch.name}`
      : `${address.slice(0, 6)}…${address.slice(-4)}`
  const links = []
  if (token && /^https?:\/\//.test(token.pairUrl)) {
    const pair = link(token.pairUrl, `${token.pairName} on ${token.dexId} (DexScreener)`)
    pair.dataset.pool = token.pairAddress ?? ''
    links.push(pair)
  }
  links.push(link(`${EXPLORER}/token/${address}`, 'Token on BaseScan'))
  byId('detail-links').replaceChildren(...links)
  byId('detail-fields').replaceChildren(...fieldRows(token, launch))
  routeToToken(address)
  if (!dialog.open) dialog.showModal()
  byId('detail-close').focus()
  // A launch not yet trading has no pool to chart: no request, and the page says so.
  if (!token && launch && !launch.market) void candles().then((c) => c.showNoCandles('No candles yet: the token does not trade yet.'))
  else if (changed || !byId('candle-chart').hasChildNodes()) void candles().then((c) => c.showCandles(address, page.frame))
  void loadDetailCharts(address)
}

/**
 * A room the page has just drawn: the open token's candle still open closes at its new price.
 * @param {import('./state.js').ControlRoom} room
 */
export function showRoomOnTokenPage(room) {
  if (!page.address || !dialogById('detail').open) return
  const token = room.liveActivity.find((t) => t.address === page.address)
  const address = page.address
  if (token) void candleModule?.then((c) => c.takeLivePrice(address, token.priceUsd, room.stats.ts))
}

/** After the panel closed: drops a chart answer still on its way, and gives the focus back to the same token. */
function onDetailClosed() {
  detailRequest++
  page.address = null
  void candleModule?.then((c) => c.closeCandles())
  leaveTokenRoute()
  // The table or the trending list may have been redrawn while the panel was open: then focus the same token's new control.
  if (opener?.element.isConnected) opener.element.focus()
  else focusTokenControl(opener?.control ?? null)
  opener = null
}

/**
 * The token button a click landed on in a list of them (rows, trending, search results, launches), and its address.
 * @param {Event} event
 * @param {string} selector the element that carries `data-address`
 * @returns {{ address: string, button: HTMLElement } | null}
 */
function chosenToken(event, selector) {
  const holder = /** @type {HTMLElement} */ (event.target).closest(selector)
  const button = holder?.matches('button') ? holder : holder?.querySelector('.token')
  return holder instanceof HTMLElement && holder.dataset.address && button instanceof HTMLElement
    ? { address: holder.dataset.address, button }
    : null
}

/**
 * Wires the token page: opened from a row, a trending entry, a search result, a launch or a link; closed by its
 * button, Escape, a click on the backdrop, or Back; its timeframe buttons switch the candles.
 */
export function wireDetailPanel() {
  byId('tokens')
    .querySelector('tbody')
    ?.addEventListener('click', (event) => {
      const chosen = chosenToken(event, 'tr[data-address]')
      if (chosen) openDetail(chosen.address, chosen.button)
    })
  byId('search-results')
    .querySelector('tbody')
    ?.addEventListener('click', (event) => {
      const chosen = chosenToken(event, 'tr[data-address]')
      if (chosen) openDetail(chosen.address, chosen.button, { token: state.found.find((t) => t.address === chosen.address) })
    })
  for (const list of ['trending', 'launches'])
    byId(list).addEventListener('click', (event) => {
      const chosen = chosenToken(event, 'button[data-address]')
      if (chosen) openDetail(chosen.address, chosen.button)
    })
  byId('candle-frames').addEventListener('click', (event) => {
    const frame = /** @type {HTMLElement} */ (event.target).closest('button')?.dataset.frame
    const address = page.address
    if (frame && FRAMES.includes(frame) && address) {
      page.frame = frame
      const launch = launchOf(address)
      if (!state.data?.liveActivity.some((t) => t.address === address) && launch && !launch.market) return
      void candles().then((c) => c.showCandles(address, frame))
    }
  })
  const dialog = dialogById('detail')
  byId('detail-close').addEventListener('click', () => dialog.close())
  dialog.addEventListener('close', onDetailClosed)
  // A click on the backdrop (outside the panel's box) closes it too.
  dialog.addEventListener('click', (event) => {
    if (event.target === event.currentTarget) dialog.close()
  })
  onRouteChange((address) => {
    if (address && address !== page.address) openDetail(address, null)
    else if (!address && dialog.open) dialog.close()
  })
}

/** Opens the page the URL names, once the room is there to describe it (a link to `#/token/0x…` from elsewhere). */
export function openRoutedToken() {
  const address = routedToken()
  if (address && address !== page.address) openDetail(address, null)
}
