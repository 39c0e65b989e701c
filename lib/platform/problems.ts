import type { z } from 'zod'

/** One problem with a request: the field it concerns and why, as every `details` array lists them. */
export type RequestProblem = { field: string; reason: string }

/**
 * Every problem of a failed zod parse, by field (dotted path): each unknown key named on its own, and a value that is
 * not an object at all named `root` ("body" for an HTTP body, "arguments" for an MCP tool's).
 */
export function problemsOf(error: z.ZodError, root = 'body'): RequestProblem[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ field: key, reason: 'is not a known field' }))
    if (issue.path.length === 0) return [{ field: root, reason: 'must be a JSON object' }]
    return [{ field: issue.path.map(String).join('.'), reason: issue.message }]
  })
}
