// What the token page lists of a token: its 24 fields from the control room (or a search), else its launch's facts (an
// agent's words and URLs, as text; a URL is a link only when it is https), else a note that the service knows no more
// than the address.
import { count, percent, usd } from './format.js'
import { state } from './state.js'

/** @typedef {import('./state.js').Token} Token */
/** @typedef {import('./state.js').Launch} Launch */

/**
 * The 24 fields of a token, with labels and how to show them.
 * @type {readonly [keyof Token, string, (value: unknown) => string][]}
 */
const FIELDS = [
  ['rank', 'Rank', (v) => `#${v}`],
  ['symbol', 'Symbol', String],
  ['name', 'Name', String],
  ['address', 'Token address', String],
  ['priceUsd', 'Price (USD)', (v) => (v === null ? '–' : `$${v}`)],
  ['priceChange5m', 'Change 5m', percent],
  ['priceChange1h', 'Change 1h', percent],
  ['priceChange6h', 'Change 6h', percent],
  ['priceChange24h', 'Change 24h', percent],
  ['volume1h', 'Volume 1h', usd],
  ['volume6h', 'Volume 6h', usd],
  ['volume24h', 'Volume 24h', usd],
  ['liquidity', 'Liquidity', usd],
  ['marketCap', 'Market cap', usd],
  ['fdv', 'FDV', usd],
  ['buys1h', 'Buys 1h', count],
  ['sells1h', 'Sells 1h', count],
  ['buys24h', 'Buys 24h', count],
  ['sells24h', 'Sells 24h', count],
  ['pairAddress', 'Pair address', (v) => String(v ?? '–')],
  [
    'pairCreatedAt',
    'Pair created',
    (v) => (typeof v === 'number' ? `${new Date(v).toISOString().replace('T', ' ').slice(0, 16)} UTC` : '–'),
  ],
  ['pairUrl', 'Pair page', String],
  ['dexId', 'DEX', String],
  ['pairName', 'Pair', String],
]

/**
 * The facts of a launch as the token page lists them: label, value, and for a URL whether it may be a link (https).
 * @param {Launch} launch
 * @returns {[field: string, label: string, value: string, href?: string][]}
 */
function launchFacts(launch) {
  /** @type {[string, string, string, string?][]} */
  const facts = [
    ['status', 'Status', launch.status === 'confirmed' ? 'confirmed' : 'pending (sent, not yet seen mined)'],
    ['address', 'Token address', launch.address],
    ['variant', 'Variant', `${launch.variant}, ${launch.decimals} decimals`],
    ['initialSupply', 'Initial supply', launch.initialSupply ?? 'none'],
    ['supplyCap', 'Supply cap', launch.supplyCap ?? 'none'],
    ['createdAt', 'Deployed', `${launch.createdAt.replace('T', ' ').slice(0, 16)} UTC`],
    ['txHash', 'Transaction', launch.txHash],
  ]
  if (launch.metadata?.description) facts.push(['description', 'Description', launch.metadata.description])
  for (const [field, label] of /** @type {const} */ ([
    ['website', 'Website'],
    ['image', 'Image'],
  ])) {
    const url = launch.metadata?.[field]
    if (url) facts.push([field, label, url, isHttps(url) ? url : undefined])
  }
  // Who holds which role, as the creation set them: who can mint more is what a buyer most needs to know.
  facts.push(['minter', 'Who can mint', launch.roles.minter ?? 'nobody, ever'])
  facts.push(['admin', 'Admin', launch.roles.admin ?? 'nobody, ever'])
  if (launch.pool) {
    facts.push([
      'pool',
      'Pool',
      `Uniswap v4, ETH pair, ${launch.pool.fee / 10_000} % fee: ${launch.pool.poolId}. Nothing is locked: the position's owner can withdraw it.`,
    ])
    facts.push(['owner', 'Position owner', launch.pool.owner])
    facts.push([
      'start',
      'Start price',
      `${launch.pool.startPriceEth} ETH a token · market cap ${launch.pool.startMarketCapEth} ETH (as the pool was born)`,
    ])
    facts.push(['trade', 'Trade', 'Trade it on Uniswap', uniswapUrl(launch.address)])
  }
  const { market } = launch
  if (market?.source === 'chain')
    facts.push([
      'market',
      'Market (from the chain)',
      [
        `${market.priceEth ?? '–'} ETH${market.priceUsd ? ` ($${market.priceUsd})` : ''}`,
        market.marketCapEth ? `market cap ${market.marketCapEth} ETH` : '',
        market.liquidity === null ? '' : `in-range liquidity ${market.liquidity}`,
        `${market.trades24h ?? 0} trades, ${market.volume24hEth ?? '0'} ETH in 24 h`,
        market.lastTradeAt ? `last ${market.lastTradeAt.replace('T', ' ').slice(0, 16)} UTC` : 'no trade yet',
      ]
        .filter(Boolean)
        .join(' · '),
    ])
  else if (market)
    facts.push([
      'market',
      'Market',
      `${market.dexId} pool ${market.pairAddress ?? ''}`,
      isHttps(market.pairUrl) ? market.pairUrl : undefined,
    ])
  const trade = state.trades.get(launch.address.toLowerCase())
  if (trade) facts.push(['lastTrade', 'Last trade', tradeText(trade)])
  return facts
}

