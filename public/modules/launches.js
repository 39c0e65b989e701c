// New launches: the tokens agents deployed through this service, from /api/launches, then as the stream announces each
// one confirmed. Agents write the names, symbols, descriptions and URLs: text only. Loaded after the room (the panel is
// below it), so the first paint does not wait for it.
import { byId, state } from './state.js'

/** @typedef {import('./state.js').Launch} Launch */
/** @typedef {import('./state.js').LaunchesPage} LaunchesPage */

/** Launches the panel shows (its height is reserved for exactly this many). */
const SHOWN = 5

/**
 * How long ago, in words a glance reads.
 * @param {string} iso
 * @returns {string}
 */
function ago(iso) {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000))
  if (seconds < 90) return 'just now'
  if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`
  if (seconds < 129_600) return `${Math.round(seconds / 3600)} h ago`
  return `${Math.round(seconds / 86_400)} d ago`
}

/**
 * One launch as a button that opens its token page: symbol and name, then its status, age and description (all text).
 * @param {Launch} launch
 * @returns {HTMLLIElement}
 */
function launchItem(launch) {
  const li = document.createElement('li')
  const button = document.createElement('button')
  button.type = 'button'
  button.className = 'launch'
  button.dataset.address = launch.address.toLowerCase()
  button.setAttribute('aria-haspopup', 'dialog')
  const head = document.createElement('span')
  head.className = 'launch-head'
  const symbol = document.createElement('strong')
  symbol.textContent = launch.symbol
  const name = document.createElement('span')
  name.className = 'name'
  name.textContent = launch.name
  head.append(symbol, name)
  const meta = document.createElement('span')
  meta.className = 'launch-meta'
  const status = launch.status === 'confirmed' ? (launch.market ? 'trading' : 'confirmed') : 'pending'
  meta.textContent = [status, ago(launch.createdAt), launch.metadata?.description ?? ''].filter(Boolean).join(' · ')
  button.dataset.status = status
  button.title = `${launch.symbol}: ${launch.name}`
  button.append(head, meta)
  li.append(button)
  return li
}

/** Draws the panel: the newest launches, and empty places for the rest (the panel keeps its height). */
function renderLaunches() {
  const items = state.launches.list.slice(0, SHOWN).map(launchItem)
  if (items.length === 0) {
    const none = document.createElement('li')
    none.className = 'launch-none muted'
    none.textContent = 'No launches yet: tokens agents deploy through this service appear here.'
    items.push(none)
  }
  while (items.length < SHOWN) {
    const place = document.createElement('li')
    place.className = 'launch-place'
    place.setAttribute('aria-hidden', 'true')
    items.push(place)
  }
  byId('launches').replaceChildren(...items)
}

/**
 * Keeps a launch (a newer one replaces the same deploy's older entry), newest first.
 * @param {Launch} launch
 */
function keep(launch) {
  const { launches } = state
  launches.list = [launch, ...launches.list.filter((l) => l.txHash !== launch.txHash)].sort(
    (a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt),
  )
  launches.byAddress.set(launch.address.toLowerCase(), launch)
}

/** Asks for the newest launches (revalidating with the ETag) and draws them; a deployment that keeps them private says so. */
export async function loadLaunches() {
  try {
    const response = await fetch(`/api/launches?limit=${SHOWN}`, { cache: 'no-cache', headers: { accept: 'application/json' } })
    if (response.status === 404) {
      byId('launches-status').textContent = 'This deployment does not publish its launches.'
      return
    }
    if (!response.ok) return
    const etag = response.headers.get('etag')
    if (etag && etag === state.launches.etag) return
    state.launches.etag = etag
    const page = /** @type {LaunchesPage} */ (await response.json())
    for (const launch of [...page.launches].reverse()) keep(launch)
    renderLaunches()
  } catch {
    // the panel keeps what it showed; the stream may still bring new launches
  }
}

/**
 * A launch the stream announced (a deploy just confirmed, on any instance of the service): drawn at the top.
 * @param {Launch} launch
 */
export function takeLaunch(launch) {
  keep(launch)
  renderLaunches()
  byId('launches-status').textContent = `New: ${launch.symbol} (${launch.name}) is confirmed.`
}
