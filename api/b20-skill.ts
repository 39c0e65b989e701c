import { matchAgentKey } from '../lib/agents.js'
import { ConfigError, loadDeployConfig, type DeployConfig } from '../lib/config.js'
import type { DeployTokenReturnType } from '../lib/deploy/deployToken.js'
import { IDEMPOTENCY_KEY_PATTERN, runIdempotently } from '../lib/deploy/idempotency.js'
import { parseDeployIntent, parseReceiptRequest, type DeployIntent } from '../lib/deploy/intent.js'
import { failure } from '../lib/deploy/outcome.js'
import type { DeployServices } from '../lib/deployServices.js'
import { guardRequest, jsonResponse, readJsonBody, type Method } from '../lib/http.js'
import { errorName } from '../lib/log.js'

const METHODS: readonly Method[] = ['POST']

/** Largest request body accepted. */
export const SKILL_BODY_LIMIT_BYTES = 16 * 1024

const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  jsonResponse({ status, body: JSON.stringify(body), methods: METHODS, headers: { 'cache-control': 'no-store', ...headers } })

/**
 * Where the handler gets its configuration and services. `config` is cheap (the environment through zod) and is all a
 * refusal needs; `services` loads viem, the AWS SDK and the signer, and is only called for a valid request.
 */
export type DeployServicesSource = {
  config: () => DeployConfig
  services: () => Promise<DeployServices>
}

/** A source over services already built (tests, the sandbox). */
export function deployServicesFrom(build: () => DeployServices): DeployServicesSource {
  return { config: () => build().config, services: async () => build() }
}

let defaultConfig: DeployConfig | undefined

/** The instance's source: configuration from `process.env`, services loaded on the first valid request. */
export const defaultDeployServicesSource: DeployServicesSource = {
  config: () => (defaultConfig ??= loadDeployConfig(process.env)),
  services: async () => (await import('../lib/deploy/runtime.js')).getDeployServices(),
}

const loadRuntime = () => import('../lib/deploy/runtime.js')

/** The `POST /api/b20-skill` handler over the given source of configuration and services. */
export function createB20SkillHandler(source: DeployServicesSource) {
  return async (request: Request): Promise<Response> => {
    const guarded = guardRequest(request, METHODS)
    if (guarded) return guarded
    let config: DeployConfig
    try {
      config = source.config()
    } catch (error) {
      console.error(error instanceof ConfigError ? error.message : `b20-skill: configuration failed (${errorName(error)})`)
      return misconfigured()
    }

    // The allowlist comes before anything else: an unknown caller reaches no body parser, store, chain or KMS.
    const agentDigest = matchAgentKey(request.headers.get('x-service-key'), config.allowlist)
    if (!agentDigest) return reply(403, { ok: false, error: 'X-Service-Key is missing or not on the deploy allowlist.', code: 'FORBIDDEN' })

    const read = await readJsonBody(request, SKILL_BODY_LIMIT_BYTES)
    if (!read.ok) return reply(read.status, { ok: false, error: read.message, code: read.code })
    const body = read.body
    const action = body !== null && typeof body === 'object' ? (body as { action?: unknown }).action : undefined

    // Every refusal that needs only the body is answered before the chain and signing code is loaded.
    let run: (ctx: DeployServices) => Promise<Response>
    if (action === 'agent_deploy') {
      const checked = checkDeployRequest(request, body)
      if (!checked.ok) return checked.response
      run = (ctx) => handleDeploy(ctx, agentDigest, body, checked.intent, checked.idempotencyKey)
    } else if (action === 'receipt') {
      const parsed = parseReceiptRequest(body)
      if (!parsed.ok) return reply(200, failure('INVALID_INTENT', 'The receipt request is invalid; see details.', { details: parsed.details }))
      run = async (ctx) => reply(200, await (await loadRuntime()).readDeployReceipt({ services: ctx, txHash: parsed.txHash }))
    } else {
      return reply(200, failure('UNKNOWN_ACTION', 'Unknown or missing action.', { details: [{ field: 'action', reason: 'must be "agent_deploy" or "receipt"' }] }))
    }

    let ctx: DeployServices
    try {
      ctx = await source.services()
    } catch (error) {
      console.error(error instanceof ConfigError ? error.message : `b20-skill: services failed to start (${errorName(error)})`)
      return misconfigured()
    }
    try {
      return await run(ctx)
    } catch (error) {
      ctx.logger.error('b20_skill_failed', { error: errorName(error) })
      return reply(500, { ok: false, error: 'The request failed unexpectedly; nothing further was done.', code: 'INTERNAL' })
    }
  }
}

const misconfigured = () => reply(500, { ok: false, error: 'The service is misconfigured; the operator has been told.', code: 'CONFIG_INVALID' })

type CheckedDeployRequest = { ok: true; intent: DeployIntent; idempotencyKey: string | null } | { ok: false; response: Response }

/** Validates the intent and the `Idempotency-Key` header together, so one answer lists every problem. */
function checkDeployRequest(request: Request, body: unknown): CheckedDeployRequest {
  const parsed = parseDeployIntent(body)
  const idempotencyKey = request.headers.get('idempotency-key')
  const details = parsed.ok ? [] : [...parsed.details]
  if (idempotencyKey !== null && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
    details.push({ field: 'Idempotency-Key', reason: 'must be 1 to 128 visible ASCII characters' })
  }
  if (!parsed.ok || details.length > 0) {
    return { ok: false, response: reply(200, failure('INVALID_INTENT', 'The deploy intent is invalid; see details.', { details })) }
  }
  return { ok: true, intent: parsed.intent, idempotencyKey }
}

async function handleDeploy(ctx: DeployServices, agentDigest: string, body: unknown, intent: DeployIntent, idempotencyKey: string | null): Promise<Response> {
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
  return reply(200, response, replayed ? { 'idempotent-replayed': 'true' } : {})
}

export default { fetch: createB20SkillHandler(defaultDeployServicesSource) }
