import type { TickConfig } from '../platform/config.js'
import { isBearerValid } from '../platform/http.js'

/** Who may call the tick: Vercel Cron (a bearer secret) or Upstash QStash (a signed request). */
export type TickCaller = 'vercel-cron' | 'qstash'

/** Parameters of {@link authorizeTick}. */
export type AuthorizeTickParameters = {
  request: Request
  /** The raw body, as received (QStash signs its hash). */
  body: string
  config: Pick<TickConfig, 'cronSecret' | 'qstash'>
  /** The URL QStash was asked to call; default the request's own. */
  url?: string
}

/**
 * Tells who is calling the tick, or null for anyone else: a Vercel Cron bearer (`CRON_SECRET`), or an
 * `Upstash-Signature` that `@upstash/qstash`'s Receiver verifies with the current signing key, then the next one (key
 * rotation), over this body and URL and within its expiry. A way whose secret is unset is off. The QStash library is
 * loaded only when such a header arrives; no store, upstream, chain or KMS call is made.
 */
export async function authorizeTick({ request, body, config, url = request.url }: AuthorizeTickParameters): Promise<TickCaller | null> {
  const authorization = request.headers.get('authorization')
  if (authorization !== null && config.cronSecret !== null && isBearerValid(authorization, config.cronSecret)) return 'vercel-cron'
  const signature = request.headers.get('upstash-signature')
  if (signature === null || config.qstash === null || signature.length > 4096) return null
  const { Receiver } = await import('@upstash/qstash')
  const receiver = new Receiver({ ...config.qstash, devMode: false })
  try {
    return (await receiver.verify({ signature, body, url })) ? 'qstash' : null
  } catch {
    return null
  }
}
