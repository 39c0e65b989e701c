// The page's state: what it holds between requests and events (the one place it is kept), and the types of the
// answers it reads (the service's own schemas).

/** @typedef {import('../../lib/market/types.js').ControlRoom} ControlRoom */
/** @typedef {import('../../lib/market/types.js').Token} Token */
/** @typedef {import('../../lib/market/types.js').MarketHistoryBody} MarketHistory */
/** @typedef {import('../../lib/market/types.js').TokenHistory} TokenHistory */
/** @typedef {import('../../lib/market/types.js').TokenSearchResult} TokenSearchResult */
/** @typedef {import('../../lib/market/types.js').TokenOhlcv} TokenOhlcv */
/** @typedef {import('../../lib/deploy/records/launchSchema.js').Launch} Launch */
/** @typedef {import('../../lib/deploy/records/launchSchema.js').LaunchesPage} LaunchesPage */
/** @typedef {{ state: string | null, source: string | null, ageSeconds: number | null, receivedAt: number }} Served */

/** How often the page polls the room while it is shown (the server's cache window). */
export const REFRESH_MS = 30_000
/** Age past which stale data is called stale in the header (two cache windows). */
export const STALE_AFTER_SECONDS = 60

/**
 * Everything the page holds between requests and events, each part named for what reads it.
 * @typedef {object} PageState
 * @property {ControlRoom | null} data The room on screen.
 * @property {MarketHistory | null} history The charts on screen (every token's 24 h line, the volume chart).
 * @property {Token[]} found The last search's rows.
 * @property {{ list: Launch[], byAddress: Map<string, Launch> }} launches The launches heard of: newest first,
 *   and by lower-case address.
 * @property {string} sortKey The column the table is sorted by.
 * @property {1 | -1} sortDir The table's order: 1 smallest first, -1 largest first.
 * @property {Served} served How the room on screen was served (its state, source and age, and when it arrived).
 * @property {TokenPageState} tokenPage The token page.
 */

/**
 * The token page: which token is open and in which timeframe, what opened it, whether the URL names it because this
 * page put it there, its charts' requests, and its candles' module.
 * @typedef {object} TokenPageState
 * @property {string | null} address The token whose page is open, lower-case.
 * @property {string} frame The timeframe its candles are shown in (kept from one page to the next).
 * @property {{ element: HTMLElement, control: TokenControl | null } | null} opener What opened the page, to give the
 *   focus back to: the element, and which token's control it was, taken while the element was on the page (a refresh
 *   while the page is open replaces the rows and the trending entries). Null when a link opened it.
 * @property {boolean} pushed Whether this page put the token in the URL (then closing the page goes Back, so Forward
 *   reopens it).
 * @property {number} historyRequest Counts the 24 h charts' requests, so an answer for a page closed or reopened is
 *   dropped.
 * @property {Promise<typeof import('./candles.js')> | null} candlesModule The candles module, once the first token page
 *   asked for it.
 */

/** @typedef {import('./focus.js').TokenControl} TokenControl */

/**
 * The page's state (see {@link PageState}).
 * @type {PageState}
 */
export const state = {
  data: null,
  history: null,
  found: [],
  launches: { list: [], byAddress: new Map() },
  sortKey: 'rank',
  sortDir: 1,
  served: { state: null, source: null, ageSeconds: null, receivedAt: 0 },
  tokenPage: {
    address: null,
    frame: '1h',
    opener: null,
    pushed: false,
    historyRequest: 0,
    candlesModule: null,
  },
}

/**
 * The element with this id (the page's HTML has every id the modules ask for).
 * @param {string} id
 * @returns {HTMLElement}
 */
export const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id))

/**
 * The `<dialog>` with this id.
 * @param {string} id
 * @returns {HTMLDialogElement}
 */
export const dialogById = (id) => /** @type {HTMLDialogElement} */ (document.getElementById(id))
