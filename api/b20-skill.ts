import { type DeployServicesSource, defaultDeployServicesSource, MISCONFIGURED, runAgentAction } from '../lib/deploy/agentActions.js'
import { createRefusalLog, matchAgentKey } from '../lib/deploy/agentKeys.js'
import { type DeployConfig, logConfigFailure } from '../lib/platform/config.js'
import { guardRequest, jsonResponse, type Method, readJsonBody } from '../lib/platform/http.js'
import { withRequestId } from '../lib/platform/requestId.js'

const METHODS: readonly Method[] = ['POST']

/** Largest request body accepted. */
export const SKILL_BODY_LIMIT_BYTES = 16 * 1024

const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  jsonResponse({ status, body: JSON.stringify(body), headers: { 'cache-control': 'no-store', ...headers } })

export { type DeployServicesSource, defaultDeployServicesSource, deployServicesFrom } from '../lib/deploy/agentActions.js'

/** The `POST /api/b20-skill` handler over the given source of configuration and services. */
export function createB20SkillHandler(source: DeployServicesSource) {
  let logRefusal: ReturnType<typeof createRefusalLog> | undefined
  return async (request: Request): Promise<Response> => {
    const guarded = guardRequest(request, METHODS)
    if (guarded) return guarded
    let config: DeployConfig
    try {
      config = source.config()
    } catch (error) {
      logConfigFailure('b20-skill', error)
      return reply(MISCONFIGURED.status, MISCONFIGURED.body)
    }

    // The allowlist comes before anything else: an unknown caller reaches no body parser, store, chain or KMS.
    const presented = request.headers.get('x-service-key')
    const agentDigest = matchAgentKey(presented, config.allowlist)
    if (!agentDigest) {
      logRefusal ??= createRefusalLog({ logger: source.logger() })
      logRefusal({ door: 'b20-skill', presented })
      return reply(403, { ok: false, error: 'X-Service-Key is missing or not on the deploy allowlist.', code: 'FORBIDDEN' })
    }

    const read = await readJsonBody(request, SKILL_BODY_LIMIT_BYTES)
    if (!read.ok) return reply(read.status, { ok: false, error: read.message, code: read.code })
    const answer = await runAgentAction({ source, agentDigest, body: read.body, idempotencyKey: request.headers.get('idempotency-key') })
    return reply(answer.status, answer.body, answer.headers)
  }
}

export default { fetch: withRequestId(createB20SkillHandler(defaultDeployServicesSource)) }
