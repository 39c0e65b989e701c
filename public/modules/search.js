// The search box: Base pairs matching a symbol or name, from /api/token-search.
import { price, usd } from './format.js'
import { byId, state } from './state.js'
import { cell, changeCell, liquidityCell, tokenCell } from './table.js'

/** @typedef {import('./state.js').TokenSearchResult} TokenSearchResult */

/**
 * Runs the search in the form and shows the matching pairs (or why there are none).
 * @param {SubmitEvent} event
 */
async function search(event) {
  event.preventDefault()
  const input = /** @type {HTMLInputElement} */ (byId('search-input'))
  const q = input.value.trim()
  const status = byId('search-status')
  const table = byId('search-results')
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
    const result = /** @type {TokenSearchResult} */ (body)
    state.found = result.tokens
    status.textContent =
      result.total === 0
        ? `No Base pairs match “${result.query}”.`
        : `${result.total} Base pair${result.total === 1 ? '' : 's'} match “${result.query}”.`
    const rows = result.tokens.map((t) => {
      const tr = document.createElement('tr')
      // Each result opens its token's page (candles and all), whether or not it is in the top 100.
      tr.dataset.address = t.address
      tr.append(
        cell(String(t.rank), 'num'),
        tokenCell(t),
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

/** Wires the search form. */
export function wireSearch() {
  byId('search-form').addEventListener('submit', (event) => void search(/** @type {SubmitEvent} */ (event)))
}
