import { z } from 'zod'
import { type Environment, optional, parseWith } from '../platform/config.js'

// The settings of `/api/health`.

/** Configuration of `/api/health`. */
export type HealthConfig = {
  /** Bearer token of the detailed view; null: the detailed view is off. */
  healthToken: string | null
  /** Below this signer balance (in wei) the detailed view flags `lowBalance`. */
  signerMinBalanceWei: bigint
}

const healthSchema = z.object({
  HEALTH_TOKEN: optional(
    z.string().trim().min(16, 'must be at least 16 characters (use a random token)').max(256, 'must be at most 256 characters'),
  ),
  SIGNER_MIN_BALANCE_ETH: optional(z.coerce.number({ error: 'must be a number of ETH' }).min(0, 'must be at least 0')).default(0.01),
})

/** Parses `/api/health`'s configuration from the environment; throws {@link ConfigError} with every problem. */
export function loadHealthConfig(env: Environment = process.env): HealthConfig {
  const parsed = parseWith(healthSchema, env, 'health')
  return {
    healthToken: parsed.HEALTH_TOKEN ?? null,
    signerMinBalanceWei: BigInt(Math.round(parsed.SIGNER_MIN_BALANCE_ETH * 1e9)) * 10n ** 9n,
  }
}
