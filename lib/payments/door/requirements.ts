import type { PaymentRequirements, ResourceInfo } from '@x402/core/types'
import type { PaymentsConfig } from '../config.js'

// What the server asks to be paid (pure): its price, payTo, asset and network, built from its own configuration. These
// are the requirements every payment is verified and settled against, never the payload's `accepted` echo of them.

/**
 * How long a payment's authorization is valid for: the 2.27 client signs `validBefore = now + maxTimeoutSeconds`.
 * Five minutes (x402's default) leave room for a retry of the same payment after a failure.
 */
export const PAYMENT_TIMEOUT_SECONDS = 300

/** What the door sells, as the 402's `resource` describes it. */
export const RESOURCE_DESCRIPTION =
  'One B20 token deploy on Base, signed and broadcast by the service (the body is the agent_deploy intent)'

/** The service's name, as the 402's resource (x402's `serviceName`, at most 32 ASCII characters) and the manifest say it. */
export const SERVICE_NAME = 'Base control room'

/** Topics a discovery catalogue files the door under (x402's `tags`: at most 5, each at most 32 ASCII characters). */
export const SERVICE_TAGS = ['base', 'b20', 'token-deploy', 'erc20', 'usdc']

/** The x402 v2 requirements of one paid deploy: the `exact` scheme on EVM (EIP-3009), in the configured asset. */
export function paymentRequirementsOf(config: PaymentsConfig): PaymentRequirements {
  return {
    scheme: 'exact',
    network: config.network,
    amount: config.amount,
    asset: config.asset.address,
    payTo: config.payTo,
    maxTimeoutSeconds: PAYMENT_TIMEOUT_SECONDS,
    extra: { name: config.asset.name, version: config.asset.version },
  }
}

/** The 402's `resource`: this door (its URL without a query), what it sells, what it answers, and who sells it. */
export function resourceOf(url: string): ResourceInfo {
  const { origin, pathname } = new URL(url)
  return {
    url: `${origin}${pathname}`,
    description: RESOURCE_DESCRIPTION,
    mimeType: 'application/json',
    serviceName: SERVICE_NAME,
    tags: [...SERVICE_TAGS],
  }
}
