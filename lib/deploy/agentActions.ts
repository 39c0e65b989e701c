import { logConfigFailure } from '../platform/config.js'
import { createLogger, errorName, type Logger, unexpectedErrorFields } from '../platform/log.js'
import { currentRequestId } from '../platform/requestId.js'
import { StoreError } from '../store/types.js'
import { type AgentRefusalReason, matchAgentKey } from './agents/agentKeys.js'
import { type AgentRegistry, createAgentRegistry } from './agents/agentRegistry.js'
import { type DeployConfig, loadDeployConfig } from './config.js'
import { failure } from './outcome.js'
import type { DeployTokenReturnType } from './pipeline/deployToken.js'
import { IDEMPOTENCY_KEY_PATTERN, runIdempotently } from './pipeline/idempotency.js'
import {
  type DeployIntent,
  parseDeployIntent,
  parseListDeploysRequest,
  parseListEventsRequest,
  parseReceiptRequest,
  parseRedeliverRequest,
} from './pipeline/intent.js'
import type { DeployServices } from './services.js'

// The agent actions (agent_deploy, receipt, list_deploys, list_events, redeliver) behind both endpoints: POST /api/b20-skill and the MCP tools.
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
  /** The keys issued at runtime (`npm run agents`), asked only for a key not in `DEPLOY_ALLOWLIST`. */
  agents: () => Promise<AgentRegistry>
}

/** A source over services already built (tests, the sandbox). */
export function deployServicesFrom(build: () => DeployServices): DeployServicesSource {
  let agents: AgentRegistry | undefined
  return {
    config: () => build().config,
    services: async () => build(),
    logger: () => build().logger,
    agents: async () => {
      const { config, store } = build()
      agents ??= createAgentRegistry({ store, storePrefix: config.storePrefix })
      return agents
    },
  }
}

let defaultLogger: Logger | undefined

let defaultConfig: DeployConfig | undefined

let defaultAgents: AgentRegistry | undefined

/** The instance's source: configuration from `process.env`, services loaded on the first valid request. */
export const defaultDeployServicesSource: DeployServicesSource = {
  config: () => (defaultConfig ??= loadDeployConfig(process.env)),
  services: async () => (await import('./runtime.js')).getDeployServices(),
  logger: () => (defaultLogger ??= createLogger()),
  // Only a shared store can hold keys issued at runtime (an in-process one is this instance's alone).
  // The store adapter is loaded only when a key outside the allowlist arrives.
  agents: async () => {
    if (!defaultAgents) {
      const config = defaultDeployServicesSource.config()
      const store = config.redis ? (await import('../store/upstash.js')).createUpstashStore(config.redis) : null
      defaultAgents = createAgentRegistry({ store, storePrefix: config.storePrefix })
    }
    return defaultAgents
  },
}

/** Who is calling, by the key presented: an agent (its digest and own cap), a refusal and why, or a failure to tell. */
export type AgentAuthorization =
  | { kind: 'agent'; digest: string; dailyCap: number | null }
  | { kind: 'refused'; reason: AgentRefusalReason }
  | { kind: 'misconfigured' }
  | { kind: 'unavailable' }

/**
 * Checks a presented agent key before anything else (no body, chain or signer): `DEPLOY_ALLOWLIST`, then the keys
 * issued at runtime. A registry that cannot be read refuses no one for good: the caller is told to retry.
 */
export async function authorizeAgent(
  source: DeployServicesSource,
  presented: string | null,
  endpoint: 'b20-skill' | 'mcp',
): Promise<AgentAuthorization> {
  // No key is a refusal whatever else is wrong: nothing about the service is read for it.
  if (!presented) return { kind: 'refused', reason: 'no key' }
  let config: DeployConfig
  try {
    config = source.config()
  } catch (error) {
    logConfigFailure(endpoint, error)
    return { kind: 'misconfigured' }
  }
  const allowed = matchAgentKey(presented, config.allowlist)
  if (allowed) return { kind: 'agent', digest: allowed, dailyCap: null }
  try {
    const verdict = await (await source.agents()).check(presented)
    return verdict.ok ? { kind: 'agent', digest: verdict.digest, dailyCap: verdict.dailyCap } : { kind: 'refused', reason: verdict.reason }
  } catch (error) {
    if (!(error instanceof StoreError)) throw error
    source.logger().warn('store_unavailable', { operation: 'agent_keys', error: errorName(error), effect: 'key not checked' })
    return { kind: 'unavailable' }
  }
}

