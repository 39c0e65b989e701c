import type { MiddlewareHandler } from 'hono'
import { jsonResponse } from '../../platform/http.js'
import type { HttpAnswer } from '../../platform/httpAnswer.js'
import { errorName, type Logger, processLogger } from '../../platform/log.js'
import { perInstance } from '../../platform/perInstance.js'
import { accepted, type Result, refused } from '../../platform/result.js'
import { StoreError } from '../../store/types.js'
import { AGENT_KEY_MAX_LENGTH, createRefusalLog, matchAgentKey, refusalText } from '../agents/agentKeys.js'
import type { DeployServicesSource } from '../instance.js'
import type { CallingAgent } from './action.js'

// The agent key, checked once per request as middleware, for both doors: POST /api/b20-skill refuses a caller without
// a valid key before reading its body; the MCP endpoint lets read tools through and has agent tools ask the verdict.

/** The door an agent came through: the HTTP endpoint takes `X-Service-Key`, MCP also `Authorization: Bearer`. */
export type AgentDoor = 'b20-skill' | 'mcp'

/** The verdict on a request's agent key: the agent, or the answer it gets instead (refused with that answer's code). */
export type AgentVerdict = Result<{ agent: CallingAgent }, string, { answer: HttpAnswer }>

/** A refusal answered with `answer`, under its code. */
const refusedWith = (answer: HttpAnswer): AgentVerdict => refused(String(answer.body.code), { answer })

/**
 * What the agent-key middleware hands the handler: the verdict, checked the first time it is asked (once at most), and
 * whether the request presented a key at all (a caller without one may still ask the public actions).
 */
export type AgentKeyVariables = { agentKey: () => Promise<AgentVerdict>; keyPresented: boolean }

/** The agent key of a request: `X-Service-Key`, and on MCP also `Authorization: Bearer <key>`. */
export function presentedAgentKey(request: Request, door: AgentDoor): string | null {
  const header = request.headers.get('x-service-key')
  if (header || door !== 'mcp') return header || null
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1]
  return bearer && bearer.length <= AGENT_KEY_MAX_LENGTH ? bearer : null
}

/** The answer to a caller whose key could not be checked (the registry's store is unreachable). */
export const AGENT_CHECK_UNAVAILABLE: HttpAnswer = {
  status: 200,
  body: refused('STORE_UNAVAILABLE', {
    error: 'The agent keys cannot be checked right now (the shared store is unreachable); nothing was done. Try again shortly.',
    retryAfterSeconds: 5,
  }),
}

/** Parameters of {@link judgeAgentKey}. */
export type JudgeAgentKeyParameters = {
  source: DeployServicesSource
  door: AgentDoor
  /** The key presented ({@link presentedAgentKey}), or null. */
  presented: string | null
  /** Logs a refusal (`createRefusalLog`: a few lines a second at most). */
  logRefusal: ReturnType<typeof createRefusalLog>
}

/**
 * Judges a presented agent key before anything else (no body, chain or signer): none is a refusal whatever else is
 * wrong; then `DEPLOY_ALLOWLIST`, then the keys issued at runtime. A registry that cannot be read refuses no one for
 * good: the caller is told to retry. Anything else (a broken configuration among them) is thrown on, to the door's one
 * mapping of errors (lib/platform/errorAnswer.ts).
 */
export async function judgeAgentKey({ source, door, presented, logRefusal }: JudgeAgentKeyParameters): Promise<AgentVerdict> {
  const refuse = (reason: Parameters<typeof refusalText>[0]): AgentVerdict => {
    logRefusal({ endpoint: door, presented, reason })
    const named = door === 'mcp' ? 'The agent key (X-Service-Key or Authorization: Bearer)' : 'X-Service-Key'
    return refusedWith({ status: 403, body: refused('FORBIDDEN', { error: `${named} is ${refusalText(reason)}.` }) })
  }
  if (!presented) return refuse('no key')
  const allowed = matchAgentKey(presented, source.config().allowlist)
  if (allowed) return accepted({ agent: { digest: allowed, dailyCap: null } })
  try {
    const verdict = await (await source.agents()).check(presented)
    if (!verdict.ok) return refuse(verdict.reason)
    return accepted({ agent: { digest: verdict.digest, dailyCap: verdict.dailyCap } })
  } catch (error) {
    if (!(error instanceof StoreError)) throw error
    loggerOf(source).warn('store_unavailable', { operation: 'agent_keys', error: errorName(error), effect: 'key not checked' })
    return refusedWith(AGENT_CHECK_UNAVAILABLE)
  }
}

/** Parameters of {@link agentKeyMiddleware}. */
export type AgentKeyMiddlewareParameters = { source: DeployServicesSource; door: AgentDoor }

/**
 * The agent-key check of a door, as Hono middleware ({@link judgeAgentKey}, at most once per request). On
 * `b20-skill` a key that is presented and refused is answered here, before the body is read; a request without a key
 * goes on to its body, since public actions need none (the door refuses any other action at once). On `mcp` the
 * verdict waits for a tool that needs it.
 */
export function agentKeyMiddleware({ source, door }: AgentKeyMiddlewareParameters): MiddlewareHandler<{ Variables: AgentKeyVariables }> {
  // One refusal log per instance, over the instance's logger.
  const logRefusal = perInstance(() => createRefusalLog({ logger: loggerOf(source) }))
  return async (c, next) => {
    const presented = presentedAgentKey(c.req.raw, door)
    let verdict: Promise<AgentVerdict> | undefined
    c.set('keyPresented', presented !== null)
    c.set('agentKey', () => {
      verdict ??= judgeAgentKey({ source, door, presented, logRefusal: logRefusal() })
      return verdict
    })
    if (door === 'b20-skill' && presented !== null) {
      const judged = await c.var.agentKey()
      if (!judged.ok) {
        const { status, body } = judged.answer
        return jsonResponse({ status, body: JSON.stringify(body), headers: { 'cache-control': 'no-store' } })
      }
    }
    return next()
  }
}

/** Where refusals are logged: the source's logger, or the process's when the configuration cannot be loaded. */
function loggerOf(source: DeployServicesSource): Logger {
  try {
    return source.logger()
  } catch {
    return processLogger()
  }
}
