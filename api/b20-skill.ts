import { matchAgentKey } from '../lib/agents.js'
import { ConfigError } from '../lib/config.js'
import { deployToken, type DeployTokenReturnType } from '../lib/deploy/deployToken.js'
import { IDEMPOTENCY_KEY_PATTERN, runIdempotently } from '../lib/deploy/idempotency.js'
import { parseDeployIntent, parseReceiptRequest } from '../lib/deploy/intent.js'
import { failure } from '../lib/deploy/outcome.js'
import { readDeployReceipt } from '../lib/deploy/receipt.js'
import { getDeployServices, type DeployServices } from '../lib/deployServices.js'
import { guardRequest, jsonResponse, readJsonBody, type Method } from '../lib/http.js'
import { errorName } from '../lib/log.js'

const METHODS: readonly Method[] = ['POST']

/** Largest request body accepted. */
export const SKILL_BODY_LIMIT_BYTES = 16 * 1024

const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  jsonResponse({ status, body: JSON.stringify(body), methods: METHODS, headers: { 'cache-control': 'no-store', ...headers } })

/** The `POST /api/b20-skill` handler over the given services. */
export function createB20SkillHandler(services: () => DeployServices) {
  return async (request: Request): Promise<Response> => {
    const guarded = guardRequest(request, METHODS)
    if (guarded) return guarded
    let ctx: DeployServices
    try {
      ctx = services()
    } catch (error) {
      console.error(error instanceof ConfigError ? error.message : `b20-skill: services failed to start (${errorName(error)})`)
      return reply(500, { ok: false, error: 'The service is misconfigured; the operator has been told.', code: 'CONFIG_INVALID' })
    }

    // The allowlist comes before anything else: an unknown caller reaches no body parser, store, chain or KMS.
    const agentDigest = matchAgentKey(request.headers.get('x-service-key'), ctx.config.allowlist)
    if (!agentDigest) return reply(403, { ok: false, error: 'X-Service-Key is missing or not on the deploy allowlist.', code: 'FORBIDDEN' })

    const read = await readJsonBody(request, SKILL_BODY_LIMIT_BYTES)
    if (!read.ok) return reply(read.status, { ok: false, error: read.message, code: read.code })
    const body = read.body
    const action = body !== null && typeof body === 'object' ? (body as { action?: unknown }).action : undefined

    try {
      if (action === 'agent_deploy') return await handleDeploy(request, ctx, agentDigest, body)
      if (action === 'receipt') {
        const parsed = parseReceiptRequest(body)
        if (!parsed.ok) return reply(200, failure('INVALID_INTENT', 'The receipt request is invalid; see details.', { details: parsed.details }))
        return reply(200, await readDeployReceipt({ services: ctx, txHash: parsed.txHash }))
      }
      return reply(200, failure('UNKNOWN_ACTION', 'Unknown or missing action.', { details: [{ field: 'action', reason: 'must be "agent_deploy" or "receipt"' }] }))
    } catch (error) {
      ctx.logger.error('b20_skill_failed', { error: errorName(error) })
      return reply(500, { ok: false, error: 'The request failed unexpectedly; nothing further was done.', code: 'INTERNAL' })
    }
  }
}

async function handleDeploy(request: Request, ctx: DeployServices, agentDigest: string, body: unknown): Promise<Response> {
  const parsed = parseDeployIntent(body)
  const idempotencyKey = request.headers.get('idempotency-key')
  const details = parsed.ok ? [] : [...parsed.details]
  if (idempotencyKey !== null && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
    details.push({ field: 'Idempotency-Key', reason: 'must be 1 to 128 visible ASCII characters' })
  }
  if (!parsed.ok || details.length > 0) return reply(200, failure('INVALID_INTENT', 'The deploy intent is invalid; see details.', { details }))
  const { intent } = parsed

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

export default { fetch: createB20SkillHandler(getDeployServices) }
