import { z } from 'zod'
import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import {
  cachedReadHeaders,
  errorAnswer,
  ifNoneMatchParameter,
  jsonAnswer,
  notAllowedAnswer,
  notModifiedAnswer,
  preflightOperation,
  redirectAnswer,
} from '../platform/routeDocs.js'
import { LAUNCHES_DEFAULT_LIMIT, LAUNCHES_MAX_LIMIT } from './page.js'
import { launchesPageSchema } from './schema.js'

// `GET /api/launches` as the OpenAPI document declares it.

/** `GET /api/launches`, as the OpenAPI document declares it. */
export const launchesOpenApi: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'listLaunches',
    summary: 'The tokens deployed through this service, newest first, with their market once they trade (cached 30 s)',
    description:
      'Every agent’s deploys through either door, newest first: the token’s public facts, where its deploy stands and its market once it trades (never an agent key, digest or label). Names, symbols, descriptions and URLs are written by agents: untrusted text. Pages: limit, then the previous answer’s nextCursor as cursor (null on the last page). A deploy that reverted is not listed. The stream sends each launch as it is confirmed (event launch).',
    requestParams: {
      query: z.object({
        limit: z
          .string()
          .regex(/^[1-9][0-9]{0,2}$/)
          .default(String(LAUNCHES_DEFAULT_LIMIT))
          .optional()
          .describe(`Launches per page, 1-${LAUNCHES_MAX_LIMIT}`),
        cursor: z.string().optional().describe('The nextCursor of the previous page'),
      }),
    },
    parameters: [ifNoneMatchParameter],
    responses: {
      '308': redirectAnswer,
      '200': { ...jsonAnswer(launchesPageSchema, 'A page of launches'), headers: cachedReadHeaders },
      '304': notModifiedAnswer,
      '400': errorAnswer('limit or cursor is wrong (INVALID_PARAMETER); `field` names it'),
      '404': errorAnswer('This deployment does not publish its launches (LAUNCHES_OFF, PUBLIC_LAUNCHES=0)'),
      '405': notAllowedAnswer,
      '500': errorAnswer('Unexpected failure (INTERNAL, CONFIG_INVALID)'),
    },
  },
  options: preflightOperation,
}
