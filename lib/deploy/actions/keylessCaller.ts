import { clientAddress } from '../../platform/clientAddress.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { errorName } from '../../platform/log.js'
import { rateLimitHeaders } from '../../platform/rateLimitHeaders.js'
import { accepted, type Result, refused } from '../../platform/result.js'
import type { DeployServicesSource } from '../instance.js'
import { publicActionsThrottleKey } from '../keys.js'

// A caller without an agent key may ask the public actions (public facts and prepared calls, which spend nothing):
// counted per client as the other public reads are, on either door (POST /api/b20-skill, the MCP tools).

/** Requests of the public actions a client without a key may make a minute (an IPv6 client is its /64). */
export const PUBLIC_ACTIONS_PER_MINUTE = 30

/** The throttle's name in the `RateLimit` headers. */
const POLICY = 'actions'

/** What {@link throttleKeylessCaller} answers: the client's quota headers, or the 429 it gets instead. */
export type ThrottleKeylessCallerReturnType = Result<{ headers: Record<string, string> }, 'RATE_LIMITED', { answer: HttpAnswer }>

/**
 * Counts one keyless request of a client against {@link PUBLIC_ACTIONS_PER_MINUTE}. With the shared store
 * unreachable the same limit holds per instance: an outage is no reason to let everything through.
 */
export async function throttleKeylessCaller(source: DeployServicesSource, request: Request): Promise<ThrottleKeylessCallerReturnType> {
  const parameters = {
    key: publicActionsThrottleKey(source.config().storePrefix, clientAddress(request)),
    limit: PUBLIC_ACTIONS_PER_MINUTE,
    windowMs: 60_000,
  }
  const verdict = await (await source.throttle()).limit(parameters).catch(async (error: unknown) => {
    source
      .logger()
      .warn('store_unavailable', { operation: 'public-actions-throttle', error: errorName(error), effect: 'throttled per instance' })
    return (await source.localThrottle()).limit(parameters)
  })
  const headers = rateLimitHeaders({
    policy: POLICY,
    quota: PUBLIC_ACTIONS_PER_MINUTE,
    windowSeconds: 60,
    remaining: verdict.remaining,
    resetSeconds: verdict.resetAfterMs / 1000,
  })
  if (verdict.ok) return accepted({ headers })
  const seconds = Math.max(1, Math.ceil(verdict.resetAfterMs / 1000))
  const body = refused('RATE_LIMITED', {
    error: `Too many requests without a key: at most ${PUBLIC_ACTIONS_PER_MINUTE} a minute per client; retry in ${seconds} s.`,
    retryAfterSeconds: seconds,
  })
  return refused('RATE_LIMITED', { answer: { status: 429, body, headers: { ...headers, 'retry-after': String(seconds) } } })
}
