import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { notAllowedAnswer } from '../platform/routeDocs.js'

// The documents' own endpoints as the OpenAPI document declares them.

/** `GET /api/skill`, as the OpenAPI document declares it. */
export const skillOpenApi: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getSkill',
    summary: 'The agent skill file (also at /skill.md)',
    description: 'The agent skill file: how an AI agent reads market data and deploys, with examples.',
    responses: {
      '200': { description: 'Markdown', content: { 'text/markdown': { schema: { type: 'string' } } } },
      '405': notAllowedAnswer,
    },
  },
}

/** `GET /api/llms`, as the OpenAPI document declares it. */
export const llmsTxtOpenApi: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getLlmsTxt',
    summary: 'llms.txt index (also at /llms.txt)',
    description: 'The llms.txt index: what the service is and where an agent reads on.',
    responses: { '200': { description: 'Text', content: { 'text/plain': { schema: { type: 'string' } } } }, '405': notAllowedAnswer },
  },
}

/** `GET /api/openapi`, as the document declares itself. */
export const openApiOpenApi: ZodOpenApiPathItemObject = {
  get: {
    operationId: 'getOpenApi',
    summary: 'This document (also at /openapi.json)',
    description: 'This OpenAPI 3.1 document, generated from the zod schemas the handlers validate with.',
    responses: {
      '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } },
      '405': notAllowedAnswer,
    },
  },
}
