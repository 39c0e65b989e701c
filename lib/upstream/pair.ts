import { z } from 'zod'
import {
  countDropped,
  type DropCause,
  type DroppedRows,
  HEX_ADDRESS,
  isPoolId,
  looseNumber,
  looseObject,
  loosePrice,
  looseString,
  looseTxnCount,
  looseWindows,
} from './fields.js'

/** DexScreener's slug for Base (its `chainId` field; a word, not the numeric chain id 8453). */
export const DEXSCREENER_BASE_SLUG = 'base'

/** A Base pair after tolerant parsing: every optional upstream field is present, as a value or null. */
export type Pair = {
  chainId: string
  dexId: string | null
  url: string | null
  /** The pool: a 20-byte pair address, or a Uniswap v4 pool's 32-byte id. */
  pairAddress: string
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

const looseToken = looseObject({ address: looseString, name: looseString, symbol: looseString })

/**
 * A DexScreener pair as the API really sends it (the recorded bodies in `tests/fixtures/upstream/`): `priceChange` with any subset of its windows
 * or none, `liquidity`, `pairCreatedAt`, `fdv`, `marketCap`, `labels`, `info` and `boosts` often absent, numbers
 * that may arrive as strings. Only `chainId` and the base token's address are required; every other field reads as
 * null when odd. `labels`, `info` and `boosts` are not read.
 */
export const dexScreenerPairSchema = z.object({
  chainId: z.string(),
  dexId: looseString,
  url: looseString,
  pairAddress: looseString,
  baseToken: z.object({ address: z.string(), name: looseString, symbol: looseString }),
  quoteToken: looseToken,
  priceUsd: loosePrice,
  txns: looseObject({ h1: looseTxnCount, h24: looseTxnCount }),
  volume: looseWindows(['h1', 'h6', 'h24']),
  priceChange: looseWindows(['m5', 'h1', 'h6', 'h24']),
  liquidity: looseObject({ usd: looseNumber }),
  fdv: looseNumber,
  marketCap: looseNumber,
  pairCreatedAt: looseNumber,
})

/** A parsed DexScreener pair before the Base identity checks. */
export type DexScreenerPair = z.infer<typeof dexScreenerPairSchema>

/**
 * Keeps a Base pair that can be shown: its base token's address is a 20-byte address, its pool a 20-byte address or
 * a 32-byte v4 id, and it has a symbol or a name. Counts what it leaves out in `dropped`; other chains are left out
 * uncounted (they are not this service's).
 */
export function toBasePair(pair: DexScreenerPair, dropped?: DroppedRows): Pair | null {
  if (pair.chainId !== DEXSCREENER_BASE_SLUG) return null
  const cause = unusableBecause(pair)
  if (cause) {
    countDropped(dropped, cause)
    return null
  }
  return {
    chainId: pair.chainId,
    dexId: pair.dexId,
    url: pair.url,
    pairAddress: pair.pairAddress as string,
    baseToken: pair.baseToken,
    quoteToken: pair.quoteToken,
    priceUsd: pair.priceUsd,
    txns: pair.txns,
    volume: pair.volume,
    priceChange: pair.priceChange,
    liquidityUsd: pair.liquidity.usd,
    fdv: pair.fdv,
    marketCap: pair.marketCap,
    pairCreatedAt: pair.pairCreatedAt,
  }
}

/** Why a Base pair cannot be shown, or null when it can. */
function unusableBecause(pair: DexScreenerPair): DropCause | null {
  if (!HEX_ADDRESS.test(pair.baseToken.address)) return 'tokenAddress'
  if (!isPoolId(pair.pairAddress)) return 'poolId'
  if (!pair.baseToken.symbol?.trim() && !pair.baseToken.name?.trim()) return 'symbol'
  return null
}

/**
 * Parses one DexScreener pair into a Base {@link Pair}, or null (not a pair, another chain, or unusable: counted).
 * A pair of another chain is left before the schema runs: searches answer many, and a refresh keeps none of them.
 */
export function parsePair(raw: unknown, dropped?: DroppedRows): Pair | null {
  if (typeof raw !== 'object' || raw === null || (raw as { chainId?: unknown }).chainId !== DEXSCREENER_BASE_SLUG) return null
  const parsed = dexScreenerPairSchema.safeParse(raw)
  return parsed.success ? toBasePair(parsed.data, dropped) : null
}

/** Any DexScreener pairs answer: a bare array (`/tokens/v1`, `/token-pairs/v1`) or `{ pairs: Pair[] | null }`. */
export const pairsBodySchema = z.union([z.array(z.unknown()), z.object({ pairs: z.array(z.unknown()).nullable() })])

/**
 * Reads the Base pairs out of any DexScreener pairs answer; elements that are not pairs are dropped one by one, and
 * unusable Base rows are counted in `dropped`. Returns null when the body has neither shape.
 */
export function parsePairsBody(body: unknown, dropped?: DroppedRows): Pair[] | null {
  const parsed = pairsBodySchema.safeParse(body)
  if (!parsed.success) return null
  const list = Array.isArray(parsed.data) ? parsed.data : (parsed.data.pairs ?? [])
  const pairs: Pair[] = []
  for (const raw of list) {
    const pair = parsePair(raw, dropped)
    if (pair) pairs.push(pair)
  }
  return pairs
}
