// Live updates over Server-Sent Events: each new room arrives as the service makes it, with no request for it.
// Polling takes over only while the stream is down (refused, or no EventSource), and the stream is tried again later.
import { byId, state } from './state.js'

/** How long after the service refused the stream (429, 503) it is tried again; the page polls meanwhile. */
const RETRY_REFUSED_MS = 60_000

/** True while the stream delivers: the page then does not poll. */
export const isLive = () => state.live

/**
 * Shows whether the page is live or polling.
 * @param {'live' | 'polling'} mode
 */
function showMode(mode) {
  const el = byId('live')
  el.dataset.mode = mode
  el.textContent = mode === 'live' ? 'live' : 'polling'
  el.title = mode === 'live' ? 'New data arrives as the service gets it' : 'The live stream is not available: the page asks every 30 s'
}

/**
 * Opens the stream. `onRoom` gets each body the stream sends (the same JSON as GET /api/control-room), with its id
 * (the body's ETag without quotes) and whether it is the first since the stream (re)connected; `onLaunch` each launch
 * the service announces confirmed (the same JSON as an entry of GET /api/launches).
 * @param {(room: import('./state.js').ControlRoom, id: string, first: boolean) => void} onRoom
 * @param {(launch: import('./state.js').Launch) => void} onLaunch
 * @param {(trade: import('./state.js').Trade) => void} onTrade each swap on a launched token's pool, within seconds
 */
export function startLive(onRoom, onLaunch, onTrade) {
  if (typeof EventSource === 'undefined') return showMode('polling')
  const connect = () => {
    const source = new EventSource('/api/stream')
    let first = true
    source.addEventListener('open', () => {
      state.live = true
      first = true
      showMode('live')
    })
    source.addEventListener('control-room', (event) => {
      onRoom(JSON.parse(/** @type {MessageEvent<string>} */ (event).data), /** @type {MessageEvent} */ (event).lastEventId, first)
      first = false
    })
    source.addEventListener('launch', (event) => onLaunch(JSON.parse(/** @type {MessageEvent<string>} */ (event).data)))
    source.addEventListener('trade', (event) => onTrade(JSON.parse(/** @type {MessageEvent<string>} */ (event).data)))
    source.addEventListener('error', () => {
      state.live = false
      showMode('polling')
      // A stream that ended reconnects by itself; one the service refused stays closed: try again later.
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, RETRY_REFUSED_MS)
    })
  }
  connect()
}
