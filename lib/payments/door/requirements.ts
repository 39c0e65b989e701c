import type { PaymentRequirements, ResourceInfo } from '@x402/core/types'
import type { PaymentsConfig } from '../config.js'
import { RESOURCE_DESCRIPTION, SERVICE_NAME, SERVICE_TAGS } from '../discovery/bazaar.js'

// What the server asks to be paid (pure): its price, payTo, asset and network, built from its own configuration. These
// are the requirements every payment is verified and settled against, never the payload's `accepted` echo of them.

/**
 * How long a payment's authorization is valid for: the 2.27 client signs `validBefore = now + maxTimeoutSeconds`.
 * Five minutes (x402's default) leave room for a retry of the same payment after a failure.
 */
export const PAYMENT_TIMEOUT_SECONDS = 300

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

/** The 402's `resource`: this door (its URL on the public origin), what it sells, what it answers, and who sells it. */
export function resourceOf(resourceUrl: string): ResourceInfo {
  return {
    url: resourceUrl,
    description: RESOURCE_DESCRIPTION,
    mimeType: 'application/json',
    serviceName: SERVICE_NAME,
    tags: [...SERVICE_TAGS],
  }
}
