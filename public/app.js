// Base control room dashboard: plain ES module, no framework. Every upstream string is written with textContent,
// never as HTML, since token names and symbols are untrusted third-party text.

const REFRESH_MS = 30_000
const SAFE_LIQUIDITY = 50_000

/** @type {{ data: any | null, sortKey: string, sortDir: 1 | -1, lastError: string | null }} */
const state = { data: null, sortKey: 'rank', sortDir: 1, lastError: null }

const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id))

/** Formats USD compactly: $1.23B, $4.5M, $12.3K, $950. */
function usd(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '–'
  const abs = Math.abs(n)
  for (const [size, suffix] of [[1e12, 'T'], [1e9, 'B'], [1e6, 'M'], [1e3, 'K']]) {
    if (abs >= size) return `$${(n / size).toFixed(abs / size >= 100 ? 0 : abs / size >= 10 ? 1 : 2)}${suffix}`
  }
  return `$${n.toFixed(abs >= 100 ? 0 : 2)}`
}

/** Formats a USD price given as a decimal string, keeping small prices readable. */
function price(value) {
  if (value === null || value === undefined) return '–'
  const n = Number(value)
  if (!Number.isFinite(n)) return '–'
  if (n >= 1) return `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`
  if (n === 0) return '$0'
  return `$${n.toPrecision(4)}`
}

/** A cell with a signed, coloured percent change. */
function changeCell(value) {
  const td = document.createElement('td')
  td.className = 'num'
  if (value === null || value === undefined) {
    td.textContent = '–'
    return td
  }
  td.textContent = `${value > 0 ? '+' : ''}${value.toFixed(1)}%`
  td.classList.add(value > 0 ? 'up' : value < 0 ? 'down' : 'flat')
  return td
}

function cell(text, className) {
  const td = document.createElement('td')
  td.textContent = text
  if (className) td.className = className
  return td
}

/** The token cell: symbol, name, and a flag when liquidity is under $50K. */
function tokenCell(token) {
  const td = document.createElement('td')
  const symbol = document.createElement('strong')
  symbol.textContent = token.symbol
  const name = document.createElement('span')
  name.className = 'name'
  name.textContent = token.name
  name.title = token.name
  td.append(symbol, name)
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

function pairLink(token) {
  const td = document.createElement('td')
  const label = token.dexId
  if (/^https?:\/\//.test(token.pairUrl)) {
    const a = document.createElement('a')
    a.href = token.pairUrl
    a.target = '_blank'
    a.rel = 'noopener noreferrer'
    a.textContent = label
    td.append(a)
  } else td.textContent = label
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

function renderTable() {
  const tbody = /** @type {HTMLTableSectionElement} */ ($('tokens').querySelector('tbody'))
  const rows = sortedTokens(state.data?.liveActivity ?? []).map((t) => {
    const tr = document.createElement('tr')
    tr.dataset.address = t.address
    tr.append(
      cell(String(t.rank), 'num'),
      tokenCell(t),
      cell(price(t.priceUsd), 'num'),
      changeCell(t.priceChange5m),
      changeCell(t.priceChange1h),
      changeCell(t.priceChange6h),
      changeCell(t.priceChange24h),
      cell(usd(t.volume24h), 'num'),
      liquidityCell(t),
      cell(usd(t.marketCap), 'num'),
      cell(`${t.buys24h.toLocaleString('en-US')} / ${t.sells24h.toLocaleString('en-US')}`, 'num'),
      pairLink(t),
    )
    return tr
  })
  tbody.replaceChildren(...rows)
  for (const th of $('tokens').querySelectorAll('th[data-key]')) {
    const key = /** @type {HTMLElement} */ (th).dataset.key
    th.setAttribute('aria-sort', key === state.sortKey ? (state.sortDir === 1 ? 'ascending' : 'descending') : 'none')
  }
}

function renderSummary() {
  const { data } = state
  if (!data) return
  $('commentary').textContent = data.commentary
  $('stat-total').textContent = String(data.stats.total)
  $('stat-safe').textContent = String(data.stats.safeCount)
  $('stat-vol').textContent = usd(data.stats.totalVol1h)
  const items = data.trending.map((t) => {
    const li = document.createElement('li')
    const left = document.createElement('span')
    const symbol = document.createElement('strong')
    symbol.textContent = t.symbol
    left.append(symbol, document.createTextNode(` ${usd(t.volume24h)}`))
    const right = document.createElement('span')
    const change = t.priceChange24h
    right.textContent = change === null ? '–' : `${change > 0 ? '+' : ''}${change.toFixed(1)}%`
    right.className = change > 0 ? 'up' : change < 0 ? 'down' : ''
    li.append(left, right)
    return li
  })
  $('trending').replaceChildren(...items)
}

function renderFreshness() {
  const el = $('updated')
  if (!state.data) return
  const seconds = Math.max(0, Math.round((Date.now() - state.data.stats.ts) / 1000))
  el.textContent = `updated ${seconds} s ago`
  el.title = new Date(state.data.stats.ts).toLocaleString()
}

function showError(message) {
  const el = $('error')
  if (message === null) {
    el.hidden = true
    el.textContent = ''
    return
  }
  el.hidden = false
  el.textContent = state.data
    ? `${message} Showing the last data received; retrying every 30 s.`
    : `${message} Retrying every 30 s.`
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

async function load() {
  try {
    // no-cache: revalidate with the ETag every time (a 304 reuses the body the browser holds).
    const response = await fetch('/api/control-room', { cache: 'no-cache', headers: { accept: 'application/json' } })
    if (!response.ok) return showError(await describeFailure(response))
    state.data = await response.json()
    showError(null)
    renderSummary()
    renderTable()
    renderFreshness()
  } catch {
    showError('Market data unavailable: the service could not be reached.')
  }
}

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
    status.textContent = body.total === 0 ? `No Base pairs match “${body.query}”.` : `${body.total} Base pair${body.total === 1 ? '' : 's'} match “${body.query}”.`
    const rows = body.tokens.map((t) => {
      const tr = document.createElement('tr')
      tr.append(cell(String(t.rank), 'num'), tokenCell(t), cell(t.pairName), cell(price(t.priceUsd), 'num'), changeCell(t.priceChange24h), cell(usd(t.volume24h), 'num'), liquidityCell(t))
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
$('search-form').addEventListener('submit', search)
$('refresh').addEventListener('click', () => void load())
// The footer's status follows each load, so it speaks of the data on screen.
const loadAll = () => load().finally(() => void loadHealth())
void loadAll()
setInterval(() => void loadAll(), REFRESH_MS)
setInterval(renderFreshness, 1000)
