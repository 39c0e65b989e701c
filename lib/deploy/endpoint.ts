import { createEndpoint, type Endpoint } from '../platform/edge.js'
import { jsonResponse, type Method, readJsonBody } from '../platform/http.js'
import { refused } from '../platform/result.js'
import { type AgentAction, agentDoorErrors } from './actions/action.js'
import { type AgentKeyVariables, agentKeyMiddleware } from './actions/agentKey.js'
import { AGENT_ACTIONS, runAgentAction } from './actions/registry.js'
import type { DeployServicesSource } from './instance.js'

const METHODS: readonly Method[] = ['POST']

/** Largest request body accepted. */
export const SKILL_BODY_LIMIT_BYTES = 16 * 1024

const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  jsonResponse({ status, body: JSON.stringify(body), headers: { 'cache-control': 'no-store', ...headers } })

/** Options of {@link createB20SkillEndpoint}. */
export type B20SkillEndpointOptions = {
  /** The actions the endpoint dispatches (default: the registry's, {@link AGENT_ACTIONS}). */
  actions?: readonly AgentAction[]
}

/**
 * The `POST /api/b20-skill` endpoint over the given source of configuration and services: the agent key first (the
 * middleware answers a caller without a valid one before its body is read), then the body (16 KiB at most), then the
 * action it names, through the registry that MCP dispatches through too.
 */
export function createB20SkillEndpoint(source: DeployServicesSource, { actions = AGENT_ACTIONS }: B20SkillEndpointOptions = {}): Endpoint {
  return createEndpoint<AgentKeyVariables>({
    methods: METHODS,
    errors: agentDoorErrors('b20-skill'),
    middleware: [agentKeyMiddleware({ source, door: 'b20-skill' })],
    handler: async (request, { agentKey }) => {
      const verdict = await agentKey()
      if (!verdict.ok) return reply(verdict.answer.status, verdict.answer.body)
      const read = await readJsonBody(request, SKILL_BODY_LIMIT_BYTES)
      if (!read.ok) return reply(read.status, refused(read.code, { error: read.message }))
      const idempotencyKey = request.headers.get('idempotency-key')
      const answer = await runAgentAction({ source, agent: verdict.agent, body: read.body, idempotencyKey, actions })
      return reply(answer.status, answer.body, answer.headers)
    },
  })
}
