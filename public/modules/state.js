// What the page holds between requests, and the types of the answers it reads (the service's own schemas).

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
 * The page's data: the room and the charts on screen, the last search's rows, the launches heard of (newest first, and
 * by lower-case address), the table's order, and how the room was served.
 * @type {{ data: ControlRoom | null, history: MarketHistory | null, found: Token[], launches: { list: Launch[], byAddress: Map<string, Launch> }, sortKey: string, sortDir: 1 | -1, served: Served }}
 */
export const state = {
  data: null,
  history: null,
  found: [],
  launches: { list: [], byAddress: new Map() },
  sortKey: 'rank',
  sortDir: 1,
  served: { state: null, source: null, ageSeconds: null, receivedAt: 0 },
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
