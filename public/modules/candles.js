// The token page's candles: TradingView's lightweight-charts (Apache-2.0), loaded only when a token page opens, drawing
// /api/token-ohlcv's candles and volume; the candle still open follows the price each new room brings.
import { price, usd } from './format.js'
import { byId, state } from './state.js'

/** @typedef {import('./state.js').TokenOhlcv} TokenOhlcv */
/** @typedef {typeof import('lightweight-charts')} Charts */
/** @typedef {import('./state.js').Bar} Bar */

/** The library's own file, served as its package ships it (a test holds it byte for byte). */
const LIBRARY_URL = '/vendor/lightweight-charts.standalone.production.mjs'

/** @typedef {{ timeframe: 'minute' | 'hour' | 'day', aggregate: number, limit: number, seconds: number }} Frame */

/** @type {Frame} */
const HOURLY = { timeframe: 'hour', aggregate: 1, limit: 168, seconds: 3600 }

/**
 * The timeframes a trader picks from: GeckoTerminal's sizes, and how many candles each shows (a day of 5-minute
 * candles, two of 15, a week of hours, a month of 4 hours, a year of days).
 * @type {Record<string, Frame>}
 */
export const TIMEFRAMES = {
  '5m': { timeframe: 'minute', aggregate: 5, limit: 288, seconds: 300 },
  '15m': { timeframe: 'minute', aggregate: 15, limit: 192, seconds: 900 },
  '1h': HOURLY,
  '4h': { timeframe: 'hour', aggregate: 4, limit: 180, seconds: 14_400 },
  '1d': { timeframe: 'day', aggregate: 1, limit: 365, seconds: 86_400 },
}

/**
 * The chart library, loaded once, on the first token page.
 * @returns {Promise<Charts>}
 */
function loadLibrary() {
  const page = state.tokenPage
  page.chartLibrary ??= /** @type {Promise<Charts>} */ (import(LIBRARY_URL)).catch((error) => {
    page.chartLibrary = null
    throw error
  })
  return page.chartLibrary
}

/**
 * The legend: the last candle's open, high, low and close, as text a reader (and a screen reader) can see; with no
 * candle, a launch's pool's price as the service read it from the chain (it has one from the block it was born in).
 * @param {Bar | null} bar
 * @param {TokenOhlcv['meta']['pool']} [pool]
 */
function showLegend(bar, pool) {
  byId('candle-legend').textContent = bar
    ? `O ${price(bar.open)} H ${price(bar.high)} L ${price(bar.low)} C ${price(bar.close)}`
    : pool
      ? `No trade yet: the pool prices it at ${pool.priceEth} ETH${pool.priceUsd ? ` ($${pool.priceUsd})` : ''}${pool.marketCapEth ? `, a market cap of ${pool.marketCapEth} ETH` : ''}.`
      : 'No candle yet: nobody has traded in this range.'
}

/**
 * Says where the candles stand (loading, how many, or why none), in the chart's label and the note under it.
 * @param {string} note
 * @param {string} [count]
 */
function showNote(note, count = '') {
  const holder = byId('candle-chart')
  holder.dataset.candles = count
  holder.setAttribute('aria-label', `Candles and volume of the token, ${state.tokenPage.candleChart?.frame ?? ''}: ${note}`)
  byId('candle-note').textContent = note
}

/**
 * A chart in the token page's holder, dark like the page; TradingView's attribution is the page's own line under it
 * (the library's logo would inject a style the page's CSP refuses).
 * @param {Charts} charts
 */
function newChart(charts) {
  const holder = byId('candle-chart')
  holder.replaceChildren()
  const chart = charts.createChart(holder, {
    autoSize: true,
    layout: { background: { color: '#121829' }, textColor: '#9aa3bd', attributionLogo: false },
    grid: { vertLines: { color: '#1a2238' }, horzLines: { color: '#1a2238' } },
    timeScale: { timeVisible: true, secondsVisible: false, borderColor: '#2a3452' },
    rightPriceScale: { borderColor: '#2a3452' },
  })
  const candles = chart.addSeries(charts.CandlestickSeries, {
    upColor: '#22c55e',
    downColor: '#f87171',
    wickUpColor: '#22c55e',
    wickDownColor: '#f87171',
    borderVisible: false,
    priceFormat: { type: 'custom', minMove: 1e-12, formatter: (/** @type {number} */ value) => price(value) },
  })
  const volume = chart.addSeries(charts.HistogramSeries, {
    priceScaleId: '',
    priceFormat: { type: 'custom', minMove: 1, formatter: (/** @type {number} */ value) => usd(value) },
  })
  volume.priceScale().applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } })
  return { chart, candles, volume }
}

/**
 * A token outside the room has no pair link from it: the pool its candles are of is the one to link to (DexScreener's
 * page of a Base pool is its address, or a v4 pool's id). Added once, before BaseScan's link.
 * @param {TokenOhlcv} body
 */
