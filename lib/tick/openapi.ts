import type { ZodOpenApiPathItemObject, ZodOpenApiResponsesObject } from 'zod-openapi'
import { corsHeaders, errorAnswer, jsonAnswer, notAllowedAnswer, preflightOperation, redirectAnswer } from '../platform/routeDocs.js'
import { TICK_BODY_LIMIT_BYTES } from './endpoint.js'
import { tickSummarySchema } from './schema.js'

// `GET`/`POST /api/tick` as the OpenAPI document declares it.

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
export const tickOpenApi: ZodOpenApiPathItemObject = {
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
