import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

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
