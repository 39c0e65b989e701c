import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { corsHeaders, notAllowedAnswer, preflightOperation } from '../platform/routeDocs.js'
import { MCP_BODY_LIMIT_BYTES } from './endpoint.js'
import { DEPLOY_TOKEN_PAID_TOOL, X402_PAYMENT_META } from './paidTool.js'
import { type ToolDefinition, toolNamesOf, toolsOf } from './tools.js'

const jsonRpc = (description: string, schemaDescription = 'A JSON-RPC message') => ({
  description,
  content: { 'application/json': { schema: { type: 'object' as const, description: schemaDescription } } },
})

/** `POST /api/mcp`, as the OpenAPI document declares it for the given tools (its handler is `createMcpEndpoint` in `endpoint.ts`). */
export function mcpOpenApiOf(tools: readonly ToolDefinition[] = toolsOf()): ZodOpenApiPathItemObject {
  const names = toolNamesOf(tools)
  return {
    post: {
      operationId: 'mcp',
      summary: `Model Context Protocol over Streamable HTTP (stateless, JSON answers). Tools: ${names.keyless.join(', ')}, keyless; ${names.needsAgentKey.join(', ')}, with the agent key as X-Service-Key or Authorization: Bearer; ${DEPLOY_TOKEN_PAID_TOOL.name}, paid per call with x402 (no key), listed while paid deploys are on`,
      description: `The same market data and agent actions as Model Context Protocol tools (Streamable HTTP, stateless: a new server per request, JSON answers). ${DEPLOY_TOKEN_PAID_TOOL.name} is the paid door (POST /api/x402/deploy) by x402's MCP transport: without a payment its result is isError with the x402 PaymentRequired in structuredContent; the same call again with the PaymentPayload in params._meta["${X402_PAYMENT_META}"] deploys, the settlement in the result's _meta["x402/payment-response"]. A browser Origin that is not allowed gets 403 before any tool runs.`,
      security: [{}, { serviceKey: [] }, { bearerAgentKey: [] }],
      parameters: [
        {
          name: 'Accept',
          in: 'header',
          required: true,
          description: 'application/json, text/event-stream (as the MCP transport requires)',
          schema: { type: 'string' },
        },
        { name: 'Mcp-Protocol-Version', in: 'header', required: false, schema: { type: 'string' } },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { type: 'object', description: 'A JSON-RPC 2.0 message (initialize, tools/list, tools/call, ...)' },
          },
        },
      },
      responses: {
        '200': {
          ...jsonRpc(
            'JSON-RPC answer',
            'The JSON-RPC answer; a failed tool call is a result with isError: true and structuredContent { ok: false, error, code }',
          ),
          headers: corsHeaders,
        },
        '202': { description: 'A notification or response was accepted (no body)', headers: corsHeaders },
        '403': jsonRpc(
          'A browser Origin that may not call the MCP server (see MCP_ALLOWED_ORIGINS); no tool ran',
          'A JSON-RPC error (id null)',
        ),
        '400': { ...jsonRpc('Not a JSON-RPC message (a JSON-RPC error body)'), headers: corsHeaders },
        '405': notAllowedAnswer,
        '406': { ...jsonRpc('Accept does not list application/json and text/event-stream'), headers: corsHeaders },
        '413': { ...jsonRpc(`Body larger than ${MCP_BODY_LIMIT_BYTES / 1024} KiB`), headers: corsHeaders },
        '415': { ...jsonRpc('Content-Type is not application/json'), headers: corsHeaders },
        '500': jsonRpc('MCP_ALLOWED_ORIGINS is malformed (CONFIG_INVALID)'),
      },
    },
    options: preflightOperation,
  }
}
