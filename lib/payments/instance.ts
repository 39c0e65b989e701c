import type { DeployServicesSource } from '../deploy/instance.js'
import { instanceDeploySource } from '../launches/instance.js'
import { type Clock, systemClock } from '../platform/clock.js'
import type { Environment } from '../platform/config.js'
import { perInstance, perInstanceAsync } from '../platform/perInstance.js'
import { createLocalThrottle, createThrottle, type Throttle } from '../store/throttle.js'
import { loadPaymentsConfig, type PaymentsSettings } from './config.js'
import { createPaymentFacilitator, type PaymentFacilitator } from './facilitator/httpFacilitator.js'
import type { DoorChain } from './verdict/doorChain.js'

// The paid door's side of an instance: its settings, the deploy side it buys from, its reads of the chain, the
// facilitator and the per-client throttle, each built once. An unpaid request needs the settings, the chain's reads
// (the asset's terms once, the variants' activation every few minutes) and the throttle: no KMS, no deploy pipeline.

/** Where the paid door gets what it works with. */
export type PaymentsSource = {
  /** The door's settings (throws a ConfigError naming what is wrong). */
  config: () => PaymentsSettings
  /** What the door reads from the chain before it offers a deploy (viem loaded on the first deploy request). */
  chain: () => Promise<DoorChain>
  /** The deploy side: its settings, its store (without loading the services), and the services a paid deploy uses. */
  deploy: DeployServicesSource
  /** The facilitator over HTTP, as configured. */
  facilitator: () => PaymentFacilitator
  /** The per-client throttle of the door (over the shared store; in this process without one). */
  throttle: () => Promise<Throttle>
  /** The door's throttle in this process, for when the shared store is unreachable: per instance, never none. */
  localThrottle: () => Throttle
  /**
   * The door's own clock (the deploy side has its own): the unpaid path's cap count, the age of the variants'
   * activation it keeps, an authorization's validity window (the wall clock, as the token and the facilitator judge
   * it), CDP's tokens, and the pause before the chain is asked again for a settlement.
   */
  clock: Clock
}

/** Parameters of {@link paymentsSourceFrom}. */
export type PaymentsSourceFromParameters = {
  deploy: DeployServicesSource
  env: Environment
  /** Default: the real clock (this is where an instance's door is built). */
  clock?: Clock
  /** A facilitator to use instead of the configured one (tests, benchmarks). */
  facilitator?: PaymentFacilitator
}

/** A paid door over a deploy side and an environment, each part built once. */
export function paymentsSourceFrom({ deploy, env, clock = systemClock, facilitator }: PaymentsSourceFromParameters): PaymentsSource {
  const config = perInstance(() => loadPaymentsConfig(env, deploy.config()))
  return {
    config,
    chain: perInstanceAsync(async () =>
      (await import('./verdict/doorChain.js')).createDoorChain({ settings: config(), rpcUrl: deploy.config().rpcUrl, clock }),
    ),
    deploy,
    facilitator: perInstance(
      () => facilitator ?? createPaymentFacilitator({ url: config().facilitatorUrl, cdp: config().cdp, now: clock.now }),
    ),
    throttle: perInstanceAsync(async () => {
      const store = await deploy.store()
      return store ? createThrottle(store, clock.now) : createLocalThrottle(clock.now)
    }),
    localThrottle: perInstance(() => createLocalThrottle(clock.now)),
    clock,
  }
}

/** This instance's paid door: settings from `process.env`, over the instance's deploy side. */
export const instancePaymentsSource: PaymentsSource = paymentsSourceFrom({ deploy: instanceDeploySource, env: process.env })
