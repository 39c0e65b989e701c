import { z } from 'zod'
import { isPoolId } from '../upstream/fields.js'
import type { Pair } from '../upstream/pair.js'
import { pairToToken } from './normalize.js'
import type { ControlRoom } from './types.js'

// Which pool a token's candles come from (pure): the pool the control room describes it by while it is in the top 100,
// else its most liquid Base pool in which it is the base token (the same orientation rule as every row).

/** The pool a token is charted from, and its exchange in DexScreener's vocabulary. */
export type ChartedPool = { pool: string; dexId: string }

/** What the service remembers of a token outside the top 100: its pool, or that it has none (`pool: null`). */
export const chartedPoolSchema = z.object({ pool: z.string().nullable(), dexId: z.string() })

/** The control room's pool of each of its tokens, by lower-case address. */
export function poolsOfRoom(room: Pick<ControlRoom, 'liveActivity'>): Map<string, ChartedPool> {
  const pools = new Map<string, ChartedPool>()
  for (const token of room.liveActivity)
    if (token.pairAddress && isPoolId(token.pairAddress)) pools.set(token.address, { pool: token.pairAddress, dexId: token.dexId })
  return pools
}

/**
 * A token's most liquid Base pool in which it is the base token (then the higher 24h volume), from DexScreener's
 * pairs of it; null when it has none (it trades only as the quote, on other chains, or not at all).
 */
export function mostLiquidPool(address: string, pairs: readonly Pair[]): ChartedPool | null {
  const own = pairs
    .filter((pair) => pair.baseToken.address.toLowerCase() === address.toLowerCase() && isPoolId(pair.pairAddress))
    .map((pair) => pairToToken(pair, 1))
  if (own.length === 0) return null
  const best = own.reduce((a, b) => (b.liquidity > a.liquidity || (b.liquidity === a.liquidity && b.volume24h > a.volume24h) ? b : a))
  return { pool: best.pairAddress!, dexId: best.dexId }
}
