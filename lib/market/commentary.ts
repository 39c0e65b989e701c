import { SAFE_LIQUIDITY_USD, type Stats, type Token } from './types.js'

/** Formats USD the way a person reads it: $1.23B, $4.5M, $12.3K, $950. */
export function formatUsd(n: number): string {
  const abs = Math.abs(n)
  const units: [number, string][] = [
    [1e12, 'T'],
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'K'],
  ]
  for (const [size, suffix] of units) {
    if (abs >= size) return `$${trimZeros((n / size).toFixed(abs / size >= 100 ? 0 : abs / size >= 10 ? 1 : 2))}${suffix}`
  }
  return `$${trimZeros(n.toFixed(abs >= 100 ? 0 : 2))}`
}

/** Formats a percent change with its sign: +12.3%, -4.5%, 0.0%. */
export function formatPercent(n: number): string {
  const rounded = n.toFixed(1)
  return `${n > 0 && rounded !== '0.0' ? '+' : ''}${rounded === '-0.0' ? '0.0' : rounded}%`
}

const trimZeros = (s: string): string => (s.includes('.') ? s.replace(/\.?0+$/, '') : s)

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`

/** Parameters of {@link writeCommentary}. */
export type WriteCommentaryParameters = { tokens: readonly Token[]; stats: Stats }

/**
 * A short market commentary (2-4 sentences when there is data) built only from the figures it is given:
 * the volume leader, the largest 24h move among tokens with safe liquidity, how many rose and fell, and how
 * broad liquidity is. The same data always gives the same text.
 */
export function writeCommentary({ tokens, stats }: WriteCommentaryParameters): string {
  if (tokens.length === 0) return 'No Base token data is available right now.'
  const sentences: string[] = []

  const leader = tokens.reduce((a, b) => (b.volume24h > a.volume24h ? b : a))
  const totalVol24h = tokens.reduce((sum, t) => sum + t.volume24h, 0)
  sentences.push(
    `${leader.symbol} leads ${plural(tokens.length, 'tracked Base token', 'tracked Base tokens')} with ` +
      `${formatUsd(leader.volume24h)} of 24h volume, out of ${formatUsd(totalVol24h)} in total.`,
  )

  const safeMovers = tokens.filter((t) => t.liquidity >= SAFE_LIQUIDITY_USD && t.priceChange24h !== null)
  if (safeMovers.length > 0) {
    const mover = safeMovers.reduce((a, b) => (Math.abs(b.priceChange24h!) > Math.abs(a.priceChange24h!) ? b : a))
    sentences.push(
      `Among tokens with at least ${formatUsd(SAFE_LIQUIDITY_USD)} of liquidity, the largest 24h move is ` +
        `${mover.symbol} at ${formatPercent(mover.priceChange24h!)}.`,
    )
  }

  const rose = tokens.filter((t) => t.priceChange24h !== null && t.priceChange24h > 0).length
  const fell = tokens.filter((t) => t.priceChange24h !== null && t.priceChange24h < 0).length
  const flat = tokens.length - rose - fell
  sentences.push(`Over 24h, ${rose} rose and ${fell} fell${flat > 0 ? `, with ${flat} flat or without a price change.` : '.'}`)

  const share = Math.round((stats.safeCount / tokens.length) * 100)
  sentences.push(
    `${stats.safeCount} of ${tokens.length} (${share}%) hold at least ${formatUsd(SAFE_LIQUIDITY_USD)} of liquidity, ` +
      `and the last hour traded ${formatUsd(stats.totalVol1h)}.`,
  )
  return sentences.join(' ')
}
