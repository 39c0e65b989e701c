// Talking to the service: the room (streamed, or polled while the stream is down), the charts and the status; the
// header's freshness and the error banner.
import { renderSparklines, renderVolumeChart } from './charts.js'
import { keepingFocus } from './focus.js'
import { isLive, startLive } from './live.js'
import { byId, REFRESH_MS, STALE_AFTER_SECONDS, state } from './state.js'
import { renderSummary, renderTable, renderTrending } from './table.js'

/**
 * A GET that revalidates with the ETag every time (a 304 reuses the body the browser holds).
 * @param {string} path
 * @returns {Promise<Response>}
 */
export const getJson = (path) => fetch(path, { cache: 'no-cache', headers: { accept: 'application/json' } })

/**
 * The header: how old the data is (by the server's X-Data-Age, so a wrong device clock does not matter), and whether
 * it is stale or from the failover source.
 */
export function renderFreshness() {
  if (!state.data) return
  const { served } = state
  const seconds =
    served.ageSeconds === null
      ? Math.max(0, Math.round((Date.now() - state.data.stats.ts) / 1000))
      : served.ageSeconds + Math.round((Date.now() - served.receivedAt) / 1000)
  const el = byId('updated')
  el.textContent = `updated ${seconds} s ago`
  el.title = new Date(state.data.stats.ts).toLocaleString()
  const notes = []
  // A stale body past one 30 s window is normal while the next refresh runs; past two, the upstream is not answering.
  // Live, a new body comes each window while refreshes work: none for two windows says the same.
  if ((served.state === 'stale' || isLive()) && seconds > STALE_AFTER_SECONDS) notes.push('stale: upstream not answering')
  if (served.source === 'geckoterminal') notes.push('via GeckoTerminal (failover)')
  const badge = byId('data-state')
  badge.textContent = notes.join(' · ')
  badge.hidden = notes.length === 0
}

/**
 * Shows the error banner (keeping the last data on screen), or hides it with null.
 * @param {string | null} message
 */
function showError(message) {
  const el = byId('error')
  if (message !== null) revealMain()
  if (message === null) {
    el.hidden = true
    el.textContent = ''
    return
  }
  el.hidden = false
  el.textContent = state.data ? `${message} Showing the last data received; retrying every 30 s.` : `${message} Retrying every 30 s.`
}

/**
 * What went wrong, from an error body `{ error, code }` when there is one.
 * @param {Response} response
 * @returns {Promise<string>}
 */
async function describeFailure(response) {
  try {
    const body = await response.json()
    if (body && typeof body.error === 'string') return `Market data unavailable: ${body.error} (${body.code ?? response.status})`
  } catch {
    // not JSON
  }
  return `Market data unavailable (HTTP ${response.status}).`
}

/** Asks for the room and redraws what changed (nothing when the ETag is the same). */
async function loadRoom() {
  try {
    // The first request is the one index.html preloads (it starts with the CSS and the scripts): it must be asked
    // for exactly as preloaded (default cache mode, no extra headers) to be reused, else it is fetched twice.
    const response = state.loads.first ? await fetch('/api/control-room') : await getJson('/api/control-room')
    state.loads.first = false
    if (!response.ok) return showError(await describeFailure(response))
    // The same ETag is the same body: keep the rows (and the keyboard focus on them), update only the freshness.
    const etag = response.headers.get('etag')
    const changed = !etag || etag !== state.loads.etags.room || !state.data
    if (changed) state.data = await response.json()
    state.loads.etags.room = etag
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
    if (changed) renderRoom()
    renderFreshness()
  } catch {
    showError('Market data unavailable: the service could not be reached.')
  }
}

/**
 * The New launches panel's module, loaded once the room is drawn (the panel is below it): the first paint waits for
 * nothing of it.
 * @returns {Promise<typeof import('./launches.js')>}
 */
const launchPanel = () => import('./launches.js')

/**
 * Calls `listener` with each new room once it is drawn, streamed or polled (the token page, whose open candle follows
 * the price).
 * @param {(room: import('./state.js').ControlRoom) => void} listener
 */
