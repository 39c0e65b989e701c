import { type DeployConfig, loadDeployConfig, logConfigFailure } from '../platform/config.js'
import { createLogger, errorName, type Logger } from '../platform/log.js'
import type { DeployTokenReturnType } from './deployToken.js'
import { IDEMPOTENCY_KEY_PATTERN, runIdempotently } from './idempotency.js'
import { type DeployIntent, parseDeployIntent, parseListDeploysRequest, parseReceiptRequest } from './intent.js'
import { failure } from './outcome.js'
import type { DeployServices } from './services.js'

// The agent actions (agent_deploy, receipt, list_deploys) behind both doors: POST /api/b20-skill and the MCP tools.
// The caller has already matched the agent key; every refusal that needs only the body comes before the chain and
// signing code is loaded.

/**
 * Where the actions get their configuration and services. `config` is cheap (the environment through zod) and is all
 * a refusal needs; `services` loads viem, the AWS SDK and the signer, and is only called for a valid request.
 */
export type DeployServicesSource = {
  config: () => DeployConfig
  services: () => Promise<DeployServices>
  /** Where refusals are logged (before any service is loaded). */
  logger: () => Logger
}

/** A source over services already built (tests, the sandbox). */
export function deployServicesFrom(build: () => DeployServices): DeployServicesSource {
  return { config: () => build().config, services: async () => build(), logger: () => build().logger }
}

let defaultLogger: Logger | undefined

let defaultConfig: DeployConfig | undefined

/** The instance's source: configuration from `process.env`, services loaded on the first valid request. */
export const defaultDeployServicesSource: DeployServicesSource = {
  config: () => (defaultConfig ??= loadDeployConfig(process.env)),
  services: async () => (await import('./runtime.js')).getDeployServices(),
  logger: () => (defaultLogger ??= createLogger()),
}

const loadRuntime = () => import('./runtime.js')

/** An action's answer: the HTTP status and JSON body (spec: domain outcomes are 200 with `ok`), and extra headers. */
export type AgentActionAnswer = { status: number; body: Record<string, unknown>; headers?: Record<string, string> }

/** Parameters of {@link runAgentAction}. */
export type RunAgentActionParameters = {
  source: DeployServicesSource
  /** Allowlist digest of the calling agent (already matched). */
  agentDigest: string
  /** The parsed JSON body, `action` included. */
  body: unknown
  /** The `Idempotency-Key` presented, if any. */
  idempotencyKey: string | null
}

/** Answer of a misconfigured service: the operator's log says what is wrong, the caller only that something is. */
export const MISCONFIGURED: AgentActionAnswer = {
  status: 500,
  body: { ok: false, error: 'The service is misconfigured; the operator has been told.', code: 'CONFIG_INVALID' },
}

const answer = (body: object, headers?: Record<string, string>): AgentActionAnswer => ({
  status: 200,
  body: body as Record<string, unknown>,
  ...(headers ? { headers } : {}),
})

/** Runs one agent action for an allowlisted agent and answers it; never throws. */
export async function runAgentAction({ source, agentDigest, body, idempotencyKey }: RunAgentActionParameters): Promise<AgentActionAnswer> {
  const action = body !== null && typeof body === 'object' ? (body as { action?: unknown }).action : undefined
  let run: (ctx: DeployServices) => Promise<AgentActionAnswer>
  if (action === 'agent_deploy') {
    const checked = checkDeployRequest(body, idempotencyKey)
    if (!checked.ok) return answer(checked.failure)
    run = (ctx) => handleDeploy(ctx, agentDigest, body, checked.intent, idempotencyKey)
  } else if (action === 'receipt') {
    const parsed = parseReceiptRequest(body)
    if (!parsed.ok) return answer(failure('INVALID_INTENT', 'The receipt request is invalid; see details.', { details: parsed.details }))
    run = async (ctx) =>
      answer(await (await loadRuntime()).readDeployReceipt({ services: ctx, txHash: parsed.txHash, waitSeconds: parsed.waitSeconds }))
  } else if (action === 'list_deploys') {
    const parsed = parseListDeploysRequest(body)
    if (!parsed.ok)
      return answer(failure('INVALID_INTENT', 'The list_deploys request is invalid; see details.', { details: parsed.details }))
    run = async (ctx) => answer(await (await loadRuntime()).listDeploys({ services: ctx, agentDigest, limit: parsed.limit }))
  } else {
    return answer(
      failure('UNKNOWN_ACTION', 'Unknown or missing action.', {
        details: [{ field: 'action', reason: 'must be "agent_deploy", "receipt" or "list_deploys"' }],
      }),
    )
  }

  let ctx: DeployServices
  try {
    ctx = await source.services()
  } catch (error) {
    logConfigFailure('b20-skill', error)
    return MISCONFIGURED
  }
  try {
    return await run(ctx)
  } catch (error) {
    ctx.logger.error('b20_skill_failed', { error: errorName(error) })
    return { status: 500, body: { ok: false, error: 'The request failed unexpectedly; nothing further was done.', code: 'INTERNAL' } }
  }
}

type CheckedDeployRequest = { ok: true; intent: DeployIntent } | { ok: false; failure: ReturnType<typeof failure> }

/** Validates the intent and the `Idempotency-Key` together, so one answer lists every problem. */
function checkDeployRequest(body: unknown, idempotencyKey: string | null): CheckedDeployRequest {
  const parsed = parseDeployIntent(body)
  const details = parsed.ok ? [] : [...parsed.details]
  if (idempotencyKey !== null && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
    details.push({ field: 'Idempotency-Key', reason: 'must be 1 to 128 visible ASCII characters' })
  }
  if (!parsed.ok || details.length > 0)
    return { ok: false, failure: failure('INVALID_INTENT', 'The deploy intent is invalid; see details.', { details }) }
  return { ok: true, intent: parsed.intent }
}

async function handleDeploy(
  ctx: DeployServices,
  agentDigest: string,
  body: unknown,
  intent: DeployIntent,
  idempotencyKey: string | null,
): Promise<AgentActionAnswer> {
  const { deployToken } = await loadRuntime()
  const run = () => deployToken({ services: ctx, intent, agentDigest })
  let response: DeployTokenReturnType
  let replayed = false
  if (idempotencyKey !== null && !intent.dryRun && ctx.store) {
    ;({ response, replayed } = await runIdempotently({
      store: ctx.store,
      logger: ctx.logger,
      keyPrefix: ctx.config.storePrefix,
      agentDigest,
      idempotencyKey,
      body,
      run,
      isFinal: (r) => r.ok || r.code === 'BROADCAST_UNCERTAIN',
    }))
  } else {
    response = await run()
  }
  ctx.logger.info('deploy_attempt', {
    agent: agentDigest.slice(0, 8),
    name: intent.name,
    symbol: intent.symbol,
    variant: intent.variant,
    decimals: intent.decimals,
    dryRun: intent.dryRun,
    outcome: response.ok ? response.status : response.code,
    txHash: response.ok && response.status === 'broadcast' ? response.txHash : !response.ok ? response.txHash : undefined,
    replayed,
  })
  return answer(response, replayed ? { 'idempotent-replayed': 'true' } : undefined)
}
