// The one shape every door answers in before it becomes a Response: the agent actions (HTTP and MCP), the paid door,
// and an error mapped to an answer. It imports nothing.

/** An answer as HTTP carries it: the status, the JSON body (domain outcomes are 200 with `ok`), and extra headers. */
export type HttpAnswer = { status: number; body: Record<string, unknown>; headers?: Record<string, string> }
