// The heavy half of the deploy endpoint (viem, the AWS SDK, signing), loaded by the handler only once a request has
// passed the allowlist, the body checks and intent validation: a 403 or 400 never pays for it.

export { deployToken } from './pipeline/deployToken.js'
export { listDeploys } from './records/listDeploys.js'
export { readDeployReceipt } from './records/receipt.js'
export { createDeployServices, getDeployServices } from './services.js'
export { listEvents, redeliverEvent } from './webhooks/agentEvents.js'
