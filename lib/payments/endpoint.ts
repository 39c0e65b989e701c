import { cors } from 'hono/cors'
import type { Hex } from 'viem'
import { type AgentAction, agentDoorErrors } from '../deploy/actions/action.js'
import { agentDeployAction } from '../deploy/actions/agentDeploy.js'
import { receiptAction } from '../deploy/actions/receipt.js'
import { pickAgentAction } from '../deploy/actions/registry.js'
import { type DeployFailure, failure, invalidRequest } from '../deploy/outcome.js'
import type { DeployIntent } from '../deploy/pipeline/intent.js'
import { clientAddress } from '../platform/clientAddress.js'
import { ConfigError } from '../platform/config.js'
import { createEndpoint, type Endpoint } from '../platform/edge.js'
import { errorAnswerOf } from '../platform/errorAnswer.js'
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, jsonResponse, readJsonBody } from '../platform/http.js'
import type { HttpAnswer } from '../platform/httpAnswer.js'
import { errorName, processLogger } from '../platform/log.js'
import { perInstance } from '../platform/perInstance.js'
import { rateLimitHeaders } from '../platform/rateLimitHeaders.js'
import { type PaymentsSettings, termsFor } from './config.js'
import { paidDeployUrl } from './discovery/bazaar.js'
import { discoveryManifestOf } from './discovery/manifest.js'
import { domainAnswer, doorError } from './door/doorAnswers.js'
import { offerFor, refusedUnpaidAnswer, unpaidAnswer } from './door/offer.js'
import { decodePaymentHeader } from './door/paymentPayload.js'
import { paymentRequirementsOf } from './door/requirements.js'
import type { PaymentsSource } from './instance.js'
import { paymentKeys } from './keys.js'

// POST /api/x402/deploy: the paid door. Off unless configured (404). Every request is throttled per client (RateLimit
// headers on every answer). It dispatches through the agent actions' registry as every door does: the body's action
// is picked there and read by that action's own check; the door then serves it its own way. A receipt is free. A
// deploy is checked first: one it would refuse is refused before its payment is looked at, and asked to pay when it
// carries none (a catalog probes with `POST {}`), its 402 naming what to fix. A valid one is checked against the chain
// (the asset's terms, read once per instance; the variant's activation, kept a few minutes), then an unpaid request
// gets the 402 (door/offer.ts: no KMS, only the throttle and the paid cap's count besides); a paid one loads the heavy
// half and runs steps 2 to 8 (`sale/paidRequest.ts`). A GET is a deploy with no body: its answer is the 402.

/** Largest request body accepted: the same as /api/b20-skill's. */
export const PAID_DOOR_BODY_LIMIT_BYTES = 16 * 1024

/**
 * CORS of the door: a browser client may send every header @x402/fetch sends and read PAYMENT-REQUIRED and
 * PAYMENT-RESPONSE. Its paid retry carries PAYMENT-SIGNATURE and also `Access-Control-Expose-Headers` as a request
 * header; a preflight that does not allow both makes the browser block the payment.
 */
