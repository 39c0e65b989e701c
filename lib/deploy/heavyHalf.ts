// The heavy half of the deploy side (viem, the AWS SDK, signing), loaded by an action only once a request has passed
// the agent key, the body checks and its own validation: a 403 or 400 never pays for it.

export { deployToken } from './pipeline/deployToken.js'
export { runIdempotently } from './pipeline/idempotency.js'
export { runTokenAction } from './pipeline/tokenAction.js'
export { listDeploys } from './records/agentDeploys.js'
export { prepareFeeCollection } from './records/feeCollection.js'
export { readLaunchState } from './records/launchState.js'
export { readDeployReceipt } from './records/readReceipt.js'
export { listEvents, redeliverEvent } from './webhooks/agentEvents.js'
