import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { systemClock } from '../../platform/clock.js'
import type { Logger } from '../../platform/log.js'

/** SHA-256 of an agent key, as lower-case hex: what the allowlist holds. */
export function digestAgentKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex')
}

/** Most characters read of an `X-Service-Key` header; longer keys are refused before hashing. */
export const AGENT_KEY_MAX_LENGTH = 256

/**
 * Finds the allowlisted digest of a presented key, comparing against every entry in constant time (no early exit),
 * so timing tells nothing about how close a guess was. Answers the digest, or null.
 */
export function matchAgentKey(presented: string | null, allowlist: readonly string[]): string | null {
  if (!presented || presented.length > AGENT_KEY_MAX_LENGTH) return null
  const digest = Buffer.from(digestAgentKey(presented), 'hex')
  let match: string | null = null
  for (const entry of allowlist) {
    const candidate = Buffer.from(entry, 'hex')
    if (candidate.length === digest.length && timingSafeEqual(candidate, digest) && match === null) match = entry
  }
  return match
}

/** A new random agent key (32 bytes, base64url, `bcr_` prefix) and its digest for `DEPLOY_ALLOWLIST`. */
export function generateAgentKey(): { key: string; digest: string } {
  const key = `bcr_${randomBytes(32).toString('base64url')}`
  return { key, digest: digestAgentKey(key) }
}

/** Parameters of {@link createRefusalLog}. */
export type CreateRefusalLogParameters = { logger: Logger; now?: () => number; linesPerSecond?: number }

/** Why a presented agent key is refused. */
export type AgentRefusalReason = 'no key' | 'unknown key' | 'revoked' | 'expired'

/** One refused agent request: which endpoint, the key presented (null when none was), and why it was refused. */
export type Refusal = { endpoint: 'b20-skill' | 'mcp'; presented: string | null; reason?: AgentRefusalReason }

/** Why a key was refused, in words for the caller and the log: "missing", "not on the deploy allowlist", "revoked"… */
export function refusalText(reason: AgentRefusalReason): string {
  if (reason === 'no key') return 'missing'
  if (reason === 'unknown key') return 'not on the deploy allowlist'
  return reason
}

/**
 * Logs a `deploy_refused` line per refused request, with the first 8 hex digits of the presented key's digest (never
 * the key), at most `linesPerSecond` (5) lines a second per instance, so a flood cannot flood the logs; the next line
 * after a quiet spell says how many were left out.
 */
export function createRefusalLog({
  logger,
  now = systemClock.now,
  linesPerSecond = 5,
}: CreateRefusalLogParameters): (refusal: Refusal) => void {
  let second = -1
  let written = 0
  let suppressed = 0
  return ({ endpoint, presented, reason = presented ? 'unknown key' : 'no key' }) => {
    const current = Math.floor(now() / 1000)
    if (current !== second) {
      second = current
      written = 0
    }
    if (written >= linesPerSecond) {
      suppressed += 1
      return
    }
    written += 1
    logger.warn('deploy_refused', {
      endpoint,
      reason: reason === 'unknown key' ? 'key not on the allowlist' : reason === 'no key' ? 'no key' : `key ${reason}`,
      keyDigest: presented ? digestAgentKey(presented).slice(0, 8) : null,
      suppressedBefore: suppressed,
    })
    suppressed = 0
  }
}