function linkPool(body) {
  const links = byId('detail-links')
  if (links.querySelector('[data-pool]')) return
  const pool = document.createElement('a')
  pool.href = `https://dexscreener.com/base/${body.pairAddress}`
  pool.target = '_blank'
  pool.rel = 'noopener noreferrer'
  pool.dataset.pool = body.pairAddress
  const [base, quote] = [body.meta.base?.symbol, body.meta.quote?.symbol]
  const pair = base && quote ? `${base}/${quote} pool` : 'The pool'
  pool.textContent = `${pair} on ${body.dexId} (DexScreener)`
  links.prepend(pool)
}

/**
 * Shows a token's candles of a timeframe: the library (once), then its candles, oldest first as the chart takes them.
 * A token with no Base pool gets a note instead.
 * @param {string} address
 * @param {string} frame one of {@link TIMEFRAMES}
 */
export async function showCandles(address, frame) {
  const load = ++state.tokenPage.candleLoads
  const size = TIMEFRAMES[frame] ?? HOURLY
  for (const button of byId('candle-frames').querySelectorAll('button'))
    button.setAttribute('aria-pressed', String(button.dataset.frame === frame))
  showNote('Loading candles…')
  try {
    const query = `address=${address}&timeframe=${size.timeframe}&aggregate=${size.aggregate}&limit=${size.limit}`
    const [charts, response] = await Promise.all([
      loadLibrary(),
      fetch(`/api/token-ohlcv?${query}`, { headers: { accept: 'application/json' } }),
    ])
    if (load !== state.tokenPage.candleLoads) return
    const page = state.tokenPage
    if (!page.candleChart || page.candleChart.address !== address) page.candleChart = { ...newChart(charts), address, frame, last: null }
    const shown = page.candleChart
    shown.frame = frame
    if (!response.ok) {
      shown.candles.setData([])
      shown.volume.setData([])
      shown.last = null
      showLegend(null)
      return showNote(
        response.status === 404 ? 'No candles: no Base pool is known for this token yet.' : 'Candles unavailable right now.',
        '0',
      )
    }
    const body = /** @type {TokenOhlcv} */ (await response.json())
    if (load !== state.tokenPage.candleLoads) return
    linkPool(body)
    const rows = [...body.ohlcv].reverse()
    shown.candles.setData(
      rows.map(([time, open, high, low, close]) => ({
        time: /** @type {import('lightweight-charts').UTCTimestamp} */ (time),
        open,
        high,
        low,
        close,
      })),
    )
    shown.volume.setData(
      rows.map(([time, open, , , close, volume]) => ({
        time: /** @type {import('lightweight-charts').UTCTimestamp} */ (time),
        value: volume,
        color: close >= open ? 'rgba(34, 197, 94, 0.45)' : 'rgba(248, 113, 113, 0.45)',
      })),
    )
    shown.chart.timeScale().fitContent()
    const last = rows.at(-1)
    shown.last = last ? { time: last[0], open: last[1], high: last[2], low: last[3], close: last[4] } : null
    showLegend(shown.last, body.meta.pool)
    showNote(
      `${rows.length} candles of ${frame}, newest ${last ? new Date(last[0] * 1000).toISOString().slice(0, 16).replace('T', ' ') : '–'} UTC; intervals without trades have none.`,
      String(rows.length),
    )
  } catch {
    if (load === state.tokenPage.candleLoads) showNote('Candles unavailable: the service could not be reached.', '0')
  }
}

/**
 * A new price of the token on screen (from a room the stream sent): the candle still open closes at it, and a new
 * candle opens at it when its interval has begun. Nothing else on the chart moves.
 * @param {string} address
 * @param {string | null} priceUsd
 * @param {number} atMs when the price was fetched (the room's `stats.ts`: the service's clock, not the device's)
 */
export function takeLivePrice(address, priceUsd, atMs) {
  const shown = state.tokenPage.candleChart
  if (!shown || shown.address !== address || priceUsd === null) return
  const close = Number(priceUsd)
  if (!Number.isFinite(close) || close <= 0) return
  const seconds = TIMEFRAMES[shown.frame]?.seconds ?? 3600
  const open = Math.floor(atMs / 1000 / seconds) * seconds
  const last = shown.last
  const bar =
    last && last.time >= open
      ? { ...last, high: Math.max(last.high, close), low: Math.min(last.low, close), close }
      : {
          time: open,
          open: last?.close ?? close,
          high: Math.max(last?.close ?? close, close),
          low: Math.min(last?.close ?? close, close),
          close,
        }
  shown.candles.update({ ...bar, time: /** @type {import('lightweight-charts').UTCTimestamp} */ (bar.time) })
  shown.last = bar
  showLegend(bar)
  byId('candle-legend').dataset.live = 'true'
}

/**
 * Shows no chart, and why (a token known not to trade yet).
 * @param {string} why
 */
export function showNoCandles(why) {
  closeCandles()
  showLegend(null)
  showNote(why, '0')
}

/** Forgets the chart when the token page closes (the next page draws its own). */
export function closeCandles() {
  const page = state.tokenPage
  page.candleLoads++
  page.candleChart?.chart.remove()
  page.candleChart = null
  byId('candle-chart').replaceChildren()
  delete byId('candle-legend').dataset.live
}
