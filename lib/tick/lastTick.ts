import { z } from 'zod'
import { parseRecord } from '../store/records.js'
import type { Store } from '../store/types.js'
import { tickKeys } from './keys.js'

/** What the last tick did, as health shows it. */
const lastTickSchema = z.object({
  /** When it began (ISO 8601). */
  at: z.string().refine((at) => Number.isFinite(Date.parse(at))),
  durationMs: z.number(),
  caller: z.string(),
  /** The parts that failed (empty: all went well). */
  failed: z.array(z.string()),
  /** Each part's summary. */
  parts: z.record(z.string(), z.unknown()),
})

/** What the last tick did (see {@link lastTickSchema}). */
export type LastTick = z.infer<typeof lastTickSchema>

/** How long the last tick's summary is kept. */
const LAST_TICK_TTL_MS = 7 * 86_400_000

/** Keeps the last tick's summary for health. */
export async function saveLastTick(store: Store, keyPrefix: string, tick: LastTick): Promise<void> {
  await store.set(tickKeys(keyPrefix).last, JSON.stringify(tick), LAST_TICK_TTL_MS)
}

/** Parses a stored tick summary; null when absent or not one. */
export function parseLastTick(value: string | null): LastTick | null {
  return parseRecord(lastTickSchema, value)
}
