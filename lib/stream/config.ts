import { z } from 'zod'
import { type Environment, optional, parseWith, wholeNumber } from '../platform/config.js'

/** Configuration of `GET /api/stream`. */
export type StreamConfig = {
  /** Streams one client (its address, or its /64) may hold open on an instance (`STREAM_MAX_PER_CLIENT`). */
  maxPerClient: number
  /** Streams an instance holds open at most (`STREAM_MAX_PER_INSTANCE`). */
  maxPerInstance: number
  /**
   * Seconds after which a stream is closed cleanly, so that `EventSource` reconnects before the platform cuts the
   * function off (`STREAM_MAX_SECONDS`; vercel.json gives `api/stream.ts` a `maxDuration` of 300).
   */
  maxSeconds: number
}

/** The function's `maxDuration` in vercel.json: a stream must end before it. */
export const STREAM_FUNCTION_MAX_DURATION_SECONDS = 300

const streamSchema = z.object({
  STREAM_MAX_PER_CLIENT: optional(wholeNumber(1).max(100_000, 'must be at most 100000')).default(10),
  STREAM_MAX_PER_INSTANCE: optional(wholeNumber(1).max(100_000, 'must be at most 100000')).default(2000),
  STREAM_MAX_SECONDS: optional(
    wholeNumber(5).max(STREAM_FUNCTION_MAX_DURATION_SECONDS - 5, `must be at most ${STREAM_FUNCTION_MAX_DURATION_SECONDS - 5}`),
  ).default(280),
})

/** Parses the stream's configuration from the environment; throws a `ConfigError` with every problem. */
export function loadStreamConfig(env: Environment = process.env): StreamConfig {
  const parsed = parseWith(streamSchema, env, 'stream')
  return {
    maxPerClient: parsed.STREAM_MAX_PER_CLIENT,
    maxPerInstance: parsed.STREAM_MAX_PER_INSTANCE,
    maxSeconds: parsed.STREAM_MAX_SECONDS,
  }
}
