import { cors } from 'hono/cors'
import type { Hex } from 'viem'
import type { B20Variant } from '../chain/b20Variants.js'
import { type AgentAction, agentDoorErrors } from '../deploy/actions/action.js'
import { agentDeployAction } from '../deploy/actions/agentDeploy.js'
import { receiptAction } from '../deploy/actions/receipt.js'
import { pickAgentAction } from '../deploy/actions/registry.js'
import { failure, invalidRequest } from '../deploy/outcome.js'
import type { DeployIntent } from '../deploy/pipeline/intent.js'
import { variantNotActive } from '../deploy/pipeline/variantActive.js'
import { clientAddress } from '../platform/clientAddress.js'
import { ConfigError } from '../platform/config.js'
import { createEndpoint, type Endpoint } from '../platform/edge.js'
import { errorAnswerOf } from '../platform/errorAnswer.js'
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, jsonResponse, readJsonBody } from '../platform/http.js'
import type { HttpAnswer } from '../platform/httpAnswer.js'
import { errorName, processLogger } from '../platform/log.js'
import { perInstance } from '../platform/perInstance.js'
import { rateLimitHeaders } from '../platform/rateLimitHeaders.js'
import { accepted, type Result, refused } from '../platform/result.js'
import { takeSlots } from '../store/slidingLog.js'
import { type PaymentsConfig, type PaymentsSettings, termsFor } from './config.js'
import { paidDeployUrl } from './discovery/bazaar.js'
import { discoveryManifestOf } from './discovery/manifest.js'
import { domainAnswer, doorError, paymentRequiredAnswer } from './door/doorAnswers.js'
import { decodePaymentHeader } from './door/paymentPayload.js'
import { paymentRequirementsOf } from './door/requirements.js'
import type { PaymentsSource } from './instance.js'
import { paymentKeys } from './keys.js'

// POST /api/x402/deploy: the paid door. Off unless configured (404). Every request is throttled per client (RateLimit
// headers on every answer). It dispatches through the agent actions' registry as every door does: the body's action
// is picked there and read by that action's own check; the door then serves it its own way. A receipt is free. A
// deploy is checked first (an invalid intent is never asked to pay), then against the chain (the asset's terms, read
// once per instance; the variant's activation, kept a few minutes), then an unpaid request gets the 402 (no KMS: only
// the throttle and the paid cap's count besides); a paid one loads the heavy half and runs steps 2 to 8
// (`sale/paidRequest.ts`).

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

const reply = ({ status, body, headers }: HttpAnswer) =>
  jsonResponse({ status, body: JSON.stringify(body), headers: { 'cache-control': 'no-store', ...headers } })

/** 404 PAID_DEPLOYS_OFF: the door, and what points at it, while paid deploys are off. */
const paidDeploysOff = (config: PaymentsSettings) =>
  doorError(404, 'PAID_DEPLOYS_OFF', `Paid deploys are off on this deployment (${config.offReason}); agents with a key use /api/b20-skill.`)

/** The door's settings while paid deploys are on: its public origin is known then. */
type OpenSettings = PaymentsSettings & { publicOrigin: string }

/** True when paid deploys are on (every setting there, the public origin among them). */
const isOpen = (config: PaymentsSettings): config is OpenSettings => config.offReason === null && config.publicOrigin !== null

/** The door's settings while paid deploys are on, else its answer: 500 CONFIG_INVALID, or 404 PAID_DEPLOYS_OFF. */
function openSettings(source: PaymentsSource, handler: string): OpenSettings | Response {
  let config: PaymentsSettings
  try {
    config = source.config()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    return reply(errorAnswerOf(error, { endpoint: handler }))
  }
  return isOpen(config) ? config : reply(paidDeploysOff(config))
}

