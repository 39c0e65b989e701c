import type { z } from 'zod'
import type { ErrorContract } from '../../platform/errorAnswer.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { problemsOf } from '../../platform/problems.js'
import { type DeployResult, invalidRequest } from '../outcome.js'
import type { DeployServices } from '../services.js'

// What one agent action is made of, and the answers every action shares. Each action is one module in this folder;
// `registry.ts` lists them, and both doors (POST /api/b20-skill and the MCP tools) dispatch through it.

/** The calling agent, as its key was matched: its key's digest, and its own rolling cap when its key has one. */
export type CallingAgent = { digest: string; dailyCap: number | null }

/** What a checked request runs once the services are loaded. */
export type ActionRun = (parameters: { services: DeployServices; agent: CallingAgent }) => Promise<HttpAnswer>

/**
 * What a public action's checked request runs: `agent` is null for a caller without a key. It is an {@link ActionRun}
 * too (it takes any agent), so a public action's check answers one like every other.
 */
export type PublicActionRun = (parameters: { services: DeployServices; agent: CallingAgent | null }) => Promise<HttpAnswer>

/**
 * Who may call an action: `agent`, a caller whose agent key matched (the default); `public`, anyone, a caller without a
 * key throttled per client: the action answers public facts or prepared calls, and spends, signs and sends nothing.
 */
export type ActionAccess = 'agent' | 'public'

/**
 * The outcome of checking a request: what to run, and what the check read (`T`: a deploy's intent, a receipt's hash),
 * for a door that runs the action its own way (the paid door); or the refusal (which loads nothing).
 */
export type CheckedRequest<T extends object = object> = DeployResult<{ run: ActionRun } & T>

/** A tool call as the action's HTTP request (its body and `Idempotency-Key`), or why the arguments cannot be one. */
export type ToolRequest = DeployResult<{ body: Record<string, unknown>; idempotencyKey: string | null }>

/** What an MCP client sees of an action, and how the tool's arguments become the action's request. */
export type ActionTool = {
  name: string
  title: string
  /** What the tool adds to the action's summary (how to use it, what it needs). */
  description: string
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean }
  /** The tool's arguments, as `tools/list` shows their JSON Schema. */
  input: z.ZodType
  /** The HTTP request the arguments stand for; their own names are kept (a check names a tool's field as it spells it). */
  toRequest(args: Record<string, unknown>): ToolRequest
  /** Body field names the tool spells otherwise (`tx_hash` is the tool's `txHash`), for the problems it reports. */
  renamed?: Readonly<Record<string, string>>
  /** A short sentence beside the structured result of a success. */
  summarize(body: Record<string, unknown>): string
}

/**
 * One agent action: its `action` name, its request schema and check, what it runs, the schemas of what it answers,
 * and the text its HTTP documentation and its MCP tool share (`summary`). `T` is what its check reads for a door.
 */
export type AgentAction<T extends object = object> = {
  /** The body's `action`. */
  name: string
  /** What the action does, in one sentence: the OpenAPI description and the MCP tool's description start with it. */
  summary: string
  /** The request body, as the OpenAPI document declares it. */
  schema: z.ZodType
  /** Request examples for the OpenAPI document. */
  examples?: Readonly<Record<string, { summary: string; value: unknown }>>
  /** What a success answers (its `ok: false` answers are the shared failure schema). */
  answers: readonly z.ZodType[]
  /** Who may call it (default `agent`); a `public` action's check answers a {@link PublicActionRun}. */
  access?: ActionAccess
  /** Checks a request with nothing loaded; answers what to run, or the refusal. */
  check(request: { body: unknown; idempotencyKey: string | null }): CheckedRequest<T>
  tool: ActionTool
}

/** Defines an {@link AgentAction}: a typed identity, so an action reads as one declaration. */
export function defineAgentAction<T extends object = object>(action: AgentAction<T>): AgentAction<T> {
  return action
}

/** A 200 answer with the given body (a domain outcome, `ok` true or false). */
export const answer = (body: object, headers?: Record<string, string>): HttpAnswer => ({
  status: 200,
  body: body as Record<string, unknown>,
  ...(headers ? { headers } : {}),
})

/** Checks a body against an action's schema; answers its parsed data, or the refusal that lists every problem. */
export function checkBody<T>(schema: z.ZodType<T>, body: unknown, action: string): DeployResult<{ data: T }> {
  const parsed = schema.safeParse(body)
  return parsed.success ? { ok: true, data: parsed.data } : invalidRequest(action, problemsOf(parsed.error))
}

/**
 * How an agent door answers an error (lib/platform/errorAnswer.ts): bodies with `ok: false`, and an error nobody
 * expected logged as `agent_action_failed`. `door` names the door in the log line.
 */
export const agentDoorErrors = (door: string): ErrorContract => ({ endpoint: door, withOk: true, unexpectedEvent: 'agent_action_failed' })
