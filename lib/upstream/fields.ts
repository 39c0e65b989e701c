import { z } from 'zod'

/**
 * Tolerant field schemas for upstream bodies: each states the field's real shape and reads anything else (absent,
 * null, mistyped, reshaped) as null, so an odd field costs that field and never the row it sits in.
 */

/**
 * A finite number, sent as a number or as a decimal string (`"1.61e-05"` too), or null or absent; anything else
 * (NaN, an empty string, an object) reads as null. Absent and null take no error path: they are the common case.
 */
export const looseNumber = z
  .union([z.number(), z.string()])
  .nullish()
  .transform((v) => {
    const n = typeof v === 'string' ? (v.trim() === '' ? Number.NaN : Number(v)) : v
    return typeof n === 'number' && Number.isFinite(n) ? n : null
  })
  .catch(null)

/** A string, or null or absent; anything else reads as null. */
export const looseString = z
  .string()
  .nullish()
  .transform((v) => v ?? null)
  .catch(null)

const DECIMAL = /^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/

/** A non-negative decimal price kept as the upstream wrote it (a number becomes its shortest string); else null. */
export const loosePrice = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((v) => {
    if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? String(v) : null
    const s = v?.trim()
    return s && DECIMAL.test(s) && Number.isFinite(Number(s)) ? s : null
  })
  .catch(null)

/** A 20-byte hex address, as any letter case sends it. */
export const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/

/** A pool as Base names it: a 20-byte pair address, or a Uniswap v4 pool's 32-byte id; nothing else. */
export const POOL_ID = /^0x(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/

/** True when `value` is a 20-byte pair address or a 32-byte v4 pool id, in any letter case. */
export function isPoolId(value: unknown): value is string {
  return typeof value === 'string' && POOL_ID.test(value)
}

/** An object of the given optional windows, each a {@link looseNumber}; a missing or reshaped object reads all null. */
export function looseWindows<const K extends string>(keys: readonly K[]) {
  return looseObject(Object.fromEntries(keys.map((k) => [k, looseNumber])) as Record<K, typeof looseNumber>)
}

/** Buy and sell counts of one window; a missing or reshaped window reads as nulls. */
export const looseTxnCount = looseObject({ buys: looseNumber, sells: looseNumber })

/**
 * An object of tolerant fields that may itself be absent, null or reshaped: then every field reads as it would when
 * absent (null). Absent takes no error path.
 */
export function looseObject<const S extends z.core.$ZodLooseShape>(shape: S) {
  const object = z.object(shape)
  const empty = object.parse({})
  // (The casts only bridge zod's generic output types; `empty` is exactly the object's output.)
  return object
    .nullish()
    .transform((v) => v ?? empty)
    .catch(() => empty as never)
}

/** Why a row of an upstream body was left out rather than shown. */
export type DropCause = 'tokenAddress' | 'poolId' | 'symbol'

/** Rows left out of upstream bodies, by cause; a caller passes one in and reads it after the calls. */
export type DroppedRows = Partial<Record<DropCause, number>>

/** Counts one dropped row in `dropped` (when the caller keeps count). */
export function countDropped(dropped: DroppedRows | undefined, cause: DropCause): void {
  if (dropped) dropped[cause] = (dropped[cause] ?? 0) + 1
}

/** A refresh log line's counts of dropped rows, one flat field per cause (0 when none). */
export function droppedLogFields(dropped: DroppedRows): { droppedTokenAddress: number; droppedPoolId: number; droppedSymbol: number } {
  return { droppedTokenAddress: dropped.tokenAddress ?? 0, droppedPoolId: dropped.poolId ?? 0, droppedSymbol: dropped.symbol ?? 0 }
}
