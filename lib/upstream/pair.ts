/** A DexScreener pair after tolerant parsing: every optional upstream field is present, as a value or null. */
export type Pair = {
  chainId: string
  dexId: string | null
  url: string | null
  pairAddress: string | null
  baseToken: { address: string; name: string | null; symbol: string | null }
  quoteToken: { address: string | null; name: string | null; symbol: string | null }
  priceUsd: string | null
  txns: { h1: TxnCount; h24: TxnCount }
  volume: { h1: number | null; h6: number | null; h24: number | null }
  priceChange: { m5: number | null; h1: number | null; h6: number | null; h24: number | null }
  liquidityUsd: number | null
  fdv: number | null
  marketCap: number | null
  pairCreatedAt: number | null
}

/** Buy and sell counts of one window. */
export type TxnCount = { buys: number | null; sells: number | null }

const finite = (value: unknown): number | null => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  return typeof n === 'number' && Number.isFinite(n) ? n : null
}

type JsonObject = Record<string, unknown>
const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v)
/** Anything that is not an object reads as `{}`, so a reshaped sub-object never fails the pair. */
const objectOr = (v: unknown): JsonObject => (isObject(v) ? v : {})
const looseString = (v: unknown): string | null => (typeof v === 'string' ? v : null)
/** A decimal price as upstream sends it; numbers are turned into their shortest string. */
const loosePrice = (v: unknown): string | null => {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? String(v) : null
  if (typeof v !== 'string') return null
  const s = v.trim()
  return /^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(s) && Number.isFinite(Number(s)) ? s : null
}
const txnCount = (v: unknown): TxnCount => {
  const o = objectOr(v)
  return { buys: finite(o.buys), sells: finite(o.sells) }
}

/**
 * Parses one upstream pair, or returns null when it lacks what identifies it (chain, base token address). Every
 * other field is tolerant: missing, null, mistyped or reshaped reads as null. Hand-written rather than a schema
 * library: a refresh parses thousands of pairs, and this is the hot part of it.
 */
export function parsePair(raw: unknown): Pair | null {
  if (!isObject(raw) || typeof raw.chainId !== 'string' || !isObject(raw.baseToken) || typeof raw.baseToken.address !== 'string')
    return null
  const base = raw.baseToken
  const quote = objectOr(raw.quoteToken)
  const txns = objectOr(raw.txns)
  const volume = objectOr(raw.volume)
  const change = objectOr(raw.priceChange)
  return {
    chainId: raw.chainId,
    dexId: looseString(raw.dexId),
    url: looseString(raw.url),
    pairAddress: looseString(raw.pairAddress),
    baseToken: { address: base.address as string, name: looseString(base.name), symbol: looseString(base.symbol) },
    quoteToken: { address: looseString(quote.address), name: looseString(quote.name), symbol: looseString(quote.symbol) },
    priceUsd: loosePrice(raw.priceUsd),
    txns: { h1: txnCount(txns.h1), h24: txnCount(txns.h24) },
    volume: { h1: finite(volume.h1), h6: finite(volume.h6), h24: finite(volume.h24) },
    priceChange: { m5: finite(change.m5), h1: finite(change.h1), h6: finite(change.h6), h24: finite(change.h24) },
    liquidityUsd: finite(objectOr(raw.liquidity).usd),
    fdv: finite(raw.fdv),
    marketCap: finite(raw.marketCap),
    pairCreatedAt: finite(raw.pairCreatedAt),
  }
}

/**
 * Reads the pairs out of any DexScreener pairs answer: a bare array (`/tokens/v1`, `/token-pairs/v1`) or
 * `{ pairs: Pair[] | null }` (`/latest/dex/...`). Elements that are not pairs are dropped one by one.
 * Returns null when the body has neither shape.
 */
export function parsePairsBody(body: unknown): Pair[] | null {
  let list: unknown
  if (Array.isArray(body)) list = body
  else if (body !== null && typeof body === 'object' && 'pairs' in body) list = (body as { pairs: unknown }).pairs ?? []
  else return null
  if (!Array.isArray(list)) return null
  const pairs: Pair[] = []
  for (const raw of list) {
    const pair = parsePair(raw)
    if (pair) pairs.push(pair)
  }
  return pairs
}
