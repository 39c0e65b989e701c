import { z } from 'zod'
import { type Environment, optional, parseWith } from '../platform/config.js'

/** Configuration of the public launches feed (`GET /api/launches` and the stream's `launch` event). */
export type LaunchesConfig = {
  /** Whether the feed is public (`PUBLIC_LAUNCHES`, default on): off, the endpoint answers 404 and the stream sends no launch. */
  publicLaunches: boolean
  /** The chain the deploys are recorded under (`CHAIN_ID`, read as the deploy side reads it). */
  chainId: 8453 | 84532
}

const ON = ['1', 'true', 'on', 'yes']
const OFF = ['0', 'false', 'off', 'no']

const launchesSchema = z.object({
  PUBLIC_LAUNCHES: optional(
    z
      .string()
      .trim()
      .toLowerCase()
      .refine((v) => ON.includes(v) || OFF.includes(v), 'must be 1 or 0 (true/false, on/off, yes/no)'),
  ),
  CHAIN_ID: optional(z.enum(['8453', '84532'], { error: 'must be 8453 (Base) or 84532 (Base Sepolia, staging)' })).default('8453'),
})

/** Parses the launches feed's configuration from the environment; throws a `ConfigError` with every problem. */
export function loadLaunchesConfig(env: Environment = process.env): LaunchesConfig {
  const parsed = parseWith(launchesSchema, env, 'launches')
  return {
    publicLaunches: parsed.PUBLIC_LAUNCHES === undefined || ON.includes(parsed.PUBLIC_LAUNCHES),
    chainId: Number(parsed.CHAIN_ID) as 8453 | 84532,
  }
}

/**
 * How long one launch's powers and pool are cached: a few Base blocks (2 s each), short enough that fees owed and a
 * hand-over show within seconds, long enough that a token read by many costs the chain one refresh per window (about
 * four RPC calls) across instances, whatever the number of readers.
 */
export const LAUNCH_DETAIL_TTL_MS = 15_000

/** Requests of one launch a client may make per minute: each window's first read of a token costs RPC calls. */
export const LAUNCH_DETAIL_RATE_LIMIT_PER_MINUTE = 60
