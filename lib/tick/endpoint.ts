import type { ZodOpenApiPathItemObject, ZodOpenApiResponsesObject } from 'zod-openapi'
import { type DeployServicesSource, instanceDeploySource } from '../deploy/instance.js'
import { loadTickConfig, type TickConfig } from '../platform/config.js'
import { createEndpoint, type Endpoint, misconfiguredResponse } from '../platform/edge.js'
import { errorResponse, jsonResponse, type Method, readBodyBytes } from '../platform/http.js'
import { perInstance } from '../platform/perInstance.js'
import { corsHeaders, errorAnswer, jsonAnswer, notAllowedAnswer, preflightOperation, redirectAnswer } from '../platform/routeDocs.js'
import { getReadServices, type ReadServices } from '../read/services.js'
import { authorizeTick } from './authorize.js'
import { runTick } from './runTick.js'
import { tickSummarySchema } from './schema.js'

const METHODS: readonly Method[] = ['GET', 'POST']

/** Largest body the tick accepts (QStash may send one; the tick reads none). */
export const TICK_BODY_LIMIT_BYTES = 64 * 1024

/** Parameters of {@link createTickEndpoint}. */
export type CreateTickEndpointParameters = { read: () => ReadServices; deploy: DeployServicesSource; config: () => TickConfig }

/**
 * The `GET`/`POST /api/tick` handler: the scheduled work, for Vercel Cron (`Authorization: Bearer <CRON_SECRET>`) or
 * QStash (`Upstash-Signature`). Anyone else gets 401 before anything is read or called; the answer is the tick's summary.
 */
export function createTickEndpoint({ read, deploy, config }: CreateTickEndpointParameters): Endpoint {
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

/** The tick endpoint over the instance's own services and `process.env`. */
export const defaultTickEndpoint = () =>
  createTickEndpoint({
    read: getReadServices,
    deploy: instanceDeploySource,
    config: perInstance(() => loadTickConfig(process.env)),
  })

/** The tick's answers, the same for Vercel Cron's GET and QStash's POST. */
const tickAnswers: ZodOpenApiResponsesObject = {
  '200': { ...jsonAnswer(tickSummarySchema, 'What the tick did (ran false: another tick had this interval)'), headers: corsHeaders },
  '308': redirectAnswer,
  '401': { ...errorAnswer('Neither the cron secret nor a valid QStash signature (UNAUTHORIZED)'), headers: corsHeaders },
  '405': notAllowedAnswer,
  '413': { ...errorAnswer(`The body is over ${TICK_BODY_LIMIT_BYTES / 1024} KB (BODY_TOO_LARGE)`), headers: corsHeaders },
  '500': { ...errorAnswer('The service is misconfigured (CONFIG_INVALID)'), headers: corsHeaders },
}

/** `GET`/`POST /api/tick`, as the OpenAPI document declares it. */
export const tickRoute: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'runTick',
    summary: 'Run the scheduled work once (Vercel Cron: Authorization: Bearer <CRON_SECRET>); the answer says what each part did',
    description:
      'The service’s scheduled work, for its scheduler only: Vercel Cron (GET with Authorization: Bearer <CRON_SECRET>) or Upstash QStash (POST signed with Upstash-Signature). Refreshes the control room when older than 30 s, writes the 5-minute snapshot, backfills price lines from candles, follows unmined deploys (outcomes recorded, stuck ones replaced) and runs discovery when due. Claimed once per interval across instances; each part reports on its own.',
    security: [{ cronSecret: [] }, { qstashSignature: [] }],
    responses: tickAnswers,
  },
  post: {
    operationId: 'runTickSigned',
    summary: 'Run the scheduled work once (Upstash QStash, signed with Upstash-Signature)',
    description: `The same tick as a signed QStash POST (body of at most ${TICK_BODY_LIMIT_BYTES / 1024} KB; its hash and the URL are part of the signature).`,
    security: [{ qstashSignature: [] }, { cronSecret: [] }],
    requestBody: { required: false, content: { '*/*': { schema: { type: 'string', maxLength: TICK_BODY_LIMIT_BYTES } } } },
    responses: tickAnswers,
  },
  options: preflightOperation,
}
