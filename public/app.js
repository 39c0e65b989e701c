// Base control room dashboard: a plain ES module, no framework, no build step. Every upstream string is written with
// textContent, never as HTML, since token names and symbols are untrusted third-party text. Charts are hand-drawn SVG.

const REFRESH_MS = 30_000
const SAFE_LIQUIDITY = 50_000
/** Age past which stale data is called stale in the header (two cache windows). */
const STALE_AFTER_SECONDS = 60
const SVG = 'http://www.w3.org/2000/svg'
const EXPLORER = 'https://basescan.org'

/**
 * @type {{ data: any | null, history: any | null, sortKey: string, sortDir: 1 | -1,
 *   served: { state: string | null, source: string | null, ageSeconds: number | null, receivedAt: number } }}
 */
const state = {
  data: null,
  history: null,
  sortKey: 'rank',
  sortDir: 1,
  served: { state: null, source: null, ageSeconds: null, receivedAt: 0 },
}

const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id))

// ---------------------------------------------------------------------------------------------------------------
// Formatting

/** Formats USD compactly: $1.23B, $4.5M, $12.3K, $950. */
function usd(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '–'
  const abs = Math.abs(n)
  for (const [size, suffix] of [
    [1e12, 'T'],
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'K'],
  ]) {
    if (abs >= size) return `$${(n / size).toFixed(abs / size >= 100 ? 0 : abs / size >= 10 ? 1 : 2)}${suffix}`
  }
  return `$${n.toFixed(abs >= 100 ? 0 : 2)}`
}

/** Formats a USD price (a decimal string or a number), keeping small prices readable. */
function price(value) {
  if (value === null || value === undefined) return '–'
  const n = Number(value)
  if (!Number.isFinite(n)) return '–'
  if (n >= 1) return `$${PRICE.format(n)}`
  if (n === 0) return '$0'
  return `$${n.toPrecision(4)}`
}

/** A signed percent, or a dash when unknown. */
const percent = (value) => (typeof value === 'number' && Number.isFinite(value) ? `${value > 0 ? '+' : ''}${value.toFixed(1)}%` : '–')
const direction = (value) => (typeof value !== 'number' || value === 0 ? 'flat' : value > 0 ? 'up' : 'down')
const INTEGER = new Intl.NumberFormat('en-US')
const PRICE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 })
const count = (n) => (typeof n === 'number' ? INTEGER.format(n) : '–')

// ---------------------------------------------------------------------------------------------------------------
// Charts

function svgElement(name, attributes) {
  const element = document.createElementNS(SVG, name)
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value))
  return element
}

/**
 * An SVG path through the values (nulls break the line) across width × height; `invert` puts small values on top
 * (ranks). Returns '' when fewer than two points are known.
 */
