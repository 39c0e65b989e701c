import { type DeployServicesSource, instanceDeploySource } from '../deploy/instance.js'
import type { Environment } from '../platform/config.js'
import { perInstance, perInstanceAsync } from '../platform/perInstance.js'
import { createLocalThrottle, createThrottle, type Throttle } from '../store/throttle.js'
import { loadPaymentsConfig, type PaymentsConfig } from './config.js'
import { createPaymentFacilitator, type PaymentFacilitator } from './facilitator.js'

// The paid door's side of an instance: its settings, the deploy side it buys from, the facilitator and the per-client
// throttle, each built once. An unpaid request needs only the first and the last: no chain, no KMS.

/** Where the paid door gets what it works with. */
export type PaymentsSource = {
  /** The door's settings (throws a ConfigError naming what is wrong). */
  config: () => PaymentsConfig
  /** The deploy side: its settings, its store (without loading the services), and the services a paid deploy uses. */
  deploy: DeployServicesSource
  /** The facilitator over HTTP, as configured. */
  facilitator: () => PaymentFacilitator
  /** The per-client throttle of the door (over the shared store; in this process without one). */
  throttle: () => Promise<Throttle>
  /** Epoch ms of the door's own clock (the unpaid path's cap count); the deploy side has its own. */
  now: () => number
}

/** Parameters of {@link paymentsSourceFrom}. */
export type PaymentsSourceFromParameters = {
  deploy: DeployServicesSource
  env: Environment
  now?: () => number
  /** A facilitator to use instead of the configured one (tests, benchmarks). */
  facilitator?: PaymentFacilitator
}

/** A paid door over a deploy side and an environment, each part built once. */
export function paymentsSourceFrom({ deploy, env, now = Date.now, facilitator }: PaymentsSourceFromParameters): PaymentsSource {
  const config = perInstance(() => loadPaymentsConfig(env, deploy.config()))
  return {
    config,
    deploy,
    facilitator: perInstance(() => facilitator ?? createPaymentFacilitator({ url: config().facilitatorUrl, cdp: config().cdp })),
    throttle: perInstanceAsync(async () => {
      const store = await deploy.store()
      return store ? createThrottle(store, now) : createLocalThrottle(now)
    }),
    now,
  }
}

/** This instance's paid door: settings from `process.env`, over the instance's deploy side. */
export const instancePaymentsSource: PaymentsSource = paymentsSourceFrom({ deploy: instanceDeploySource, env: process.env })