/** The client's share of the door, as RateLimit headers, and whether this request may pass. */
async function throttle(source: PaymentsSource, config: PaymentsSettings, request: Request) {
  const limit = config.rateLimitPerMinute
  const parameters = { key: paymentKeys(config).throttle(clientAddress(request)), limit, windowMs: 60_000 }
  const verdict = await (await source.throttle()).limit(parameters).catch((error: unknown) => {
    processLogger().warn('store_unavailable', { operation: 'x402-throttle', error: errorName(error), effect: 'throttled per instance' })
    return source.localThrottle().limit(parameters)
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
    errors: agentDoorErrors('x402-deploy'),
    handler: async (request) => {
      const config = openSettings(source, 'x402-deploy')
      if (config instanceof Response) return config
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

/** A request past the throttle, with the body its action reads (`action` named) and the door's URL on the public origin. */
type DoorRequest = { source: PaymentsSource; request: Request; body: Record<string, unknown>; resourceUrl: string }

/** An action the paid door offers: the registry's action by its name, and the door's answer to a request for it. */
type PaidDoorAction = { name: string; answer: (door: DoorRequest) => Promise<HttpAnswer> }

/** Offers a registry action on the paid door: its own check reads the request, then `serve` runs it the door's way. */
function paidDoorAction<T extends object>(
  action: AgentAction<T>,
  serve: (door: DoorRequest, checked: T) => Promise<HttpAnswer>,
): PaidDoorAction {
  return {
    name: action.name,
    answer: async (door) => {
      const checked = action.check({ body: door.body, idempotencyKey: door.request.headers.get('idempotency-key') })
      return checked.ok ? serve(door, checked) : domainAnswer(checked)
    },
  }
}

/** A deploy is paid (a body with no `action` is one). */
const paidDeploy = paidDoorAction(agentDeployAction, deploy)
/** The actions the paid door offers: a deploy is paid, a receipt is free. */
const PAID_DOOR_ACTIONS = [paidDeploy, paidDoorAction(receiptAction, receipt)]

/** A request past the throttle: its body, then the action it names, picked through the agent actions' registry. */
async function answerRequest(source: PaymentsSource, config: OpenSettings, request: Request): Promise<HttpAnswer> {
  const read = await readJsonBody(request, PAID_DOOR_BODY_LIMIT_BYTES)
  if (!read.ok) return doorError(read.status, read.code, read.message)
  const picked = pickAgentAction({ body: read.body, offered: PAID_DOOR_ACTIONS, whenMissing: paidDeploy })
  if (!picked.ok) return domainAnswer(picked)
  // Only an object is picked; the action's check reads it with the action named (a deploy may omit it).
  const body = { ...(read.body as Record<string, unknown>), action: picked.action.name }
  return picked.action.answer({ source, request, body, resourceUrl: paidDeployUrl(config.publicOrigin) })
}

/** A deploy request, checked: offered (the chain's terms), then the 402 (unpaid), or the paid path with the heavy half loaded. */
async function deploy({ source, request, body, resourceUrl }: DoorRequest, { intent }: { intent: DeployIntent }): Promise<HttpAnswer> {
  const idempotencyKey = request.headers.get('idempotency-key')
  if (intent.dryRun) {
    const details = [
      { field: 'dryRun', reason: 'is not offered here: a paid deploy is simulated before anything is settled, so a revert costs nothing' },
    ]
    return domainAnswer(invalidRequest('agent_deploy', details))
  }
  const offer = await offerFor(source, intent.variant)
  if (!offer.ok) return offer.answer
  const config = termsFor(offer.config, intent.pool !== undefined)
  const header = request.headers.get('payment-signature')
  if (!header) {
    if (request.headers.get('x-payment'))
      return doorError(400, 'INVALID_PAYMENT', 'x402 v1 payments (X-PAYMENT) are not taken: send an x402 v2 PAYMENT-SIGNATURE.')
    return unpaid(source, config, resourceUrl)
  }
  const decoded = decodePaymentHeader(header)
  if (!decoded.ok) return doorError(400, 'INVALID_PAYMENT', `PAYMENT-SIGNATURE is malformed: ${decoded.reason}.`)
  try {
    const [services, heavyHalf] = await Promise.all([source.deploy.services(), import('./sale/paidHalf.js')])
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
      resourceUrl,
    }
    const { payment } = decoded
    return await heavyHalf.runPaidDeploy(context, {
      body,
      intent,
      payment,
      idempotencyKey: idempotencyKey ?? payment.paymentId,
    })
  } catch (error) {
    return errorAnswerOf(error, { endpoint: 'x402-deploy', unexpectedEvent: 'agent_action_failed' })
  }
}

/** What the door offers for a deploy: its settings, or why not, with its answer. */
type Offer = Result<{ config: PaymentsConfig }, 'CONFIG_INVALID' | 'RPC_UNAVAILABLE' | 'VARIANT_NOT_ACTIVE', { answer: HttpAnswer }>

/**
 * What the door offers for a deploy of `variant`, asked of the chain before any 402, verify or signature. The price
 * at the asset's own `decimals()`, with the EIP-712 domain the token signs with: else 500 CONFIG_INVALID (the log
 * names the setting), never a wrong price. The variant switched on by Base's ActivationRegistry: else
 * VARIANT_NOT_ACTIVE. An RPC that cannot tell the asset's terms stops the sale (503 RPC_UNAVAILABLE, nothing charged:
 * no price is guessed); one that cannot tell the variant's state lets the deploy's simulation decide, which reverts
 * `FeatureNotActivated` before anything is settled.
 */
async function offerFor(source: PaymentsSource, variant: B20Variant): Promise<Offer> {
  const chain = await source.chain()
  let unanswered: unknown = null
  const [priced, active] = await Promise.all([
    chain.priced().catch((error: unknown) => {
      unanswered = error
      return null
    }),
    chain.activation.isActive(variant),
  ])
  if (priced === null) {
    processLogger().warn('rpc_unavailable', { operation: 'x402-asset-terms', error: errorName(unanswered), effect: 'no price offered' })
    const error =
      'The chain RPC did not answer what the payment asset is (its decimals and EIP-712 domain), so no price can be asked; nothing was charged. Retry after Retry-After.'
    return refused('RPC_UNAVAILABLE', { answer: doorError(503, 'RPC_UNAVAILABLE', error, { 'retry-after': '5' }) })
  }
  if (!priced.ok) return refused('CONFIG_INVALID', { answer: errorAnswerOf(priced.error, { endpoint: 'x402-deploy' }) })
  if (active === false)
    return refused('VARIANT_NOT_ACTIVE', { answer: domainAnswer(variantNotActive(variant, 'nothing was asked, charged or signed')) })
  return accepted({ config: priced.config })
}

/** An unpaid deploy: DEPLOY_CAP_REACHED when the paid cap is full (one store command), else the 402. */
async function unpaid(source: PaymentsSource, config: PaymentsConfig, resourceUrl: string): Promise<HttpAnswer> {
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
    resourceUrl,
    code: 'PAYMENT_REQUIRED',
    error: `A deploy costs ${config.price} ${config.asset.name}: pay with x402 (an x402 client answers this 402 by itself), then the token is deployed.`,
  })
}

/** A receipt, checked: free, for the deploys paid through this door. */
async function receipt({ source }: DoorRequest, { txHash, waitSeconds }: { txHash: Hex; waitSeconds: number }): Promise<HttpAnswer> {
  try {
    const [services, heavyHalf] = await Promise.all([source.deploy.services(), import('./sale/paidHalf.js')])
    return domainAnswer(await heavyHalf.readPaidReceipt({ services, txHash, waitSeconds }))
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
    errors: agentDoorErrors('x402-manifest'),
    handler: async (request) => {
      const config = openSettings(source, 'x402-manifest')
      if (config instanceof Response) return config
      const manifest = discoveryManifestOf({ publicOrigin: config.publicOrigin, updatedAt: updatedAt() })
      return jsonResponse({
        body: JSON.stringify(manifest),
        head: request.method === 'HEAD',
        headers: { 'cache-control': 'public, max-age=300' },
      })
    },
  })
}
