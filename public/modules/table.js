// The top-100 table, the trending list and the summary; the cell builders the search results use too.
import { sparkline } from './charts.js'
import { count, direction, percent, price, usd } from './format.js'
import { byId, state } from './state.js'

/** @typedef {import('./state.js').Token} Token */

const SAFE_LIQUIDITY = 50_000

/**
 * A table cell with text.
 * @param {string} text
 * @param {string} [className]
 * @returns {HTMLTableCellElement}
 */
export function cell(text, className) {
  const td = document.createElement('td')
  td.textContent = text
  if (className) td.className = className
  return td
}

/**
 * A cell with a signed percent, coloured by direction.
 * @param {number | null} value
 * @returns {HTMLTableCellElement}
 */
export function changeCell(value) {
  const td = cell(percent(value), 'num')
  if (typeof value === 'number' && value !== 0) td.classList.add(value > 0 ? 'up' : 'down')
  return td
}

/**
 * The token cell: symbol and name, as a button that opens the detail panel when `interactive`.
 * @param {Token} token
 * @param {boolean} [interactive]
 * @returns {HTMLTableCellElement}
 */
export function tokenCell(token, interactive = true) {
  const td = document.createElement('td')
  const holder = document.createElement(interactive ? 'button' : 'span')
  holder.className = 'token'
  if (holder instanceof HTMLButtonElement) {
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

/**
 * The liquidity cell, flagged under $50K.
 * @param {Token} token
 * @returns {HTMLTableCellElement}
 */
export function liquidityCell(token) {
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

/**
 * The value a column sorts by: numbers as numbers, names case-folded, unknown as null.
 * @param {Token} token
 * @param {string} key
 * @returns {number | string | null}
 */
function sortValue(token, key) {
  const v = /** @type {Record<string, unknown>} */ (token)[key]
  if (key === 'priceUsd') return v === null ? null : Number(v)
  if (key === 'symbol' || key === 'dexId') return String(v).toLowerCase()
  return typeof v === 'number' || typeof v === 'string' ? v : null
}

/**
 * The tokens in the table's order (ties by rank; unknowns last, whatever the direction).
 * @param {readonly Token[]} tokens
 * @returns {Token[]}
 */
function sortedTokens(tokens) {
  const { sortKey, sortDir } = state
  return [...tokens].sort((a, b) => {
    const x = sortValue(a, sortKey)
    const y = sortValue(b, sortKey)
    if (x === y) return a.rank - b.rank
    if (x === null) return 1
    if (y === null) return -1
    return (x < y ? -1 : 1) * sortDir
  })
}

/**
 * Builds the table as soon as it comes within 800 px of the screen, and from then on at every redraw. Until then (below
 * the fold on a phone), its 1,300 cells are not built: the skeleton rows hold its place, and the first scroll towards
 * it builds it.
 */
export function watchTableInView() {
  new IntersectionObserver(
    (entries, observer) => {
      if (!entries.some((entry) => entry.isIntersecting)) return
      observer.disconnect()
      state.tableInView = true
      renderTable()
    },
    { rootMargin: '800px 0px' },
  ).observe(byId('tokens'))
}

/** Draws the top-100 rows in the chosen order and marks the sorted column (once the table is near the screen). */
export function renderTable() {
  if (!state.data || !state.tableInView) return
  const tbody = /** @type {HTMLTableSectionElement} */ (byId('tokens').querySelector('tbody'))
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
  for (const th of byId('tokens').querySelectorAll('th[data-key]')) {
    const key = /** @type {HTMLElement} */ (th).dataset.key
    if (key === state.sortKey) th.setAttribute('aria-sort', state.sortDir === 1 ? 'ascending' : 'descending')
    else th.removeAttribute('aria-sort')
  }
}

/**
 * Sorts by the column whose title was chosen: again on the same column turns the order round.
 * @param {Event} event
 */
export function onSort(event) {
  const th = /** @type {HTMLElement} */ (event.target).closest('th[data-key]')
  if (!(th instanceof HTMLElement) || !th.dataset.key) return
  const key = th.dataset.key
  if (state.sortKey === key) state.sortDir = state.sortDir === 1 ? -1 : 1
  else {
    state.sortKey = key
    // Numbers read best largest first; rank and names, smallest first.
    state.sortDir = key === 'rank' || key === 'symbol' || key === 'dexId' ? 1 : -1
  }
  renderTable()
}

/** Draws the 15 trending tokens, each a button that opens its detail panel. */
export function renderTrending() {
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
  byId('trending').replaceChildren(...items)
}

/** Writes the commentary and the three market figures. */
export function renderSummary() {
  const { data } = state
  if (!data) return
  byId('commentary').textContent = data.commentary
  byId('stat-total').textContent = String(data.stats.total)
  byId('stat-safe').textContent = String(data.stats.safeCount)
  byId('stat-vol').textContent = usd(data.stats.totalVol1h)
}
