import { cors } from 'hono/cors'
import type { Hex } from 'viem'
import { checkBody } from '../deploy/actions/action.js'
import { agentDeployAction, checkDeployRequest } from '../deploy/actions/agentDeploy.js'
import { receiptAction, receiptRequestSchema } from '../deploy/actions/receipt.js'
import { pickAgentAction } from '../deploy/actions/registry.js'
import { failure } from '../deploy/outcome.js'
import { clientAddress } from '../platform/clientAddress.js'
import { ConfigError } from '../platform/config.js'
import { createEndpoint, type Endpoint } from '../platform/edge.js'
import { configInvalidAnswer, errorAnswerOf } from '../platform/errorAnswer.js'
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, jsonResponse, readJsonBody } from '../platform/http.js'
import { errorName, processLogger } from '../platform/log.js'
import { perInstance } from '../platform/perInstance.js'
import { rateLimitHeaders } from '../platform/rateLimitHeaders.js'
import { takeSlots } from '../store/slidingLog.js'
import { type DoorAnswer, domainAnswer, doorError, paymentRequiredAnswer } from './answers.js'
import type { PaymentsConfig } from './config.js'
import { discoveryManifestOf } from './discovery.js'
import type { PaymentsSource } from './instance.js'
import { paymentKeys } from './keys.js'
import { decodePaymentHeader } from './payload.js'
import { paymentRequirementsOf } from './requirements.js'

// POST /api/x402/deploy: the paid door. Off unless configured (404). Every request is throttled per client (RateLimit
// headers on every answer). A receipt is free. A deploy is checked first (an invalid intent is never asked to pay),
// then an unpaid request gets the 402 (no chain, no KMS: only the throttle and the paid cap's count); a paid one
// loads the heavy half and runs steps 2 to 8 (`paidDeploy.ts`).

/** Largest request body accepted: the same as /api/b20-skill's. */
export const PAID_DOOR_BODY_LIMIT_BYTES = 16 * 1024

/**
 * CORS of the door: a browser client may send every header @x402/fetch sends and read PAYMENT-REQUIRED and
 * PAYMENT-RESPONSE. Its paid retry carries PAYMENT-SIGNATURE and also `Access-Control-Expose-Headers` as a request
 * header; a preflight that does not allow both makes the browser block the payment.
 */
