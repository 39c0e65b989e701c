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
  quotaHeaders,
  redirectAnswer,
  retryAfterHeaders,
} from '../platform/routeDocs.js'
import { LAUNCH_DETAIL_RATE_LIMIT_PER_MINUTE, LAUNCH_DETAIL_TTL_MS } from './config.js'
import { LAUNCHES_DEFAULT_LIMIT, LAUNCHES_MAX_LIMIT } from './page.js'
import { launchDetailSchema, launchesPageSchema } from './schema.js'

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

/** `GET /api/launches/{address}`, as the OpenAPI document declares it. */
export const launchOpenApi: ZodOpenApiPathItemObject = {
  // The path's parameter, for every operation on it (the preflight too).
  parameters: [
    {
      name: 'address',
      in: 'path',
      required: true,
      description: 'The token, 0x + 40 hex (any case)',
      schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
    },
  ],
  get: {
    operationId: 'getLaunch',
    summary: `One launch: the feed’s entry with its powers and pool as the chain has them now (cached ${LAUNCH_DETAIL_TTL_MS / 1000} s)`,
    description:
      'The entry GET /api/launches lists for this token, and beside its fields: powers (admins, minters, pausers, metadataEditors, supplyCap, totalSupply, paused, signerRoles), blockNumber (the block they were read at), and pool with its position once seeded (positionId, owner, liquidity, priceEth, feesOwed: what collect_fees delivers to the owner). A token not launched here (not in the feed: the newest 300 of 30 days) is 404 NOT_A_LAUNCH.',
    parameters: [ifNoneMatchParameter],
    responses: {
      '308': redirectAnswer,
      '200': {
        ...jsonAnswer(launchDetailSchema, 'The launch, its powers and pool'),
        headers: { ...cachedReadHeaders, ...quotaHeaders('launch', String(LAUNCH_DETAIL_RATE_LIMIT_PER_MINUTE)) },
      },
      '304': notModifiedAnswer,
      '400': errorAnswer('address is not a 20-byte hex address (INVALID_PARAMETER, field address)'),
      '404': errorAnswer('Not a token launched through this service (NOT_A_LAUNCH), or launches are not published (LAUNCHES_OFF)'),
      '405': notAllowedAnswer,
      '429': {
        ...errorAnswer(`Too many requests from this client (${LAUNCH_DETAIL_RATE_LIMIT_PER_MINUTE} a minute) (RATE_LIMITED)`),
        headers: { ...retryAfterHeaders, ...quotaHeaders('launch', String(LAUNCH_DETAIL_RATE_LIMIT_PER_MINUTE)) },
      },
      '500': errorAnswer('Unexpected failure (INTERNAL, CONFIG_INVALID)'),
    },
  },
  options: preflightOperation,
}
