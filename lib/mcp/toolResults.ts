// The results MCP tools answer: the JSON the HTTP API answers, as `structuredContent`, with a short text.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { z } from 'zod'
import { problemsOf } from '../platform/problems.js'
import { refused } from '../platform/result.js'

/** A tool result: the JSON the HTTP API answers as `structuredContent`, a short text, and `isError` for failures. */
export function toolResult(body: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: body, ...(body.ok === false ? { isError: true } : {}) }
}

/** A failed tool result: the API's refusal body with its code and sentence, `isError` set. */
export const failed = (code: string, error: string, extra: Record<string, unknown> = {}) =>
  toolResult(refused(code, { error, ...extra }), `${code}: ${error}`)

/** Problems of arguments that failed a read tool's schema, in the API's `details` shape. */
export function invalidArguments(error: z.ZodError): CallToolResult {
  return failed('INVALID_ARGUMENTS', 'The tool arguments are invalid; see details.', { details: problemsOf(error, { root: 'arguments' }) })
}

/** Maps the HTTP body's field names in problem details back to the tool's own (`tx_hash` is `txHash`). */
export const renameBodyFields = (body: Record<string, unknown>, renamed: Readonly<Record<string, string>> = {}) =>
  Array.isArray(body.details)
    ? { ...body, details: body.details.map((d: { field: string; reason: string }) => ({ ...d, field: renamed[d.field] ?? d.field })) }
    : body
