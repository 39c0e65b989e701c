import type { PriceLine } from '../../market/snapshots.js'
import type { Token } from '../../market/types.js'
import { errorName } from '../../platform/log.js'
import { isPoolId } from '../../upstream/fields.js'
import { UpstreamError } from '../../upstream/jsonGetter.js'
import { GECKO_BACKFILL_CALLS_PER_MINUTE } from '../geckoShares.js'
import type { ReadServices } from '../services.js'
import { backOffGeckoAfter429, isGeckoBackingOff, reserveGeckoCalls } from '../universe/discovery.js'
import { loadPriceLines, savePriceLine } from './historyStore.js'

/** Candle calls in flight at once: a tick's share of the minute goes out in a few short rounds. */
const BACKFILL_CONCURRENCY = 5

/** Longest a backfill may take, calls and retries included: well inside the tick function's 60 s. */
const BACKFILL_DEADLINE_MS = 20_000

/** Parameters of {@link backfillPriceLines}. */
export type BackfillPriceLinesParameters = {
  services: Pick<ReadServices, 'store' | 'keyPrefix' | 'memory' | 'gecko' | 'logger' | 'now' | 'deadline'>
  /** The listed tokens, leaders first (the control room's `liveActivity`). */
  tokens: readonly Pick<Token, 'address' | 'pairAddress'>[]
}

/** What one backfill did. */
export type BackfillPriceLinesReturnType = {
  /** Why nothing was fetched, when nothing could be. */
  skipped?: 'geckoterminal off' | 'backing off after a 429' | 'no calls left this minute' | 'every listed token has a line'
  /** Price lines fetched and kept. */
  fetched: number
  /** Candle calls that failed (the tokens are tried again on a later tick). */
  failed: number
  /** Listed tokens still without a line. */
  remaining: number
}

/**
 * Fetches a day of 5-minute candles (GeckoTerminal, one call per pool) for the listed tokens that have no price line
 * yet, leaders first, so the charts show 24 hours from a deployment's first minutes. Each token is backfilled at most
 * once a day (its line lives a day). Calls come out of GeckoTerminal's shared 30 a minute, at most 15 of them, so
 * discovery keeps its pages and readers' candle requests theirs; a 429 stops this backfill and backs every instance off.
 */
export async function backfillPriceLines({ services, tokens }: BackfillPriceLinesParameters): Promise<BackfillPriceLinesReturnType> {
  const { store, keyPrefix, gecko, logger } = services
  const now = services.now()
  const listed = tokens.filter((t) => isPoolId(t.pairAddress))
  if (!gecko) return { skipped: 'geckoterminal off', fetched: 0, failed: 0, remaining: listed.length }
  const lines = await loadPriceLines(
    services,
    listed.map((t) => t.address),
    now,
  )
  const todo = listed.filter((t) => !lines.has(t.address.toLowerCase()))
  if (todo.length === 0) return { skipped: 'every listed token has a line', fetched: 0, failed: 0, remaining: 0 }
  // Only with work to do is GeckoTerminal's back-off read: a steady tick, with every line known, costs no command here.
  if (await isGeckoBackingOff(store, keyPrefix))
    return { skipped: 'backing off after a 429', fetched: 0, failed: 0, remaining: todo.length }
  const calls = await reserveGeckoCalls({ store, keyPrefix, count: todo.length, now, limit: GECKO_BACKFILL_CALLS_PER_MINUTE })
  if (calls === 0) return { skipped: 'no calls left this minute', fetched: 0, failed: 0, remaining: todo.length }

  const queue = todo.slice(0, calls)
  const signal = services.deadline(BACKFILL_DEADLINE_MS)
  let fetched = 0
  let failed = 0
  let limited: UpstreamError | null = null
  const worker = async () => {
    for (let token = queue.shift(); token && !limited; token = queue.shift()) {
      try {
        const pool = token.pairAddress!.toLowerCase()
        const candles = await gecko.poolCandles(pool, { signal })
        const line: PriceLine = { pool, fetchedAt: now, points: candles.map((c) => [c.t, c.close]) }
        await savePriceLine(store, keyPrefix, token.address, line)
        fetched++
      } catch (error) {
        failed++
        if (error instanceof UpstreamError && error.status === 429) limited = error
        else logger.warn('price_backfill_failed', { address: token.address, error: errorName(error) })
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(BACKFILL_CONCURRENCY, queue.length) }, worker))
  if (limited) await backOffGeckoAfter429([limited], { store, keyPrefix, logger })
  return { fetched, failed, remaining: todo.length - fetched }
}