const doorCors = cors({
  origin: '*',
  allowMethods: ['POST', 'GET', 'OPTIONS'],
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
    methods: ['POST', 'GET'],
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

/** A request past the throttle: its source, whether it carries a payment, and the door's URL on the public origin. */
type Door = { source: PaymentsSource; request: Request; paid: boolean; resourceUrl: string }

/** A request past the throttle, with the body its action reads (`action` named). */
type DoorRequest = Door & { body: Record<string, unknown> }

/** An action the paid door offers: the registry's action by its name, and the door's answer to a request for it. */
type PaidDoorAction = { name: string; answer: (door: DoorRequest) => Promise<HttpAnswer> }

/**
 * Offers a registry action on the paid door: its own check reads the request, then `serve` runs it the door's way, and
 * `refuse` answers a request it refuses (by default as every door does).
 */
function paidDoorAction<T extends object>(
  action: AgentAction<T>,
  serve: (door: DoorRequest, checked: T) => Promise<HttpAnswer>,
  refuse: (door: Door, refusal: DeployFailure) => Promise<HttpAnswer> = async (_, refusal) => domainAnswer(refusal),
): PaidDoorAction {
  return {
    name: action.name,
    answer: async (door) => {
      const checked = action.check({ body: door.body, idempotencyKey: door.request.headers.get('idempotency-key') })
      return checked.ok ? serve(door, checked) : refuse(door, checked)
    },
  }
}

/**
 * A deploy request the door refuses before any payment is looked at (an invalid body, an unknown action, a GET): with a
 * payment, the refusal as every door answers it (nothing verified, settled or signed); without one, the 402 all the
 * same, naming what to fix, since a catalog probes with `POST {}` and lists only a door that answers it 402.
 */
async function refuseDeploy(door: Door, refusal: DeployFailure): Promise<HttpAnswer> {
  if (door.paid) return domainAnswer(refusal)
  const offer = await offerFor({ chain: await door.source.chain(), variant: null })
  return offer.ok ? refusedUnpaidAnswer({ config: offer.config, resourceUrl: door.resourceUrl, refusal }) : offer.answer
}

/** A deploy is paid (a body with no `action` is one); one the door refuses unpaid is still asked to pay. */
const paidDeploy = paidDoorAction(agentDeployAction, deploy, refuseDeploy)
/** The actions the paid door offers: a deploy is paid, a receipt is free. */
const PAID_DOOR_ACTIONS = [paidDeploy, paidDoorAction(receiptAction, receipt)]

/** Why a GET is no deploy: it has no body for the intent. */
const GET_HAS_NO_BODY = { field: 'body', reason: 'a deploy is a POST with its agent_deploy intent as the JSON body' }

/** A request past the throttle: its body, then the action it names, picked through the agent actions' registry. */
async function answerRequest(source: PaymentsSource, config: OpenSettings, request: Request): Promise<HttpAnswer> {
  // As the deploy reads it: an empty PAYMENT-SIGNATURE is none (its 402), an X-PAYMENT (x402 v1) is a payment refused.
  const paid = Boolean(request.headers.get('payment-signature') || request.headers.get('x-payment'))
  const door: Door = { source, request, paid, resourceUrl: paidDeployUrl(config.publicOrigin) }
  if (request.method === 'GET') return refuseDeploy(door, invalidRequest('agent_deploy', [GET_HAS_NO_BODY]))
  const read = await readJsonBody(request, PAID_DOOR_BODY_LIMIT_BYTES)
  if (!read.ok)
    return paid || read.status === 413
      ? doorError(read.status, read.code, read.message)
      : refuseDeploy(door, invalidRequest('agent_deploy', [{ field: 'body', reason: read.message }]))
  const picked = pickAgentAction({ body: read.body, offered: PAID_DOOR_ACTIONS, whenMissing: paidDeploy })
  if (!picked.ok) return refuseDeploy(door, picked)
  // Only an object is picked; the action's check reads it with the action named (a deploy may omit it).
  const body = { ...(read.body as Record<string, unknown>), action: picked.action.name }
  return picked.action.answer({ ...door, body })
}

/** A deploy request, checked: offered (the chain's terms), then the 402 (unpaid), or the paid path with the heavy half loaded. */
async function deploy(door: DoorRequest, { intent }: { intent: DeployIntent }): Promise<HttpAnswer> {
  const { source, request, body, resourceUrl } = door
  if (intent.dryRun) {
    const details = [
      { field: 'dryRun', reason: 'is not offered here: a paid deploy is simulated before anything is settled, so a revert costs nothing' },
    ]
    return refuseDeploy(door, invalidRequest('agent_deploy', details))
  }
  const offer = await offerFor({ chain: await source.chain(), variant: intent.variant })
  if (!offer.ok) return offer.answer
  const config = termsFor(offer.config, intent.pool !== undefined)
  const header = request.headers.get('payment-signature')
  if (!header) {
    if (request.headers.get('x-payment'))
      return doorError(400, 'INVALID_PAYMENT', 'x402 v1 payments (X-PAYMENT) are not taken: send an x402 v2 PAYMENT-SIGNATURE.')
    return unpaidAnswer({ store: await source.deploy.store(), config, resourceUrl, now: source.clock.now(), intent })
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
    const idempotencyKey = request.headers.get('idempotency-key')
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
