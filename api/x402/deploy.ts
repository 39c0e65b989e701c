import { createPaidDeployEndpoint } from '../../lib/payments/endpoint.js'
import { instancePaymentsSource } from '../../lib/payments/instance.js'

/** `POST /api/x402/deploy`: deploys paid per call with x402 (the paid door). */
export default createPaidDeployEndpoint(instancePaymentsSource)