function linePath(values, width, height, { invert = false, pad = 2 } = {}) {
  const known = values.filter((v) => typeof v === 'number' && Number.isFinite(v))
  if (known.length < 2) return ''
  const min = Math.min(...known)
  const max = Math.max(...known)
  const span = max - min || 1
  const step = values.length > 1 ? width / (values.length - 1) : 0
  let d = ''
  let pen = 'M'
  values.forEach((v, i) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
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

/** First and last known value of a series. */
function ends(values) {
  const known = values.filter((v) => typeof v === 'number' && Number.isFinite(v))
  return known.length === 0 ? null : { first: known[0], last: known[known.length - 1] }
}

/** A 24 h price sparkline for a token, or a dash when the service holds too little of its history. */
function sparkline(token, width = 96) {
  const prices = state.history?.sparklines?.prices?.[token.address]
  const path = prices ? linePath(prices, width, 28) : ''
  if (!path) {
    const none = document.createElement('span')
    none.className = 'no-history'
    none.textContent = state.history ? 'no history' : ''
    return none
  }
  const { first, last } = /** @type {{ first: number, last: number }} */ (ends(prices))
  const change = first === 0 ? 0 : ((last - first) / first) * 100
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

/** Draws a series into an SVG chart (line, optionally with the area under it). */
function drawSeries(svg, values, { width, height, kind, area = false, invert = false }) {
  const path = linePath(values, width, height, { invert, pad: 4 })
  svg.replaceChildren()
  if (!path) return false
  if (area) svg.append(svgElement('path', { class: 'area', d: `${path}L${width} ${height}L0 ${height}Z` }))
  svg.append(svgElement('path', { class: `line ${kind}`, d: path }))
  return true
}

function renderVolumeChart() {
  const points = state.history?.volume?.points ?? []
  const svg = $('volume-chart')
  const caption = $('volume-caption')
  const values = points.map((p) => p.totalVolume24h)
  if (!drawSeries(svg, values, { width: 600, height: 140, kind: 'volume', area: true })) {
    svg.setAttribute('aria-label', 'Total 24h volume of the top 100 over the last 24 hours: no history yet')
    caption.textContent = 'History builds up as the service runs (a point every 5 minutes).'
    return
  }
  const first = points[0]
  const last = points[points.length - 1]
  const change = first.totalVolume24h === 0 ? 0 : ((last.totalVolume24h - first.totalVolume24h) / first.totalVolume24h) * 100
  const since = new Date(first.t).toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit' })
  const text = `Now ${usd(last.totalVolume24h)}, ${percent(change)} since ${since} (${points.length} points, every 5 minutes).`
  caption.textContent = text
  svg.setAttribute('aria-label', `Total 24h volume of the top 100: ${text}`)
}

// ---------------------------------------------------------------------------------------------------------------
// Table

function cell(text, className) {
  const td = document.createElement('td')
  td.textContent = text
  if (className) td.className = className
  return td
}

function changeCell(value) {
  const td = cell(percent(value), 'num')
  if (typeof value === 'number' && value !== 0) td.classList.add(value > 0 ? 'up' : 'down')
  return td
}

/** The token cell: a button (symbol and name) that opens the detail panel. */
function tokenCell(token, interactive = true) {
  const td = document.createElement('td')
  const holder = document.createElement(interactive ? 'button' : 'span')
  holder.className = 'token'
  if (interactive) {
    /** @type {HTMLButtonElement} */
    holder.type = 'button'
    holder.setAttribute('aria-haspopup', 'dialog')
  }
  const symbol = document.createElement('strong')
  symbol.textContent = token.symbol
  const name = document.createElement('span')
  name.className = 'name'
  name.textContent = token.name
  holder.title = `${token.symbol}: ${token.name}`
  holder.append(symbol, name)
  td.append(holder)
  return td
}

function liquidityCell(token) {
  const td = cell(usd(token.liquidity), 'num')
  if (token.liquidity < SAFE_LIQUIDITY) {
    td.classList.add('low-liq')
    const badge = document.createElement('span')
    badge.className = 'badge'
    badge.textContent = 'low liq'
    badge.title = 'Liquidity under $50K'
    td.append(badge)
    td.dataset.lowLiquidity = 'true'
  }
  return td
}

function sortValue(token, key) {
  const v = token[key]
  if (key === 'priceUsd') return v === null ? null : Number(v)
  if (key === 'symbol' || key === 'dexId') return String(v).toLowerCase()
  return v
}

function sortedTokens(tokens) {
  const { sortKey, sortDir } = state
  return [...tokens].sort((a, b) => {
    const x = sortValue(a, sortKey)
    const y = sortValue(b, sortKey)
    if (x === y) return a.rank - b.rank
    if (x === null || x === undefined) return 1 // unknowns last, whatever the direction
    if (y === null || y === undefined) return -1
    return (x < y ? -1 : 1) * sortDir
  })
}

/**
 * Whether the top-100 table is near the screen. Until it is (below the fold on a phone), its 1,300 cells are not
 * built: the skeleton rows hold its place, and the first scroll towards it builds it.
 */
let tableInView = false
new IntersectionObserver(
  (entries, observer) => {
    if (!entries.some((entry) => entry.isIntersecting)) return
    observer.disconnect()
    tableInView = true
    renderTable()
  },
  { rootMargin: '800px 0px' },
).observe($('tokens'))

function renderTable() {
  if (!state.data || !tableInView) return
  const tbody = /** @type {HTMLTableSectionElement} */ ($('tokens').querySelector('tbody'))
  const rows = sortedTokens(state.data.liveActivity).map((t) => {
    const tr = document.createElement('tr')
    tr.dataset.address = t.address
    const spark = document.createElement('td')
    spark.className = 'spark-col'
    spark.append(sparkline(t))
    tr.append(
      cell(String(t.rank), 'num'),
      tokenCell(t),
      spark,
      cell(price(t.priceUsd), 'num'),
      changeCell(t.priceChange5m),
      changeCell(t.priceChange1h),
      changeCell(t.priceChange6h),
      changeCell(t.priceChange24h),
      cell(usd(t.volume24h), 'num'),
      liquidityCell(t),
      cell(usd(t.marketCap), 'num'),
      cell(`${count(t.buys24h)} / ${count(t.sells24h)}`, 'num'),
      cell(t.dexId),
    )
    return tr
  })
  tbody.replaceChildren(...rows)
  for (const th of $('tokens').querySelectorAll('th[data-key]')) {
    const key = /** @type {HTMLElement} */ (th).dataset.key
    if (key === state.sortKey) th.setAttribute('aria-sort', state.sortDir === 1 ? 'ascending' : 'descending')
    else th.removeAttribute('aria-sort')
  }
}

function renderTrending() {
  if (!state.data) return
  const items = state.data.trending.map((t) => {
    const li = document.createElement('li')
    const button = document.createElement('button')
    button.type = 'button'
    button.dataset.address = t.address
    button.setAttribute('aria-haspopup', 'dialog')
    const rank = document.createElement('span')
    rank.className = 'rank'
    rank.textContent = String(t.rank)
    const symbol = document.createElement('span')
    symbol.className = 'sym'
    const strong = document.createElement('strong')
    strong.textContent = t.symbol
    symbol.append(strong, document.createTextNode(` ${usd(t.volume24h)}`))
    const change = document.createElement('span')
    change.className = `chg ${direction(t.priceChange24h)}`
    change.textContent = percent(t.priceChange24h)
    const spark = document.createElement('span')
    spark.className = 'spark-slot'
    spark.append(sparkline(t, 72))
    button.append(rank, symbol, spark, change)
    li.append(button)
    return li
  })
  $('trending').replaceChildren(...items)
}

function renderSummary() {
  const { data } = state
  if (!data) return
  $('commentary').textContent = data.commentary
  $('stat-total').textContent = String(data.stats.total)
  $('stat-safe').textContent = String(data.stats.safeCount)
  $('stat-vol').textContent = usd(data.stats.totalVol1h)
}

/** The header: how old the data is (by the server's X-Data-Age, so a wrong device clock does not matter), and whether it is stale or from the failover source. */
function renderFreshness() {
  if (!state.data) return
  const { served } = state
  const seconds =
    served.ageSeconds === null
      ? Math.max(0, Math.round((Date.now() - state.data.stats.ts) / 1000))
      : served.ageSeconds + Math.round((Date.now() - served.receivedAt) / 1000)
  const el = $('updated')
  el.textContent = `updated ${seconds} s ago`
  el.title = new Date(state.data.stats.ts).toLocaleString()
  const notes = []
  // A stale body past one 30 s window is normal while the next refresh runs; past two, the upstream is not answering.
  if (served.state === 'stale' && seconds > STALE_AFTER_SECONDS) notes.push('stale: upstream not answering')
  if (served.source === 'geckoterminal') notes.push('via GeckoTerminal (failover)')
  const badge = $('data-state')
  badge.textContent = notes.join(' · ')
  badge.hidden = notes.length === 0
}

function showError(message) {
  const el = $('error')
  if (message === null) {
    el.hidden = true
    el.textContent = ''
    return
  }
  el.hidden = false
  el.textContent = state.data ? `${message} Showing the last data received; retrying every 30 s.` : `${message} Retrying every 30 s.`
}

/** Reads an error body `{ error, code }` when there is one. */
async function describeFailure(response) {
  try {
    const body = await response.json()
    if (body && typeof body.error === 'string') return `Market data unavailable: ${body.error} (${body.code ?? response.status})`
  } catch {
    // not JSON
  }
  return `Market data unavailable (HTTP ${response.status}).`
}

// no-cache: revalidate with the ETag every time (a 304 reuses the body the browser holds).
const getJson = (path) => fetch(path, { cache: 'no-cache', headers: { accept: 'application/json' } })

let firstLoad = true
/** ETags of the bodies on screen. */
const lastEtags = { room: /** @type {string | null} */ (null), history: /** @type {string | null} */ (null) }

/** Which token control an element is (a row's token button or a trending entry), or null. */
function tokenControlOf(element) {
  const holder = element instanceof HTMLElement ? element.closest('#tokens [data-address], #trending [data-address]') : null
  return holder instanceof HTMLElement ? { address: holder.dataset.address, inTrending: !!holder.closest('#trending') } : null
}

/** Focuses the control of the same token in the same place, after a redraw replaced the element that had the focus. */
function focusTokenControl(control) {
  const again =
    control &&
    document.querySelector(
      control.inTrending ? `#trending button[data-address="${control.address}"]` : `#tokens tr[data-address="${control.address}"] .token`,
    )
  if (again instanceof HTMLElement) again.focus({ preventScroll: true })
}

/**
 * Redraws, then puts the keyboard focus back on the same token's control if it was on a row or a trending entry
 * (a redraw replaces those elements; a keyboard user must not be sent back to the top every 30 s).
 */
function keepingFocus(redraw) {
  const active = document.activeElement
  const control = tokenControlOf(active)
  redraw()
  if (control && !active?.isConnected) focusTokenControl(control)
}

async function loadRoom() {
  try {
    // The first request is the one index.html preloads (it starts with the CSS and this script): it must be asked
    // for exactly as preloaded (default cache mode, no extra headers) to be reused, else it is fetched twice.
    const response = firstLoad ? await fetch('/api/control-room') : await getJson('/api/control-room')
    firstLoad = false
    if (!response.ok) return showError(await describeFailure(response))
    // The same ETag is the same body: keep the rows (and the keyboard focus on them), update only the freshness.
    const etag = response.headers.get('etag')
    const changed = !etag || etag !== lastEtags.room || !state.data
    if (changed) state.data = await response.json()
    lastEtags.room = etag
    const age = Number(response.headers.get('x-data-age'))
    state.served = {
      state: response.headers.get('x-data-state'),
      source: response.headers.get('x-data-source'),
      ageSeconds: response.headers.has('x-data-age') && Number.isFinite(age) ? age : null,
      receivedAt: Date.now(),
    }
    showError(null)
    // A slightly stale answer means a refresh has just started on the server: ask again shortly rather than in 30 s.
    // (Older stale data means an outage: the usual 30 s polling goes on, no faster.)
    if (state.served.state === 'stale' && (state.served.ageSeconds ?? 0) <= STALE_AFTER_SECONDS) scheduleCatchUp()
    if (changed)
      keepingFocus(() => {
        renderSummary()
        renderTrending()
        renderTable()
      })
    renderFreshness()
  } catch {
    showError('Market data unavailable: the service could not be reached.')
  }
}

let catchUp = 0
function scheduleCatchUp() {
  if (catchUp) return
  catchUp = setTimeout(() => {
    catchUp = 0
    void loadAll()
  }, 5000)
}

async function loadHistory() {
  try {
    const response = await getJson('/api/market-history')
    if (!response.ok) return
    const etag = response.headers.get('etag')
    if (etag && etag === lastEtags.history && state.history) return
    state.history = await response.json()
    lastEtags.history = etag
  } catch {
    return // the charts keep what they showed; the table does not depend on them
  }
  renderVolumeChart()
  renderSparklines()
}

/** Puts the price lines into the rows and trending entries on screen, without rebuilding them. */
function renderSparklines() {
  const byAddress = new Map((state.data?.liveActivity ?? []).map((t) => [t.address, t]))
  for (const holder of document.querySelectorAll('#tokens td.spark-col, #trending .spark-slot')) {
    const address = /** @type {HTMLElement} */ (holder.closest('[data-address]'))?.dataset.address
    const token = address ? byAddress.get(address) : undefined
    if (token) holder.replaceChildren(sparkline(token, holder.tagName === 'TD' ? 96 : 72))
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Detail panel

/** The 24 fields of a token, with labels and how to show them. */
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
  ['pairAddress', 'Pair address', (v) => v ?? '–'],
  [
    'pairCreatedAt',
    'Pair created',
    (v) => (typeof v === 'number' ? `${new Date(v).toISOString().replace('T', ' ').slice(0, 16)} UTC` : '–'),
  ],
  ['pairUrl', 'Pair page', String],
  ['dexId', 'DEX', String],
  ['pairName', 'Pair', String],
]

/** The element that opened the panel, to return focus to. */
let opener = /** @type {HTMLElement | null} */ (null)
let detailRequest = 0

function link(href, text) {
  const a = document.createElement('a')
  a.href = href
  a.target = '_blank'
  a.rel = 'noopener noreferrer'
  a.textContent = text
  return a
}

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

const NO_HISTORY = 'No history yet: the service keeps a point every 5 minutes while a token is in the top 100.'

async function loadDetailCharts(token) {
  const holder = $('detail-charts')
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
    const { points } = await response.json()
    if (request !== detailRequest) return
    if (points.length < 2) {
      note.textContent = NO_HISTORY
      return
    }
    // On a 5-minute grid from the first point to the last: marks where the token was out of the top 100 break the line.
    const start = Date.parse(points[0].t)
    const slots = Math.round((Date.parse(points[points.length - 1].t) - start) / 300_000) + 1
    const grid = (pick) => {
      const values = new Array(slots).fill(null)
      for (const point of points) values[Math.round((Date.parse(point.t) - start) / 300_000)] = pick(point)
      return values
    }
    holder.replaceChildren(
      detailChart(
        'Price',
        grid((p) => p.priceUsd),
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

function openDetail(address, from) {
  const token = state.data?.liveActivity.find((t) => t.address === address)
  if (!token) return
  opener = from
  $('detail-title').textContent = `${token.symbol} · ${token.name}`
  const links = []
  if (/^https?:\/\//.test(token.pairUrl)) links.push(link(token.pairUrl, `${token.pairName} on ${token.dexId} (DexScreener)`))
  links.push(link(`${EXPLORER}/token/${token.address}`, 'Token on BaseScan'))
  $('detail-links').replaceChildren(...links)
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
  $('detail-fields').replaceChildren(...fields)
  const dialog = /** @type {HTMLDialogElement} */ ($('detail'))
  if (!dialog.open) dialog.showModal()
  $('detail-close').focus()
  void loadDetailCharts(token)
}

function onDetailClosed() {
  detailRequest++
  // The table or the trending list may have been redrawn while the panel was open: then focus the same token's new control.
  if (opener?.isConnected) opener.focus()
  else focusTokenControl(tokenControlOf(opener))
  opener = null
}

// ---------------------------------------------------------------------------------------------------------------
// Search and events

async function search(event) {
  event.preventDefault()
  const input = /** @type {HTMLInputElement} */ ($('search-input'))
  const q = input.value.trim()
  const status = $('search-status')
  const table = $('search-results')
  if (!q) {
    status.textContent = 'Type a symbol or name.'
    table.hidden = true
    return
  }
  status.textContent = 'Searching…'
  try {
    const response = await fetch(`/api/token-search?q=${encodeURIComponent(q)}`, { headers: { accept: 'application/json' } })
    const body = await response.json()
    if (!response.ok) {
      status.textContent = `Search failed: ${body.error ?? `HTTP ${response.status}`}`
      table.hidden = true
      return
    }
    status.textContent =
      body.total === 0
        ? `No Base pairs match “${body.query}”.`
        : `${body.total} Base pair${body.total === 1 ? '' : 's'} match “${body.query}”.`
    const rows = body.tokens.map((t) => {
      const tr = document.createElement('tr')
      tr.append(
        cell(String(t.rank), 'num'),
        tokenCell(t, false),
        cell(t.pairName),
        cell(price(t.priceUsd), 'num'),
        changeCell(t.priceChange24h),
        cell(usd(t.volume24h), 'num'),
        liquidityCell(t),
      )
      return tr
    })
    const tbody = /** @type {HTMLTableSectionElement} */ (table.querySelector('tbody'))
    tbody.replaceChildren(...rows)
    table.hidden = rows.length === 0
  } catch {
    status.textContent = 'Search failed: the service could not be reached.'
    table.hidden = true
  }
}

function onSort(event) {
  const th = /** @type {HTMLElement} */ (event.target).closest('th[data-key]')
  if (!th) return
  const key = /** @type {string} */ (th.dataset.key)
  if (state.sortKey === key) state.sortDir = state.sortDir === 1 ? -1 : 1
  else {
    state.sortKey = key
    // Numbers read best largest first; rank and names, smallest first.
    state.sortDir = key === 'rank' || key === 'symbol' || key === 'dexId' ? 1 : -1
  }
  renderTable()
}

function onRowClick(event) {
  const row = /** @type {HTMLElement} */ (event.target).closest('tr[data-address]')
  if (!row) return
  const button = /** @type {HTMLElement} */ (row.querySelector('.token'))
  openDetail(/** @type {string} */ (row.dataset.address), button)
}

function onTrendingClick(event) {
  const button = /** @type {HTMLElement} */ (event.target).closest('button[data-address]')
  if (button) openDetail(/** @type {string} */ (button.dataset.address), button)
}

/** The footer's service status, from the public part of /api/health. */
async function loadHealth() {
  const el = $('health')
  try {
    const response = await fetch('/api/health', { headers: { accept: 'application/json' } })
    const body = await response.json()
    const age = typeof body.dataAgeSeconds === 'number' ? `, data ${body.dataAgeSeconds} s old` : ''
    el.textContent = `service ${body.ok ? 'up' : 'degraded'} (v${body.version}${age})`
  } catch {
    el.textContent = 'service status unavailable'
  }
}

$('tokens').querySelector('thead')?.addEventListener('click', onSort)
$('tokens').querySelector('tbody')?.addEventListener('click', onRowClick)
$('trending').addEventListener('click', onTrendingClick)
$('search-form').addEventListener('submit', search)
$('refresh').addEventListener('click', () => void loadAll())
$('detail-close').addEventListener('click', () => /** @type {HTMLDialogElement} */ ($('detail')).close())
$('detail').addEventListener('close', onDetailClosed)
// A click on the backdrop (outside the panel's box) closes it too.
$('detail').addEventListener('click', (event) => {
  if (event.target === event.currentTarget) /** @type {HTMLDialogElement} */ ($('detail')).close()
})

// The room first (it writes the snapshot the charts read), then the charts; the footer's status follows each load.
const loadAll = () =>
  loadRoom()
    .then(loadHistory)
    .finally(() => void loadHealth())
void loadAll()
// A tab in the background does not poll; it catches up as soon as it is shown again.
setInterval(() => document.visibilityState === 'visible' && void loadAll(), REFRESH_MS)
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && Date.now() - state.served.receivedAt > REFRESH_MS) void loadAll()
})
setInterval(renderFreshness, 1000)
