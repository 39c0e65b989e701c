import type { DeployServicesSource } from '../deploy/instance.js'
import { createEndpoint, type Endpoint } from '../platform/edge.js'
import { errorResponse, jsonResponse, type Method, readBodyBytes } from '../platform/http.js'
import type { ReadServices } from '../read/services.js'
import { authorizeTick } from './authorize.js'
import type { TickConfig } from './config.js'
import { runTick } from './runTick.js'

const METHODS: readonly Method[] = ['GET', 'POST']

/** Largest body the tick accepts (QStash may send one; the tick reads none). */
export const TICK_BODY_LIMIT_BYTES = 64 * 1024

/** What the tick runs on: both sides of the instance and its own settings. */
export type TickSource = { read: () => ReadServices; deploy: DeployServicesSource; config: () => TickConfig }

/**
 * The `GET`/`POST /api/tick` handler: the scheduled work, for Vercel Cron (`Authorization: Bearer <CRON_SECRET>`) or
 * QStash (`Upstash-Signature`). Anyone else gets 401 before anything is read or called; the answer is the tick's summary.
 */
export function createTickEndpoint({ read, deploy, config }: TickSource): Endpoint {
  return createEndpoint({
    methods: METHODS,
    // A broken configuration throws here, and the edge answers it 500 CONFIG_INVALID (lib/platform/errorAnswer.ts).
    errors: { endpoint: 'tick', withOk: false },
    handler: async (request) => {
      const tick = config()
      const tooLarge = () => errorResponse(413, 'BODY_TOO_LARGE', `The request body is larger than ${TICK_BODY_LIMIT_BYTES} bytes.`)
      if (Number(request.headers.get('content-length') ?? 0) > TICK_BODY_LIMIT_BYTES) return tooLarge()
      // The caller is checked before the body is read: a stranger's slow body holds nothing.
      let overLimit = false
      const readBody = async () => {
        const body = await readBodyBytes(request, TICK_BODY_LIMIT_BYTES)
        overLimit = !body.ok
        return body.ok ? body.bytes.toString('utf8') : null
      }
      const caller = await authorizeTick({ request, readBody, config: tick })
      if (overLimit) return tooLarge()
      if (!caller)
        return errorResponse(
          401,
          'UNAUTHORIZED',
          'Only the scheduler may run the tick: Vercel Cron with its bearer secret, or a signed QStash request.',
          {
            'www-authenticate': 'Bearer',
          },
        )
      const summary = await runTick({ read: read(), deploy: deploy.services, caller, intervalSeconds: tick.intervalSeconds || 60 })
      return jsonResponse({ body: JSON.stringify(summary), headers: { 'cache-control': 'no-store' } })
    },
  })
}
