import { isBearerValid } from '../platform/http.js'
import type { TickConfig } from './config.js'

/** Who may call the tick: Vercel Cron (a bearer secret) or Upstash QStash (a signed request). */
export type TickCaller = 'vercel-cron' | 'qstash'

/** Parameters of {@link authorizeTick}. */
export type AuthorizeTickParameters = {
  request: Request
  /** Reads the raw body (QStash signs its hash): asked only for a QStash signature, after every cheaper check; null: too large. */
  readBody: () => Promise<string | null>
  config: Pick<TickConfig, 'cronSecret' | 'qstash' | 'publicOrigin'>
}

/**
 * Tells who is calling the tick, or null for anyone else: a Vercel Cron bearer (`CRON_SECRET`), or an
 * `Upstash-Signature` that `@upstash/qstash`'s Receiver verifies with the current signing key, then the next one (key
 * rotation), over this body and the service's own tick URL (`PUBLIC_URL`, never the Host a request names) and within
 * its expiry. A way whose secret is unset is off; QStash is off without a public origin. The body is read only for a
 * QStash signature; the QStash library is loaded only then; no store, upstream, chain or KMS call is made.
 */
export async function authorizeTick({ request, readBody, config }: AuthorizeTickParameters): Promise<TickCaller | null> {
  const authorization = request.headers.get('authorization')
  if (authorization !== null && config.cronSecret !== null && isBearerValid(authorization, config.cronSecret)) return 'vercel-cron'
  const signature = request.headers.get('upstash-signature')
  if (signature === null || config.qstash === null || config.publicOrigin === null || signature.length > 4096) return null
  if (signature.split('.').length !== 3) return null
  const body = await readBody()
  if (body === null) return null
  const url = `${config.publicOrigin}/api/tick`
  const { Receiver } = await import('@upstash/qstash')
  const receiver = new Receiver({ ...config.qstash, devMode: false })
  try {
    return (await receiver.verify({ signature, body, url })) ? 'qstash' : null
  } catch {
    return null
  }
}
