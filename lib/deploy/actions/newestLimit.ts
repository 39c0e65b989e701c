import { z } from 'zod'

/** How many of the newest records a list answers: 1-100, default 20 (`list_deploys`, `list_events`). */
export const newestLimit = (what: string) =>
  z
    .number({ error: 'must be a whole number from 1 to 100' })
    .int('must be a whole number from 1 to 100')
    .min(1, 'must be a whole number from 1 to 100')
    .max(100, 'must be a whole number from 1 to 100')
    .optional()
    .describe(`How many of the newest ${what} to answer (1-100, default 20)`)

/** The default of {@link newestLimit}. */
export const NEWEST_LIMIT_DEFAULT = 20

/** Counts a JSON array field of an answer (0 when it is not an array), for a tool's one-line summary. */
export const lengthOf = (value: unknown): number => (Array.isArray(value) ? value.length : 0)
