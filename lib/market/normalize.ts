import { isPoolId } from '../upstream/fields.js'
import type { Pair } from '../upstream/pair.js'
import { canonicalDexId } from './dexIds.js'
import { NAME_MAX_LENGTH, SYMBOL_MAX_LENGTH, sanitizeText } from './sanitize.js'
import type { Token } from './types.js'

/** Web address of the upstream aggregator's pair pages, used when a pair comes without a usable `url`. */
export const PAIR_PAGE_BASE_URL = 'https://dexscreener.com/base'

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/

/** Hosts whose pair pages `pairUrl` may point to: the aggregators the data comes from. */
const AGGREGATOR_HOSTS: ReadonlySet<string> = new Set([
  'dexscreener.com',
  'www.dexscreener.com',
  'geckoterminal.com',
  'www.geckoterminal.com',
])

/** True when `value` is a 20-byte hex address in any letter case. */
export function isHexAddress(value: unknown): value is string {
  return typeof value === 'string' && HEX_ADDRESS.test(value)
}

const amount = (n: number | null): number => (n !== null && n > 0 ? n : 0)
const count = (n: number | null): number => (n !== null && n > 0 ? Math.trunc(n) : 0)

function pairCreatedAtMs(n: number | null): number | null {
  if (n === null || n <= 0) return null
  // Upstream sends epoch milliseconds; a value that can only be seconds (before 1973 as ms) is scaled up.
  return Math.trunc(n < 1e11 ? n * 1000 : n)
}

/** The upstream's page of the pair when it is an https page of an aggregator; otherwise one built from the pool. */
function pairUrl(url: string | null, pairAddress: string | null): string {
  if (url) {
    try {
      const parsed = new URL(url)
      if (
        parsed.protocol === 'https:' &&
        AGGREGATOR_HOSTS.has(parsed.hostname) &&
        parsed.port === '' &&
        !parsed.username &&
        !parsed.password
      )
        return parsed.href
    } catch {
      // fall through to the constructed address
    }
  }
  return pairAddress ? `${PAIR_PAGE_BASE_URL}/${pairAddress}` : PAIR_PAGE_BASE_URL
}

/** `0xabcd…1234`: an address short enough to stand for a token that sent no symbol. */
const shortAddress = (address: string): string => `${address.slice(0, 6)}…${address.slice(-4)}`.toLowerCase()

/** The text a token goes by: its symbol, else its name, else its short address; never empty, never `?`. */
function tokenLabel(token: Pair['quoteToken']): string {
  return (
    sanitizeText(token.symbol, SYMBOL_MAX_LENGTH) ||
    sanitizeText(token.name, SYMBOL_MAX_LENGTH) ||
    (token.address ? shortAddress(token.address) : 'unknown')
  )
}

/**
 * Turns one upstream pair into the Token it describes (its base token), with every fallback of `docs/api.md` applied (`Which pools count, and what the pool fields mean`): a
 * missing symbol or name is the other one (never `?`), `dexId` is in DexScreener's vocabulary whichever source served
 * the pair, and `pairUrl` is the aggregator's page of the pool.
 */
export function pairToToken(pair: Pair, rank: number): Token {
  const symbol = tokenLabel(pair.baseToken)
  const name = sanitizeText(pair.baseToken.name, NAME_MAX_LENGTH) || symbol
  const quoteSymbol = tokenLabel(pair.quoteToken)
  const pairAddress = isPoolId(pair.pairAddress) ? pair.pairAddress.toLowerCase() : null
  const fdv = amount(pair.fdv)
  const marketCap = amount(pair.marketCap) || fdv
  return {
    rank,
    address: pair.baseToken.address.toLowerCase(),
    name,
    symbol,
    priceUsd: pair.priceUsd,
    priceChange5m: pair.priceChange.m5,
    priceChange1h: pair.priceChange.h1,
    priceChange6h: pair.priceChange.h6,
    priceChange24h: pair.priceChange.h24,
    volume1h: amount(pair.volume.h1),
    volume6h: amount(pair.volume.h6),
    volume24h: amount(pair.volume.h24),
    liquidity: amount(pair.liquidityUsd),
    marketCap,
    fdv,
    buys1h: count(pair.txns.h1.buys),
    sells1h: count(pair.txns.h1.sells),
    buys24h: count(pair.txns.h24.buys),
    sells24h: count(pair.txns.h24.sells),
    pairAddress,
    pairCreatedAt: pairCreatedAtMs(pair.pairCreatedAt),
    pairUrl: pairUrl(pair.url, pairAddress),
    dexId: sanitizeText(pair.dexId ? canonicalDexId({ dexId: pair.dexId, pairAddress }) : null, 32) || 'unknown',
    pairName: `${symbol}/${quoteSymbol}`,
  }
}
