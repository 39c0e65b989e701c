import { createDiscoveryManifestEndpoint } from '../../lib/payments/endpoint.js'
import { instancePaymentsSource } from '../../lib/payments/instance.js'

/** `GET /api/x402/manifest` (and `/.well-known/x402`): the x402 discovery manifest of the paid door's origin. */
export default createDiscoveryManifestEndpoint(instancePaymentsSource)
