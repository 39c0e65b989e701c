import dns from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent'
import { Webhook } from 'standardwebhooks'
import type { Sleep } from '../../platform/clock.js'
import { BaseError } from '../../platform/errors.js'
import { accepted, type Result, refused } from '../../platform/result.js'
import { checkWebhookUrl } from '../agents/webhookUrl.js'

/** How long one attempt may take, connection to answer. */
export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 10_000

/**
 * Why an attempt was not delivered: the URL or an address it resolved to is refused, the secret is not a whsec_ one,
 * the receiver answered something else than a 2xx, or it gave no answer (connection failed, timed out).
 */
export type WebhookAttemptRefusal =
  | 'WEBHOOK_URL_REFUSED'
  | 'WEBHOOK_SECRET_INVALID'
  | 'WEBHOOK_ADDRESS_REFUSED'
  | 'WEBHOOK_NOT_2XX'
  | 'WEBHOOK_NO_ANSWER'

/** How one attempt ended: a 2xx (delivered), another status, or no answer (with why, never the URL). */
export type WebhookAttemptResult = Result<{ status: number }, WebhookAttemptRefusal, { status: number | null; error: string }>

/** Parameters of {@link attemptWebhook}. */
export type AttemptWebhookParameters = {
  url: string
  secret: string
  /** The event's id (`webhook-id`), the same on every retry. */
  id: string
  body: string
  /** This attempt's time, epoch ms: signed into `webhook-timestamp`, fresh on every attempt. */
  now: number
  /** The wait of the same clock: the attempt's deadline runs on it. */
  sleep: Sleep
  /** On Vercel, loopback is refused too, and plain http altogether. */
  onVercel: boolean
  /** The agents of the same policy ({@link createWebhookAgents}), built once by the outbox. */
  agents: WebhookAgents
  timeoutMs?: number
  /** Resolves names (tests hand in their own); whatever it answers is checked before connecting. */
  lookup?: LookupFunction
}

// The agents of one policy: each checks the address every connection really goes to, after DNS, so a name that
// resolves (or rebinds) to a private address is refused; an IP literal is checked the same way. Off Vercel loopback is
// allowed, as plain addresses: the library compares those as text, while a CIDR of the other family makes it print a
// warning.
const LOOPBACK = ['127.0.0.1', '::1']

/** The HTTP and HTTPS agents attempts go through, with their socket pools: built by the outbox, once per instance. */
export type WebhookAgents = { http: http.Agent; https: https.Agent; allowed: readonly string[] }

/** Builds the agents of the policy in force: on Vercel every non-public address is refused, off it loopback passes. */
export function createWebhookAgents({ onVercel }: { onVercel: boolean }): WebhookAgents {
  if (onVercel) return { http: new RequestFilteringHttpAgent(), https: new RequestFilteringHttpsAgent(), allowed: [] }
  return {
    http: new RequestFilteringHttpAgent({ allowIPAddressList: LOOPBACK }),
    https: new RequestFilteringHttpsAgent({ allowIPAddressList: LOOPBACK }),
    allowed: LOOPBACK,
  }
}

/** The receiver did not answer within the attempt's deadline. */
class WebhookTimeoutError extends BaseError<'WEBHOOK_TIMEOUT'> {
  override name = 'WebhookTimeoutError'
  constructor(message: string) {
    super(message, { code: 'WEBHOOK_TIMEOUT' })
  }
}

/** The name resolved to an address a webhook may not reach: refused before connecting. */
export class WebhookAddressRefusedError extends BaseError<'WEBHOOK_ADDRESS_REFUSED'> {
  override name = 'WebhookAddressRefusedError'
  constructor(host: string, address: string) {
    super(`refused: ${host} resolves to a non-public address (${address})`, { code: 'WEBHOOK_ADDRESS_REFUSED', details: { host, address } })
  }
}

/** Whether the agents refuse an address: anything but a public unicast one, unless it is on the allow list. */
function isRefusedAddress(address: string, allowed: readonly string[]): boolean {
  if (allowed.includes(address)) return false
  return !ipaddr.isValid(address) || ipaddr.parse(address).range() !== 'unicast'
}