const doorCors = cors({
  origin: '*',
  allowMethods: ['POST', 'OPTIONS'],
  allowHeaders: [...CORS_ALLOWED_HEADERS, 'PAYMENT-SIGNATURE', 'Access-Control-Expose-Headers'],
  exposeHeaders: [...CORS_EXPOSED_HEADERS, 'PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'Idempotent-Replayed'],
  maxAge: 86_400,
})

const reply = ({ status, body, headers }: DoorAnswer) =>
  jsonResponse({ status, body: JSON.stringify(body), headers: { 'cache-control': 'no-store', ...headers } })

/** 404 PAID_DEPLOYS_OFF: the door, and what points at it, while paid deploys are off. */
const paidDeploysOff = (config: PaymentsConfig) =>
  doorError(404, 'PAID_DEPLOYS_OFF', `Paid deploys are off on this deployment (${config.offReason}); agents with a key use /api/b20-skill.`)

/** The client's share of the door, as RateLimit headers, and whether this request may pass. */
async function throttle(source: PaymentsSource, config: PaymentsConfig, request: Request) {
  const limit = config.rateLimitPerMinute
  const parameters = { key: paymentKeys(config).throttle(clientAddress(request)), limit, windowMs: 60_000 }
  const verdict = await (await source.throttle()).limit(parameters).catch((error: unknown) => {
    processLogger().warn('store_unavailable', { operation: 'x402-throttle', error: errorName(error), effect: 'throttled per instance' })
    return source.localThrottle.limit(parameters)
  })
  const resetSeconds = verdict.resetAfterMs / 1000
  const quota = rateLimitHeaders({ policy: 'x402', quota: limit, windowSeconds: 60, remaining: verdict.remaining, resetSeconds })
  return { ok: verdict.ok, quota, retryAfter: Math.max(1, Math.ceil(resetSeconds)) }
}

/** The paid door over a source of settings and services (`instancePaymentsSource` in production). */
export function createPaidDeployEndpoint(source: PaymentsSource): Endpoint {
  return createEndpoint({
    methods: ['POST'],
    cors: doorCors,
    handler: async (request) => {
      let config: PaymentsConfig
      try {
        config = source.config()
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error
        return reply(configInvalidAnswer('x402-deploy', error))
      }
      if (config.offReason) return reply(paidDeploysOff(config))
      const share = await throttle(source, config, request)
      const answer = share.ok
        ? await answerRequest(source, config, request)
        : doorError(429, 'RATE_LIMITED', `Too many requests: at most ${config.rateLimitPerMinute} a minute per client.`, {
            'retry-after': String(share.retryAfter),
          })
      return reply({ ...answer, headers: { ...answer.headers, ...share.quota } })
    },
  })
}

/** The actions the paid door offers (a body with no `action` is a deploy). */
const PAID_DOOR_ACTIONS = [agentDeployAction, receiptAction] as const

/** A request past the throttle: its body, then the action it names, picked through the agent actions' registry. */
async function answerRequest(source: PaymentsSource, config: PaymentsConfig, request: Request): Promise<DoorAnswer> {
  const read = await readJsonBody(request, PAID_DOOR_BODY_LIMIT_BYTES)
  if (!read.ok) return doorError(read.status, read.code, read.message)
  const picked = pickAgentAction({ body: read.body, offered: PAID_DOOR_ACTIONS, whenMissing: agentDeployAction })
  if (!picked.ok) return domainAnswer(picked)
  // Only an object is picked; the door runs each action its own way: a deploy is paid, a receipt is free.
  const body = read.body as Record<string, unknown>
  return picked.action === receiptAction ? receipt(source, body) : deploy(source, config, request, { ...body, action: 'agent_deploy' })
}

/** A deploy request: checked, then the 402 (unpaid), or the paid path with the heavy half loaded. */
async function deploy(
  source: PaymentsSource,
  config: PaymentsConfig,
  request: Request,
  body: Record<string, unknown>,
): Promise<DoorAnswer> {
  const idempotencyKey = request.headers.get('idempotency-key')
  const checked = checkDeployRequest(body, idempotencyKey)
  if (!checked.ok)
    return domainAnswer(failure('INVALID_INTENT', 'The deploy intent is invalid; see details.', { details: checked.details }))
  if (checked.intent.dryRun) {
    const details = [
      { field: 'dryRun', reason: 'is not offered here: a paid deploy is simulated before anything is settled, so a revert costs nothing' },
    ]
    return domainAnswer(failure('INVALID_INTENT', 'The deploy intent is invalid; see details.', { details }))
  }
  const header = request.headers.get('payment-signature')
  if (!header) {
    if (request.headers.get('x-payment'))
      return doorError(400, 'INVALID_PAYMENT', 'x402 v1 payments (X-PAYMENT) are not taken: send an x402 v2 PAYMENT-SIGNATURE.')
    return unpaid(source, config, request)
  }
  const decoded = decodePaymentHeader(header)
  if (!decoded.ok) return doorError(400, 'INVALID_PAYMENT', `PAYMENT-SIGNATURE is malformed: ${decoded.reason}.`)
  try {
    const [services, heavyHalf] = await Promise.all([source.deploy.services(), import('./heavyHalf.js')])
    if (!services.store)
      return domainAnswer(
        failure('DEPLOYS_DISABLED', 'Deploys need the shared store (Upstash Redis) on this deployment, and none is configured.'),
      )
    const context = {
      services,
      store: services.store,
      config,
      facilitator: source.facilitator(),
      clock: source.clock,
      keys: paymentKeys(config),
      requirements: paymentRequirementsOf(config),
      url: request.url,
    }
    const { payment } = decoded
    return await heavyHalf.runPaidDeploy(context, {
      body,
      intent: checked.intent,
      payment,
      idempotencyKey: idempotencyKey ?? payment.paymentId,
    })
  } catch (error) {
    return errorAnswerOf(error, { endpoint: 'x402-deploy', unexpectedEvent: 'agent_action_failed' })
  }
}

/** An unpaid deploy: DEPLOY_CAP_REACHED when the paid cap is full (one store command), else the 402. */
async function unpaid(source: PaymentsSource, config: PaymentsConfig, request: Request): Promise<DoorAnswer> {
  const store = await source.deploy.store()
  const windowMs = config.capWindowSeconds * 1000
  const now = source.clock.now()
  const cap = { key: paymentKeys(config).cap, limit: config.dailyCap, windowMs }
  // A look without a take (count 0). A store that cannot say lets the 402 through: the cap is taken, exactly, later.
  const seen = store ? await takeSlots(store, { windows: [cap], count: 0, member: 'look', now }).catch(() => null) : null
  const window = seen?.windows[0]
  if (window && window.used >= config.dailyCap) {
    const retryAt = new Date(window.oldestAt + windowMs).toISOString()
    return domainAnswer(
      failure(
        'DEPLOY_CAP_REACHED',
        `The rolling cap of ${config.dailyCap} paid deploys is reached; a slot frees up at ${retryAt}. Nothing was charged.`,
        {
          retryAt,
          retryAfterSeconds: Math.max(1, Math.ceil((window.oldestAt + windowMs - now) / 1000)),
        },
      ),
    )
  }
  return paymentRequiredAnswer({
    requirements: paymentRequirementsOf(config),
    url: request.url,
    code: 'PAYMENT_REQUIRED',
    error: `A deploy costs ${config.price} ${config.asset.name}: pay with x402 (an x402 client answers this 402 by itself), then the token is deployed.`,
  })
}

/** A receipt: free, for the deploys paid through this door. */
async function receipt(source: PaymentsSource, body: Record<string, unknown>): Promise<DoorAnswer> {
  const checked = checkBody(receiptRequestSchema, body, 'receipt')
  if (!checked.ok) return domainAnswer(checked)
  try {
    const [services, heavyHalf] = await Promise.all([source.deploy.services(), import('./heavyHalf.js')])
    const txHash = checked.data.tx_hash.toLowerCase() as Hex
    return domainAnswer(await heavyHalf.readPaidReceipt({ services, txHash, waitSeconds: checked.data.waitSeconds ?? 0 }))
  } catch (error) {
    return errorAnswerOf(error, { endpoint: 'x402-deploy', unexpectedEvent: 'agent_action_failed' })
  }
}

/**
 * `GET /api/x402/manifest` (and `/.well-known/x402`): the origin's x402 discovery manifest, CORS-open, from the same
 * module as the 402's `bazaar` extension. Off like the door (404). `updated` is when this instance read its settings.
 */
export function createDiscoveryManifestEndpoint(source: PaymentsSource): Endpoint {
  const updatedAt = perInstance(() => source.clock.now())
  return createEndpoint({
    methods: ['GET', 'HEAD'],
    handler: async (request) => {
      let config: PaymentsConfig
      try {
        config = source.config()
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error
        return reply(configInvalidAnswer('x402-manifest', error))
      }
      if (config.offReason) return reply(paidDeploysOff(config))
      const manifest = discoveryManifestOf({ url: request.url, updatedAt: updatedAt() })
      return jsonResponse({
        body: JSON.stringify(manifest),
        head: request.method === 'HEAD',
        headers: { 'cache-control': 'public, max-age=300' },
      })
    },
  })
}
