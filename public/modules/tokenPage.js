// The token page (a dialog a link can open, `#/token/0x…`): the token's candles and volume, its facts, its links, and
// its 24 h charts. Opened from a row, a trending entry, a search result, a launch or a link.
import { closeDialog, dialogIsOpen, showDialog, wireDialog } from './dialog.js'
import { leaveTokenRoute, onRouteChange, routedToken, routeToToken } from './route.js'
import { byId, state } from './state.js'
import { fieldRows, launchOf, link } from './tokenFacts.js'
import { forgetTokenHistory, showTokenHistory } from './tokenHistory.js'

/** @typedef {import('./state.js').Token} Token */

const EXPLORER = 'https://basescan.org'
/** The timeframes the page's buttons offer. */
const FRAMES = ['5m', '15m', '1h', '4h', '1d']

/**
 * The candles module, loaded with the first token page (it loads the chart library in turn): the dashboard's first
 * load carries neither.
 * @returns {Promise<typeof import('./candles.js')>}
 */
const candles = () => {
  state.tokenPage.candlesModule ??= import('./candles.js')
  return state.tokenPage.candlesModule
}

/**
 * Opens the token page of this address, from the control the user chose (null: a link opened it). What the page
 * shows of the token comes from the room when it is in the top 100, else from `known` (a search's row, a launch).
 * @param {string} address
 * @param {HTMLElement | null} from
 * @param {{ token?: Token }} [known]
 */
export function openTokenPage(address, from, known = {}) {
  address = address.toLowerCase()
  const token = state.data?.liveActivity.find((t) => t.address === address) ?? known.token ?? null
  const launch = launchOf(address)
  const page = state.tokenPage
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
  forgetTokenPowers()
  // A launch's powers now (who can mint, its cap, what the service holds, its fees) come after, from the chain.
  if (launch?.status === 'confirmed') void import('./tokenPowers.js').then((powers) => powers.showTokenPowers(address))
  routeToToken(address)
  showDialog(from)
  // A launch not yet trading has no pool to chart: no request, and the page says so.
  if (!token && launch && !launch.market) void candles().then((c) => c.showNoCandles('No candles yet: the token does not trade yet.'))
  else if (changed || !byId('candle-chart').hasChildNodes()) void candles().then((c) => c.showCandles(address, page.frame))
  void showTokenHistory(address)
}

/**
 * A room the page has just drawn: the open token's candle still open closes at its new price.
 * @param {import('./state.js').ControlRoom} room
 */
export function showRoomOnTokenPage(room) {
  const address = state.tokenPage.address
  if (!address || !dialogIsOpen()) return
  const token = room.liveActivity.find((t) => t.address === address)
  if (token) void state.tokenPage.candlesModule?.then((c) => c.takeLivePrice(address, token.priceUsd, room.stats.ts))
}

/** Drops a launch's powers still on their way (the page closed, or another opened), and the warning shown. */
function forgetTokenPowers() {
  state.tokenPage.powersRequest++
  byId('detail-warning').hidden = true
}

/** After the page closed: drops a chart answer still on its way, and takes the token out of the URL. */
function onTokenPageClosed() {
  forgetTokenHistory()
  forgetTokenPowers()
  state.tokenPage.address = null
  void state.tokenPage.candlesModule?.then((c) => c.closeCandles())
  leaveTokenRoute()
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
 * dialog's ways out or Back; its timeframe buttons switch the candles.
 */
export function wireTokenPage() {
  byId('tokens')
    .querySelector('tbody')
    ?.addEventListener('click', (event) => {
      const chosen = chosenToken(event, 'tr[data-address]')
      if (chosen) openTokenPage(chosen.address, chosen.button)
    })
  byId('search-results')
    .querySelector('tbody')
    ?.addEventListener('click', (event) => {
      const chosen = chosenToken(event, 'tr[data-address]')
      if (chosen) openTokenPage(chosen.address, chosen.button, { token: state.found.find((t) => t.address === chosen.address) })
    })
  for (const list of ['trending', 'launches'])
    byId(list).addEventListener('click', (event) => {
      const chosen = chosenToken(event, 'button[data-address]')
      if (chosen) openTokenPage(chosen.address, chosen.button)
    })
  byId('candle-frames').addEventListener('click', (event) => {
    const frame = /** @type {HTMLElement} */ (event.target).closest('button')?.dataset.frame
    const address = state.tokenPage.address
    if (frame && FRAMES.includes(frame) && address) {
      state.tokenPage.frame = frame
      const launch = launchOf(address)
      if (!state.data?.liveActivity.some((t) => t.address === address) && launch && !launch.market) return
      void candles().then((c) => c.showCandles(address, frame))
    }
  })
  wireDialog(onTokenPageClosed)
  onRouteChange((address) => {
    if (address && address !== state.tokenPage.address) openTokenPage(address, null)
    else if (!address && dialogIsOpen()) closeDialog()
  })
}

/** Opens the page the URL names, once the room is there to describe it (a link to `#/token/0x…` from elsewhere). */
export function openRoutedToken() {
  const address = routedToken()
  if (address && address !== state.tokenPage.address) openTokenPage(address, null)
}