/**
 * A trade as the token page says it.
 * @param {import('./state.js').Trade} trade
 * @returns {string}
 */
const tradeText = (trade) =>
  `${trade.side} of ${trade.amountToken} for ${trade.amountEth} ETH, at ${trade.priceEth} ETH (block ${trade.blockNumber})`

/**
 * Keeps a trade the stream told of, and shows it on the token page when that token's page is open (live, no request).
 * @param {import('./state.js').Trade} trade
 */
export function takeTrade(trade) {
  const address = trade.token.toLowerCase()
  state.trades.set(address, trade)
  if (state.tokenPage.address !== address) return
  const shown = document.querySelector('#detail-fields dd[data-field="lastTrade"]')
  if (shown) shown.textContent = tradeText(trade)
  else if (launchOf(address)) {
    const [row] = fieldRows(null, null, [['lastTrade', 'Last trade', tradeText(trade)]])
    if (row) document.getElementById('detail-fields')?.append(row)
  }
}

/**
 * Where a launched token trades: Uniswap's app on Base, buying it with ETH (the pool's pair). The address is the
 * service's own (checked by the feed's schema), never an agent's text.
 * @param {string} address
 * @returns {string}
 */
export const uniswapUrl = (address) =>
  `https://app.uniswap.org/swap?chain=base&inputCurrency=NATIVE&outputCurrency=${encodeURIComponent(address)}`

/**
 * Whether a URL is https (the only kind an agent's URL is linked as).
 * @param {string} url
 * @returns {boolean}
 */
function isHttps(url) {
  try {
    return new URL(url).protocol === 'https:'
  } catch {
    return false
  }
}

/**
 * The launch of a token, if the page has heard of it (the New launches panel, or the stream).
 * @param {string} address
 * @returns {Launch | null}
 */
export const launchOf = (address) => state.launches.byAddress.get(address.toLowerCase()) ?? null

/**
 * A link that opens in a new tab and tells the other site nothing.
 * @param {string} href
 * @param {string} text
 * @returns {HTMLAnchorElement}
 */
export function link(href, text) {
  const a = document.createElement('a')
  a.href = href
  a.target = '_blank'
  a.rel = 'noopener noreferrer'
  a.textContent = text
  return a
}

/**
 * The fields of the page: the token's 24 from a room or a search, else its launch's facts (a URL an agent wrote is a
 * link only when it is https), else a note that the service knows no more than the address.
 * @param {Token | null} token
 * @param {Launch | null} launch
 * @param {[string, string, string, string?][]} [only] These rows instead (a row added to an open page)
 * @returns {HTMLElement[]}
 */
export function fieldRows(token, launch, only) {
  /** @type {[string, string, string, string?][]} */
  const rows =
    only ??
    (token
      ? FIELDS.map(([key, label, format]) => [key, label, format(token[key])])
      : launch
        ? launchFacts(launch)
        : [['note', 'Top 100', 'Not in the top 100 right now: the candles above are its most liquid Base pool’s.']])
  return rows.map(([key, label, value, href]) => {
    const row = document.createElement('div')
    const dt = document.createElement('dt')
    dt.textContent = label
    const dd = document.createElement('dd')
    if (href) dd.append(link(href, value))
    else dd.textContent = value
    dd.dataset.field = key
    row.append(dt, dd)
    return row
  })
}
