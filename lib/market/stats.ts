import { SAFE_LIQUIDITY_USD, type Stats, type Token } from './types.js'

/** Rounds a USD sum to cents, so float noise never reaches a client. */
export const roundUsd = (n: number): number => Math.round(n * 100) / 100

/** Parameters of {@link computeStats}. */
export type ComputeStatsParameters = { tokens: readonly Token[]; ts: number }

/** Market statistics (`docs/api.md`, `GET /api/control-room`) over the returned tokens; `ts` is when the data was fetched. */
export function computeStats({ tokens, ts }: ComputeStatsParameters): Stats {
  let safeCount = 0
  let totalVol1h = 0
  for (const token of tokens) {
    if (token.liquidity >= SAFE_LIQUIDITY_USD) safeCount++
    totalVol1h += token.volume1h
  }
  return { total: tokens.length, safeCount, totalVol1h: roundUsd(totalVol1h), ts }
}
