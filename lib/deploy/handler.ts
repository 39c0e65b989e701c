import { guardRequest, jsonResponse, type Method, readJsonBody } from '../platform/http.js'
import { AGENT_CHECK_UNAVAILABLE, authorizeAgent, type DeployServicesSource, MISCONFIGURED, runAgentAction } from './agentActions.js'
import { createRefusalLog, refusalText } from './agents/agentKeys.js'

const METHODS: readonly Method[] = ['POST']

/** Largest request body accepted. */
export const SKILL_BODY_LIMIT_BYTES = 16 * 1024

const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  jsonResponse({ status, body: JSON.stringify(body), headers: { 'cache-control': 'no-store', ...headers } })

/** The `POST /api/b20-skill` handler over the given source of configuration and services. */
export function createB20SkillHandler(source: DeployServicesSource) {
  let logRefusal: ReturnType<typeof createRefusalLog> | undefined
  return async (request: Request): Promise<Response> => {
    const guarded = guardRequest(request, METHODS)
    if (guarded) return guarded
    // The agent key comes before anything else: an unknown caller reaches no body parser, chain or KMS (and the store
    // only to look for a key issued at runtime, at most once a second per instance).
    const presented = request.headers.get('x-service-key')
    const agent = await authorizeAgent(source, presented, 'b20-skill')
    if (agent.kind === 'misconfigured') return reply(MISCONFIGURED.status, MISCONFIGURED.body)
    if (agent.kind === 'unavailable') return reply(AGENT_CHECK_UNAVAILABLE.status, AGENT_CHECK_UNAVAILABLE.body)
    if (agent.kind === 'refused') {
      logRefusal ??= createRefusalLog({ logger: source.logger() })
      logRefusal({ endpoint: 'b20-skill', presented, reason: agent.reason })
      return reply(403, { ok: false, error: `X-Service-Key is ${refusalText(agent.reason)}.`, code: 'FORBIDDEN' })
    }

    const read = await readJsonBody(request, SKILL_BODY_LIMIT_BYTES)
    if (!read.ok) return reply(read.status, { ok: false, error: read.message, code: read.code })
    const answer = await runAgentAction({
      source,
      agentDigest: agent.digest,
      agentDailyCap: agent.dailyCap,
      body: read.body,
      idempotencyKey: request.headers.get('idempotency-key'),
    })
    return reply(answer.status, answer.body, answer.headers)
  }
}