// request-filtering-agent refuses an address with a plain Error that carries no type or code: only its message says
// why. So every name is resolved through this lookup first, which applies the agents' own rule (a public unicast
// address, or one of the allowed) and refuses with the service's typed error; the agent's check stays behind it.
function refusingLookup(lookup: LookupFunction, allowed: readonly string[]): LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    lookup(hostname, options, ((error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => {
      if (error) return callback(error)
      const addresses = typeof address === 'string' ? [address] : address.map((entry) => entry.address)
      const refused = addresses.find((candidate) => isRefusedAddress(candidate, allowed))
      if (refused !== undefined) return callback(new WebhookAddressRefusedError(hostname, refused))
      return callback(null, address, family)
    }) as Parameters<LookupFunction>[2])
  }) as LookupFunction
}

/** Why an attempt got no answer, in words safe for a status line: no URL, no secret. */
function describeFailure(error: unknown): string {
  if (error instanceof BaseError) return error.shortMessage
  const code = (error as { code?: unknown })?.code
  if (typeof code === 'string') return code
  return (error instanceof Error ? error.message : String(error)).slice(0, 120)
}

/**
 * One delivery attempt: POSTs the body to the URL signed the Standard Webhooks way (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`: HMAC-SHA256 of `id.timestamp.body`), through an agent that refuses
 * non-public addresses at connect time. Follows no redirect; gives up after the timeout. Never throws.
 */
export async function attemptWebhook(parameters: AttemptWebhookParameters): Promise<WebhookAttemptResult> {
  const { url, secret, id, body, now, sleep, onVercel, agents, timeoutMs = WEBHOOK_ATTEMPT_TIMEOUT_MS, lookup } = parameters
  const verdict = checkWebhookUrl({ url, onVercel })
  if (!verdict.ok) return refused('WEBHOOK_URL_REFUSED', { status: null, error: `refused: the URL ${verdict.reason}` })
  let signature: string
  try {
    signature = new Webhook(secret).sign(id, new Date(now), body)
  } catch {
    return refused('WEBHOOK_SECRET_INVALID', { status: null, error: 'the webhook secret is not a valid whsec_ secret' })
  }
  const target = new URL(verdict.url)
  const secure = target.protocol === 'https:'
  const { allowed } = agents
  const agent = secure ? agents.https : agents.http
  // An IP literal is never looked up: it is checked here by the same rule.
  const literal = target.hostname.replace(/^\[|\]$/g, '')
  if (isIP(literal) !== 0 && isRefusedAddress(literal, allowed)) {
    return refused('WEBHOOK_ADDRESS_REFUSED', { status: null, error: describeFailure(new WebhookAddressRefusedError(literal, literal)) })
  }
  const headers = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'user-agent': 'base-control-room-webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now / 1000)),
    'webhook-signature': signature,
  }
  return new Promise((resolve) => {
    const answered = new AbortController()
    const request = (secure ? https : http).request(
      target,
      { method: 'POST', agent, headers, lookup: refusingLookup(lookup ?? dns.lookup, allowed) },
      (response) => {
        const status = response.statusCode ?? 0
        // Only the status counts: the connection closes without reading the answer's body, so a receiver that streams
        // one without end holds nothing here.
        answered.abort()
        response.on('error', () => undefined)
        response.destroy()
        resolve(status >= 200 && status < 300 ? accepted({ status }) : refused('WEBHOOK_NOT_2XX', { status, error: `answered ${status}` }))
      },
    )
    void sleep(timeoutMs, { signal: answered.signal }).then(() => {
      if (!answered.signal.aborted) request.destroy(new WebhookTimeoutError(`timed out after ${timeoutMs / 1000} s`))
    })
    request.on('error', (error) => {
      answered.abort()
      const code = error instanceof WebhookAddressRefusedError ? 'WEBHOOK_ADDRESS_REFUSED' : 'WEBHOOK_NO_ANSWER'
      resolve(refused(code, { status: null, error: describeFailure(error) }))
    })
    request.end(body)
  })
}