export const onRoomDrawn = (listener) => void state.roomListeners.push(listener)

/**
 * Shows what the page holds back until the first room lands (index.html's `data-loading`): the summary card's figures
 * and every section under it. They appear where they are laid out, in the same frame as the commentary: nothing moves.
 */
export function revealMain() {
  document.querySelector('main')?.removeAttribute('data-loading')
}

/** Redraws the stats, the trending list and the table from the room in `state`, keeping the keyboard focus. */
function renderRoom() {
  keepingFocus(() => {
    renderSummary()
    renderTrending()
    renderTable()
    if (state.data) revealMain()
  })
  const room = state.data
  if (room) for (const listener of state.roomListeners) listener(room)
}

/**
 * A room the stream sent: drawn at once when it is new, then the charts and the status follow; no request for the
 * room. A body sent as it changed is fresh; the first after a (re)connect may be older, and its age is then told by
 * its own timestamp.
 * @param {import('./state.js').ControlRoom} room
 * @param {string} id
 * @param {boolean} first
 */
function takeStreamedRoom(room, id, first) {
  const etag = `"${id}"`
  if (etag === state.loads.etags.room && state.data) return
  state.data = room
  state.loads.etags.room = etag
  // The body says which upstream served it by its links: GeckoTerminal's when the service failed over.
  const source = room.liveActivity[0]?.pairUrl?.includes('geckoterminal.com') ? 'geckoterminal' : 'dexscreener'
  state.served = { state: 'fresh', source, ageSeconds: first ? null : 0, receivedAt: Date.now() }
  showError(null)
  renderRoom()
  renderFreshness()
  void loadHistory().finally(() => void loadHealth())
}

/** One more load in 5 s (at most one waiting). */
function scheduleCatchUp() {
  if (state.loads.catchUp) return
  state.loads.catchUp = setTimeout(() => {
    state.loads.catchUp = 0
    void loadAll()
  }, 5000)
}

/** Asks for every chart at once and redraws them when the body changed. */
async function loadHistory() {
  try {
    const response = await getJson('/api/market-history')
    if (!response.ok) return
    const etag = response.headers.get('etag')
    if (etag && etag === state.loads.etags.history && state.history) return
    state.history = await response.json()
    state.loads.etags.history = etag
  } catch {
    return // the charts keep what they showed; the table does not depend on them
  }
  renderVolumeChart()
  renderSparklines()
}

/** The footer's service status, from the public part of /api/health. */
async function loadHealth() {
  const el = byId('health')
  try {
    const response = await fetch('/api/health', { headers: { accept: 'application/json' } })
    const body = await response.json()
    const age = typeof body.dataAgeSeconds === 'number' ? `, data ${body.dataAgeSeconds} s old` : ''
    el.textContent = `service ${body.ok ? 'up' : 'degraded'} (v${body.version}${age})`
  } catch {
    el.textContent = 'service status unavailable'
  }
}

/**
 * The room first (it writes the snapshot the charts read), then the charts and the launches; the footer's status
 * follows each load.
 * @returns {Promise<void>}
 */
export const loadAll = () =>
  loadRoom()
    .then(() => Promise.all([loadHistory(), launchPanel().then((panel) => panel.loadLaunches())]))
    .then(() => undefined)
    .finally(() => void loadHealth())

/**
 * Loads now, then listens to the stream; while the stream is down, polls every 30 s while the page is shown, and a
 * tab in the background catches up as soon as it is shown. Answers the first load.
 * @returns {Promise<void>}
 */
export function startPolling() {
  const first = loadAll()
  startLive(
    takeStreamedRoom,
    (launch) => void launchPanel().then((panel) => panel.takeLaunch(launch)),
    (trade) => void import('./tokenFacts.js').then((facts) => facts.takeTrade(trade)),
  )
  setInterval(() => document.visibilityState === 'visible' && !isLive() && void loadAll(), REFRESH_MS)
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && !isLive() && Date.now() - state.served.receivedAt > REFRESH_MS) void loadAll()
  })
  setInterval(renderFreshness, 1000)
  return first
}
