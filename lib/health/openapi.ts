import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { corsHeaders, errorAnswer, jsonAnswer, notAllowedAnswer, preflightOperation, redirectAnswer } from '../platform/routeDocs.js'
import { healthSchema } from './schema.js'

// `GET /api/health` as the OpenAPI document declares it.

/** `GET /api/health`, as the OpenAPI document declares it. */
export const healthOpenApi: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getHealth',
    summary:
      'Service health: { ok, version, dataAgeSeconds } for anyone (cached 5 s); every part (store, upstreams, RPC, signer, deploys) with Authorization: Bearer <HEALTH_TOKEN>',
    description:
      'For uptime monitors and dashboards: whether the configured store answers, the version and the data age. With the health token: every part, each probed at once under 3 s; never a secret.',
    security: [{}, { healthToken: [] }],
    responses: {
      '200': {
        ...jsonAnswer(healthSchema, 'The public view, or with the health token the detailed view (never cached)'),
        headers: corsHeaders,
      },
      '308': redirectAnswer,
      '401': { ...errorAnswer('Authorization names a wrong health token (UNAUTHORIZED)'), headers: corsHeaders },
      '405': notAllowedAnswer,
      '500': { ...errorAnswer('The service is misconfigured (CONFIG_INVALID)'), headers: corsHeaders },
    },
  },
  options: preflightOperation,
}
