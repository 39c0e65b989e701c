// How the service shares GeckoTerminal's public minute between its uses, across all instances. It imports nothing, so
// the services that set the budgets and the jobs that take from them can both import it.

/** GeckoTerminal calls allowed in any rolling minute, across all instances (its public limit). */
export const GECKO_CALLS_PER_MINUTE = 30
/**
 * Of those, what the candle requests may fill (they stop once the minute holds this many): the rest stays free for
 * discovery's pages when they come due and for the failover.
 */
export const GECKO_CANDLE_CALLS_CEILING = 20
/**
 * What the price backfill may fill (it stops once the minute holds this many), below the candle requests' ceiling: a
 * fresh deployment's backfill (up to 100 new tokens, one call each) never leaves a reader's candles with no call at all.
 */
export const GECKO_BACKFILL_CALLS_PER_MINUTE = 15
