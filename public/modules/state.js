// The page's state: what it holds between requests and events (the one place it is kept), and the types of the
// answers it reads (the service's own schemas).

/** @typedef {import('../../lib/market/types.js').ControlRoom} ControlRoom */
/** @typedef {import('../../lib/market/types.js').Token} Token */
/** @typedef {import('../../lib/market/types.js').MarketHistoryBody} MarketHistory */
/** @typedef {import('../../lib/market/types.js').TokenHistory} TokenHistory */
/** @typedef {import('../../lib/market/types.js').TokenSearchResult} TokenSearchResult */
/** @typedef {import('../../lib/market/types.js').TokenOhlcv} TokenOhlcv */
/** @typedef {import('../../lib/launches/schema.js').Launch} Launch */
/** @typedef {import('../../lib/launches/schema.js').LaunchesPage} LaunchesPage */
/** @typedef {import('../../lib/launches/schema.js').LaunchDetail} LaunchDetail */
/** @typedef {import('../../lib/launches/tradeEvents.js').TradeEvent} Trade */
/** @typedef {{ state: string | null, source: string | null, ageSeconds: number | null, receivedAt: number }} Served */

/** How often the page polls the room while it is shown (the server's cache window). */
export const REFRESH_MS = 30_000
/** Age past which stale data is called stale in the header (two cache windows). */
export const STALE_AFTER_SECONDS = 60

/** @typedef {import('lightweight-charts').IChartApi} ChartApi */
/** @typedef {{ time: number, open: number, high: number, low: number, close: number }} Bar */

/**
 * The chart on a token page: the chart, its two series, the token, the timeframe, and the candle still open (the live
 * one).
 * @typedef {{ chart: ChartApi, candles: import('lightweight-charts').ISeriesApi<'Candlestick'>, volume: import('lightweight-charts').ISeriesApi<'Histogram'>, address: string, frame: string, last: Bar | null }} CandleChart
 */

/**
 * Everything the page holds between requests and events, each part named for what reads it. No other script keeps a
 * module-level variable or an object it changes (tests/dashboard/layout.test.ts holds that).
 * @typedef {object} PageState
 * @property {ControlRoom | null} data The room on screen.
 * @property {MarketHistory | null} history The charts on screen (every token's 24 h line, the volume chart).
 * @property {Token[]} found The last search's rows.
 * @property {{ list: Launch[], byAddress: Map<string, Launch>, etag: string | null }} launches The launches heard of:
 *   newest first, by lower-case address, and the ETag of the last page of them drawn.
 * @property {Map<string, Trade>} trades The last trade the stream told of each launched token, by lower-case address.
 * @property {string} sortKey The column the table is sorted by.
 * @property {1 | -1} sortDir The table's order: 1 smallest first, -1 largest first.
 * @property {Served} served How the room on screen was served (its state, source and age, and when it arrived).
 * @property {{ first: boolean, etags: { room: string | null, history: string | null }, catchUp: number }} loads The
 *   room's and charts' loads: whether the next is the first (the one index.html preloads), the ETags of the bodies on
 *   screen, and the timer of a catch-up load waiting (0: none).
 * @property {((room: ControlRoom) => void)[]} roomListeners Who is told of each new room drawn.
 * @property {boolean} live Whether the stream delivers (the page then does not poll).
 * @property {boolean} tableInView Whether the top-100 table has come near the screen (its rows are built from then on).
 * @property {TokenPageState} tokenPage The token page.
 */

/**
 * The token page: which token is open and in which timeframe, what opened it, whether the URL names it because this
 * page put it there, its charts' requests, and its candles.
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
 * @property {number} powersRequest Counts the pages a launch's powers were asked for, so an answer for a page closed or
 *   reopened is dropped.
 * @property {Promise<typeof import('./candles.js')> | null} candlesModule The candles module, once the first token page
 *   asked for it.
 * @property {Promise<typeof import('lightweight-charts')> | null} chartLibrary The chart library, once the candles
 *   asked for it (null again after a failed load, so the next page tries again).
 * @property {CandleChart | null} candleChart The candles on screen.
 * @property {number} candleLoads Counts candle loads, so an answer for a token or timeframe no longer shown is dropped.
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
  launches: { list: [], byAddress: new Map(), etag: null },
  trades: new Map(),
  sortKey: 'rank',
  sortDir: 1,
  served: { state: null, source: null, ageSeconds: null, receivedAt: 0 },
  loads: { first: true, etags: { room: null, history: null }, catchUp: 0 },
  roomListeners: [],
  live: false,
  tableInView: false,
  tokenPage: {
    address: null,
    frame: '1h',
    opener: null,
    pushed: false,
    historyRequest: 0,
    powersRequest: 0,
    candlesModule: null,
    chartLibrary: null,
    candleChart: null,
    candleLoads: 0,
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
