import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent'
import { Webhook } from 'standardwebhooks'
import type { Sleep } from '../../platform/clock.js'
import { checkWebhookUrl } from '../agents/webhookUrl.js'

/** How long one attempt may take, connection to answer. */
export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 10_000

/** How one attempt ended: a 2xx (delivered), another status, or no answer (with why, never the URL). */
export type WebhookAttemptResult = { ok: true; status: number } | { ok: false; status: number | null; error: string }

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
  timeoutMs?: number
  /** Resolves names (tests hand in their own); whatever it answers is checked before connecting. */
  lookup?: LookupFunction
}

// One agent per policy: it checks the address each connection really goes to, after DNS, so a name that resolves (or
// rebinds) to a private address is refused; an IP literal is checked the same way. Off Vercel loopback is allowed,
// as plain addresses: the library compares those as text, while a CIDR of the other family makes it print a warning.
const LOOPBACK = ['127.0.0.1', '::1']
const agents = {
  strict: { http: new RequestFilteringHttpAgent(), https: new RequestFilteringHttpsAgent() },
  local: {
    http: new RequestFilteringHttpAgent({ allowIPAddressList: LOOPBACK }),
    https: new RequestFilteringHttpsAgent({ allowIPAddressList: LOOPBACK }),
  },
}

/** The receiver did not answer within the attempt's deadline. */
class WebhookTimeoutError extends Error {
  override name = 'WebhookTimeoutError'
}

/** Why an attempt got no answer, in words safe for a status line: no URL, no secret. */
function describeFailure(error: unknown): string {
  if (error instanceof WebhookTimeoutError) return error.message
  const message = error instanceof Error ? error.message : String(error)
  // request-filtering-agent refuses an address with a plain Error: its message is the only thing that says why.
  const refused = /DNS lookup (\S+?)\(family:\S*, host:(.*?)\) is not allowed/.exec(message)
  if (refused) return `refused: ${refused[2]} resolves to a non-public address (${refused[1]})`
  if (/DNS lookup (\S+?)\(family/.test(message)) return 'refused: the address is not public'
  const code = (error as { code?: unknown })?.code
  return typeof code === 'string' ? code : message.slice(0, 120)
}

/**
 * One delivery attempt: POSTs the body to the URL signed the Standard Webhooks way (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`: HMAC-SHA256 of `id.timestamp.body`), through an agent that refuses
 * non-public addresses at connect time. Follows no redirect; gives up after the timeout. Never throws.
 */
export async function attemptWebhook(parameters: AttemptWebhookParameters): Promise<WebhookAttemptResult> {
  const { url, secret, id, body, now, sleep, onVercel, timeoutMs = WEBHOOK_ATTEMPT_TIMEOUT_MS, lookup } = parameters
  const verdict = checkWebhookUrl({ url, onVercel })
  if (!verdict.ok) return { ok: false, status: null, error: `refused: the URL ${verdict.reason}` }
  let signature: string
  try {
    signature = new Webhook(secret).sign(id, new Date(now), body)
  } catch {
    return { ok: false, status: null, error: 'the webhook secret is not a valid whsec_ secret' }
  }
  const target = new URL(verdict.url)
  const secure = target.protocol === 'https:'
  const agent = (onVercel ? agents.strict : agents.local)[secure ? 'https' : 'http']
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
      { method: 'POST', agent, headers, ...(lookup ? { lookup } : {}) },
      (response) => {
        const status = response.statusCode ?? 0
        // Only the status counts: the connection closes without reading the answer's body, so a receiver that streams
        // one without end holds nothing here.
        answered.abort()
        response.on('error', () => undefined)
        response.destroy()
        resolve(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `answered ${status}` })
      },
    )
    void sleep(timeoutMs, { signal: answered.signal }).then(() => {
      if (!answered.signal.aborted) request.destroy(new WebhookTimeoutError(`timed out after ${timeoutMs / 1000} s`))
    })
    request.on('error', (error) => {
      answered.abort()
      resolve({ ok: false, status: null, error: describeFailure(error) })
    })
    request.end(body)
  })
}
