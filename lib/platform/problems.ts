import type { z } from 'zod'

/** One problem with a request: the field it concerns and why, as every `details` array lists them. */
export type RequestProblem = { field: string; reason: string }

/** Parameters of {@link problemsOf}. */
export type ProblemsOfParameters = {
  /** What the parsed value is called when it is not an object at all (default `body`; `arguments` for an MCP tool's). */
  root?: string
  /** Names every field under `root` (`pool.amount` for the `pool` of a request), instead of from the top. */
  nested?: boolean
  /** Why a value that is not an object is refused (default `must be a JSON object`). */
  notAnObject?: string
}

/**
 * Every problem of a failed zod parse, by field (dotted path): each unknown key named on its own, and a value that is
 * not an object at all named `root`.
 */
export function problemsOf(error: z.ZodError, parameters: ProblemsOfParameters = {}): RequestProblem[] {
  const { root = 'body', nested = false, notAnObject = 'must be a JSON object' } = parameters
  const named = (path: readonly PropertyKey[]) => [...(nested ? [root] : []), ...path.map(String)].join('.')
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ field: named([key]), reason: 'is not a known field' }))
    if (issue.path.length === 0) return [{ field: root, reason: notAnObject }]
    return [{ field: named(issue.path), reason: issue.message }]
  })
}
