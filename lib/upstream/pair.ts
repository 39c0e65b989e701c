import { z } from 'zod'

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

// Every tolerant field is `.optional()` before its transform: zod 4 would otherwise reject a missing key.
const looseNumber = z.unknown().optional().transform(finite)
const looseString = z.unknown().optional().transform((v) => (typeof v === 'string' ? v : null))
/** A decimal price as upstream sends it; numbers are turned into their shortest string. */
const loosePrice = z.unknown().optional().transform((v) => {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? String(v) : null
  if (typeof v !== 'string') return null
  const s = v.trim()
  return /^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(s) && Number.isFinite(Number(s)) ? s : null
})
/** An object whose own fields are all tolerant: anything that is not an object reads as `{}`, so it never fails. */
const looseObject = <T extends z.ZodRawShape>(shape: T) => {
  const inner = z.object(shape)
  return z
    .unknown()
    .optional()
    .transform((v) => inner.parse(v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {}))
}
const txnCount = looseObject({ buys: looseNumber, sells: looseNumber })

const pairSchema = z.object({
  chainId: z.string(),
  dexId: looseString,
  url: looseString,
  pairAddress: looseString,
  baseToken: z.object({ address: z.string(), name: looseString, symbol: looseString }),
  quoteToken: looseObject({ address: looseString, name: looseString, symbol: looseString }),
  priceUsd: loosePrice,
  txns: looseObject({ h1: txnCount, h24: txnCount }),
  volume: looseObject({ h1: looseNumber, h6: looseNumber, h24: looseNumber }),
  priceChange: looseObject({ m5: looseNumber, h1: looseNumber, h6: looseNumber, h24: looseNumber }),
  liquidity: looseObject({ usd: looseNumber }),
  fdv: looseNumber,
  marketCap: looseNumber,
  pairCreatedAt: looseNumber,
})

/** Parses one upstream pair, or returns null when it lacks what identifies it (chain, base token address). */
export function parsePair(raw: unknown): Pair | null {
  const parsed = pairSchema.safeParse(raw)
  if (!parsed.success) return null
  const { liquidity, ...rest } = parsed.data
  return { ...rest, liquidityUsd: liquidity.usd }
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
