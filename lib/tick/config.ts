import { z } from 'zod'
import { type CrossCheck, type Environment, loadPublicOrigin, optional, parseWith, wholeNumber } from '../platform/config.js'

// The settings of the scheduled tick.

/** Configuration of the scheduled tick (`/api/tick` and the in-process ticker). */
export type TickConfig = {
  /** Vercel Cron's bearer secret (`CRON_SECRET`); null: Vercel Cron cannot call the tick. */
  cronSecret: string | null
  /** QStash's current and next signing keys; null: QStash cannot call the tick. */
  qstash: { currentSigningKey: string; nextSigningKey: string } | null
  /** Seconds between ticks of the in-process ticker of `npm start` and the sandbox (0: off); also the tick's claim. */
  intervalSeconds: number
  /** The service's public origin (`PUBLIC_URL`): a QStash signature must name `<origin>/api/tick`; null: QStash is refused. */
  publicOrigin: string | null
}

const tickSchema = z.object({
  CRON_SECRET: optional(
    z.string().trim().min(16, 'must be at least 16 characters (use a random secret)').max(512, 'must be at most 512 characters'),
  ),
  QSTASH_CURRENT_SIGNING_KEY: optional(z.string().trim().min(16, 'must be at least 16 characters')),
  QSTASH_NEXT_SIGNING_KEY: optional(z.string().trim().min(16, 'must be at least 16 characters')),
  TICK_INTERVAL_SECONDS: optional(wholeNumber(0).max(3600, 'must be at most 3600')).default(60),
})

const checkQstashPair: CrossCheck = (env) => {
  if (env.QSTASH_CURRENT_SIGNING_KEY && !env.QSTASH_NEXT_SIGNING_KEY)
    return ['QSTASH_NEXT_SIGNING_KEY: is required when QSTASH_CURRENT_SIGNING_KEY is set (QStash gives both)']
  if (!env.QSTASH_CURRENT_SIGNING_KEY && env.QSTASH_NEXT_SIGNING_KEY)
    return ['QSTASH_CURRENT_SIGNING_KEY: is required when QSTASH_NEXT_SIGNING_KEY is set (QStash gives both)']
  return []
}

/** Parses the tick's configuration from the environment; throws {@link ConfigError} with every problem. */
export function loadTickConfig(env: Environment = process.env): TickConfig {
  const parsed = parseWith(tickSchema, env, 'tick', [checkQstashPair])
  return {
    cronSecret: parsed.CRON_SECRET ?? null,
    qstash:
      parsed.QSTASH_CURRENT_SIGNING_KEY && parsed.QSTASH_NEXT_SIGNING_KEY
        ? { currentSigningKey: parsed.QSTASH_CURRENT_SIGNING_KEY, nextSigningKey: parsed.QSTASH_NEXT_SIGNING_KEY }
        : null,
    intervalSeconds: parsed.TICK_INTERVAL_SECONDS,
    publicOrigin: loadPublicOrigin(env),
  }
}
