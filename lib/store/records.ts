import type { z } from 'zod'

/**
 * A stored record read back: the JSON at a key checked against its schema. Null when absent, not JSON, or not of
 * the schema (written by an older version, or by hand): a record is only ever used as what it claims to be.
 */
export function parseRecord<TSchema extends z.ZodType>(schema: TSchema, raw: string | null | undefined): z.output<TSchema> | null {
  if (raw === null || raw === undefined) return null
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    return null
  }
  const parsed = schema.safeParse(value)
  return parsed.success ? parsed.data : null
}