/** The answer to a caller whose key could not be checked (the registry's store is unreachable). */
export const AGENT_CHECK_UNAVAILABLE: AgentActionAnswer = {
  status: 200,
  body: {
    ok: false,
    error: 'The agent keys cannot be checked right now (the shared store is unreachable); nothing was done. Try again shortly.',
    code: 'STORE_UNAVAILABLE',
    retryAfterSeconds: 5,
  },
}

const loadRuntime = () => import('./runtime.js')

/** An action's answer: the HTTP status and JSON body (spec: domain outcomes are 200 with `ok`), and extra headers. */
export type AgentActionAnswer = { status: number; body: Record<string, unknown>; headers?: Record<string, string> }

/** Parameters of {@link runAgentAction}. */
export type RunAgentActionParameters = {
  source: DeployServicesSource
  /** Digest of the calling agent's key (already checked by {@link authorizeAgent}). */
  agentDigest: string
  /** The agent's own daily cap, when its key has one (else `DEPLOY_AGENT_DAILY_CAP`). */
  agentDailyCap?: number | null
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
export async function runAgentAction({
  source,
  agentDigest,
  agentDailyCap = null,
  body,
  idempotencyKey,
}: RunAgentActionParameters): Promise<AgentActionAnswer> {
  const action = body !== null && typeof body === 'object' ? (body as { action?: unknown }).action : undefined
  let run: (ctx: DeployServices) => Promise<AgentActionAnswer>
  if (action === 'agent_deploy') {
    const checked = checkDeployRequest(body, idempotencyKey)
    if (!checked.ok) return answer(checked.failure)
    run = (ctx) => handleDeploy(ctx, { digest: agentDigest, dailyCap: agentDailyCap }, body, checked.intent, idempotencyKey)
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
  } else if (action === 'list_events') {
    const parsed = parseListEventsRequest(body)
    if (!parsed.ok)
      return answer(failure('INVALID_INTENT', 'The list_events request is invalid; see details.', { details: parsed.details }))
    run = async (ctx) => answer(await (await loadRuntime()).listEvents({ services: ctx, agentDigest, limit: parsed.limit }))
  } else if (action === 'redeliver') {
    const parsed = parseRedeliverRequest(body)
    if (!parsed.ok) return answer(failure('INVALID_INTENT', 'The redeliver request is invalid; see details.', { details: parsed.details }))
    run = async (ctx) => answer(await (await loadRuntime()).redeliverEvent({ services: ctx, agentDigest, eventId: parsed.eventId }))
  } else {
    return answer(
      failure('UNKNOWN_ACTION', 'Unknown or missing action.', {
        details: [{ field: 'action', reason: 'must be "agent_deploy", "receipt", "list_deploys", "list_events" or "redeliver"' }],
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
    return unexpectedFailure(ctx.logger, error)
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
  agent: { digest: string; dailyCap: number | null },
  body: unknown,
  intent: DeployIntent,
  idempotencyKey: string | null,
): Promise<AgentActionAnswer> {
  const { deployToken } = await loadRuntime()
  const agentDigest = agent.digest
  const run = () => deployToken({ services: ctx, intent, agentDigest, agentDailyCap: agent.dailyCap })
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
  if (ctx.webhooks && response.ok && response.status === 'broadcast' && !replayed) {
    const { initialSupply, supplyCap, recipient } = response.token
    const subject = {
      txHash: response.txHash,
      predictedAddress: response.predictedAddress,
      name: intent.name,
      symbol: intent.symbol,
      ...{ initialSupply, supplyCap, recipient },
    }
    const details = { explorerUrl: response.explorerUrl, signer: response.signer, chainId: response.chainId }
    ctx.background(ctx.webhooks.emit({ agentDigest, type: 'deploy.broadcast', subject, details }))
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

/**
 * The answer to an error nobody expected (a bug, a runtime API missing): 500 `INTERNAL` with the request id to quote,
 * and one log line naming the error. Never "Redis is down" or any other guess at which part failed.
 */
export function unexpectedFailure(logger: Logger, error: unknown): AgentActionAnswer {
  const requestId = currentRequestId()
  logger.error('agent_action_failed', unexpectedErrorFields(error))
  return {
    status: 500,
    body: {
      ok: false,
      error: `The request failed unexpectedly; the operator can trace it by its request id${requestId ? ` (${requestId})` : ''}.`,
      code: 'INTERNAL',
      ...(requestId ? { requestId } : {}),
    },
  }
}
