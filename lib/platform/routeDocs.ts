import { z } from 'zod'
import type { oas31, ZodOpenApiOperationObject, ZodOpenApiResponseObject } from 'zod-openapi'

/** Response headers, as OpenAPI writes them. */
type Headers = Record<string, oas31.HeaderObject>

import { errorBodySchema } from './http.js'

// The pieces every route's OpenAPI declaration shares: headers, redirects, 405s, preflights and JSON answers.
// Each route is declared beside its handler (as a zod-openapi path item); lib/docs/openapi.ts assembles them.

/** A JSON answer of `schema` (a zod schema, named in the document when it is one of its components). */
export const jsonAnswer = (schema: z.ZodType, description: string): ZodOpenApiResponseObject => ({
  description,
  content: { 'application/json': { schema } },
})

/** Exactly one of `schemas` (a JSON Schema `oneOf`: the alternatives are told apart, as by `action` or `ok`). */
export const oneOf = (schemas: readonly [z.ZodType, ...z.ZodType[]]) =>
  z.union(schemas).meta({
    override: ({ jsonSchema }) => {
      jsonSchema.oneOf = jsonSchema.anyOf
      delete jsonSchema.anyOf
    },
  })

/** An error answer: `{ error, code }`. */
export const errorAnswer = (description: string): ZodOpenApiResponseObject => jsonAnswer(errorBodySchema, description)

/** The CORS header every answer carries. */
export const corsHeaders: Headers = {
  'Access-Control-Allow-Origin': { description: 'Always *', required: true, schema: { type: 'string' } },
}

/** The headers of a cached read (200 and 304). */
export const cachedReadHeaders: Headers = {
  ...corsHeaders,
  ETag: { description: 'Strong validator of the body; send it back in If-None-Match', required: true, schema: { type: 'string' } },
  'Cache-Control': {
    description:
      'public, max-age=<seconds left of the 30 s window, 0 when stale>, s-maxage=<same>, stale-while-revalidate=30, stale-if-error=<STALE_IF_ERROR_SECONDS>',
    required: true,
    schema: { type: 'string' },
  },
  'X-Data-State': {
    description:
      'fresh: within the 30 s window. stale: the last good body, served at once while a refresh runs or while the upstream fails (at most STALE_IF_ERROR_SECONDS old)',
    required: true,
    schema: { type: 'string', enum: ['fresh', 'stale'] },
  },
  'X-Data-Age': {
    description: 'Seconds since the data was fetched from the upstream',
    required: true,
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  'X-Data-Source': {
    description: 'The upstream that served the data: dexscreener, or geckoterminal when DexScreener failed',
    required: false,
    schema: { type: 'string', enum: ['dexscreener', 'geckoterminal'] },
  },
}

/** The headers of a 429 or a 503: when to come back. */
export const retryAfterHeaders: Headers = {
  ...corsHeaders,
  'Retry-After': { description: 'Seconds after which a retry is worth it', required: true, schema: { type: 'string' } },
}

/** The draft-11 throttling headers of a throttled endpoint (`policy` names it, `quota` is the variable that sets it). */
export const quotaHeaders = (policy: string, quota: string): Headers => ({
  'RateLimit-Policy': { description: `"${policy}";q=<${quota}>;w=60`, required: true, schema: { type: 'string' } },
  RateLimit: {
    description: `"${policy}";r=<requests this client has left>;t=<seconds until the window frees one>`,
    required: true,
    schema: { type: 'string' },
  },
})

/** The 308 of a plain-HTTP request. */
export const redirectAnswer: ZodOpenApiResponseObject = {
  description: 'The request reached the edge as plain HTTP: the same URL over https',
  headers: { Location: { required: true, schema: { type: 'string' } } },
}

/** The 405 of a method a path does not take. */
export const notAllowedAnswer: ZodOpenApiResponseObject = {
  ...errorAnswer('Method not allowed'),
  headers: { ...corsHeaders, Allow: { description: 'The methods this path takes', required: true, schema: { type: 'string' } } },
}

/** A CORS preflight (lib/docs/openapi.ts names it and adds its 4xx answers). */
export const preflightOperation: ZodOpenApiOperationObject = {
  summary: 'CORS preflight',
  responses: { '204': { description: 'Allowed methods and headers', headers: corsHeaders }, '308': redirectAnswer },
}

/** The conditional-request header of a cached read. */
export const ifNoneMatchParameter: oas31.ParameterObject = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  schema: { type: 'string' },
}

/** The 304 of a cached read. */
export const notModifiedAnswer: ZodOpenApiResponseObject = { description: 'Not modified since the ETag sent', headers: cachedReadHeaders }
