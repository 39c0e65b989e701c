import type { DeployServicesSource } from '../deploy/instance.js'
import { createEndpoint, type Endpoint, misconfiguredResponse } from '../platform/edge.js'
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
    handler: async (request) => {
      let tick: TickConfig
      try {
        tick = config()
      } catch (error) {
        return misconfiguredResponse('tick', error)
      }
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
      let services: ReadServices
      try {
        services = read()
      } catch (error) {
        return misconfiguredResponse('tick', error)
      }
      const summary = await runTick({ read: services, deploy: deploy.services, caller, intervalSeconds: tick.intervalSeconds || 60 })
      return jsonResponse({ body: JSON.stringify(summary), headers: { 'cache-control': 'no-store' } })
    },
  })
}
