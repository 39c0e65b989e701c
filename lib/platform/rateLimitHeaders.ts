/** Parameters of {@link rateLimitHeaders}. */
export type RateLimitHeadersParameters = {
  /** The policy's name (`"search"`). */
  policy: string
  /** Requests (or open streams) the policy allows. */
  quota: number
  /** The window the quota counts over, in seconds; absent for a limit on what is open at once. */
  windowSeconds?: number
  /** What the client has left. */
  remaining: number
  /** Seconds until the quota frees up again. */
  resetSeconds: number
}

/**
 * The IETF draft-11 throttling headers a client reads its quota from before it hits the limit:
 * `RateLimit-Policy: "search";q=30;w=60` and `RateLimit: "search";r=29;t=41`.
 */
export function rateLimitHeaders({
  policy,
  quota,
  windowSeconds,
  remaining,
  resetSeconds,
}: RateLimitHeadersParameters): Record<string, string> {
  const window = windowSeconds === undefined ? '' : `;w=${windowSeconds}`
  return {
    'ratelimit-policy': `"${policy}";q=${quota}${window}`,
    ratelimit: `"${policy}";r=${Math.max(0, Math.floor(remaining))};t=${Math.max(0, Math.ceil(resetSeconds))}`,
  }
}
