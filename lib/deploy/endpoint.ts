import { createEndpoint, type Endpoint } from '../platform/edge.js'
import { jsonResponse, type Method, readJsonBody } from '../platform/http.js'
import { refused } from '../platform/result.js'
import { type AgentAction, agentDoorErrors } from './actions/action.js'
import { type AgentKeyVariables, type AgentVerdict, agentKeyMiddleware } from './actions/agentKey.js'
import { throttleKeylessCaller } from './actions/keylessCaller.js'
import { AGENT_ACTIONS, pickAgentAction, runAgentAction } from './actions/registry.js'
import type { DeployServicesSource } from './instance.js'

const METHODS: readonly Method[] = ['POST']

/** Largest request body accepted. */
export const SKILL_BODY_LIMIT_BYTES = 16 * 1024

const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  jsonResponse({ status, body: JSON.stringify(body), headers: { 'cache-control': 'no-store', ...headers } })

/** The answer to a request without a key that asks no public action: the missing key's 403 (logged by the judge). */
async function refuseKeyless(agentKey: () => Promise<AgentVerdict>): Promise<Response> {
  const verdict = await agentKey()
  return verdict.ok
    ? reply(500, refused('INTERNAL', { error: 'A request without a key was let through.' }))
    : reply(verdict.answer.status, verdict.answer.body)
}

/** Options of {@link createB20SkillEndpoint}. */
export type B20SkillEndpointOptions = {
  /** The actions the endpoint dispatches (default: the registry's, {@link AGENT_ACTIONS}). */
  actions?: readonly AgentAction[]
}

/**
 * The `POST /api/b20-skill` endpoint over the given source of configuration and services: the agent key first (the
 * middleware answers a refused key before the body is read), then the body (16 KiB at most), then the action it
 * names, through the registry that MCP dispatches through too. Without a key, a public action is throttled per client
 * and answered; any other is refused as before (403), nothing loaded.
 */
export function createB20SkillEndpoint(source: DeployServicesSource, { actions = AGENT_ACTIONS }: B20SkillEndpointOptions = {}): Endpoint {
  return createEndpoint<AgentKeyVariables>({
    methods: METHODS,
    errors: agentDoorErrors('b20-skill'),
    middleware: [agentKeyMiddleware({ source, door: 'b20-skill' })],
    handler: async (request, { agentKey, keyPresented }) => {
      const verdict = keyPresented ? await agentKey() : null
      if (verdict && !verdict.ok) return reply(verdict.answer.status, verdict.answer.body)
      const read = await readJsonBody(request, SKILL_BODY_LIMIT_BYTES)
      // Without a key, a body that names no public action (unreadable, too large) gets the refusal of a missing key.
      if (!read.ok && !verdict) return refuseKeyless(agentKey)
      if (!read.ok) return reply(read.status, refused(read.code, { error: read.message }))
      const idempotencyKey = request.headers.get('idempotency-key')
      if (verdict) {
        const answer = await runAgentAction({ source, agent: verdict.agent, body: read.body, idempotencyKey, actions })
        return reply(answer.status, answer.body, answer.headers)
      }
      // No key: a public action, counted per client; anything else gets the refusal of a missing key.
      const picked = pickAgentAction({ body: read.body, offered: actions })
      if (!picked.ok || picked.action.access !== 'public') return refuseKeyless(agentKey)
      const share = await throttleKeylessCaller(source, request)
      if (!share.ok) return reply(share.answer.status, share.answer.body, share.answer.headers)
      const answer = await runAgentAction({ source, agent: null, body: read.body, idempotencyKey, actions })
      return reply(answer.status, answer.body, { ...share.headers, ...answer.headers })
    },
  })
}
