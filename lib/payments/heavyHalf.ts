// The heavy half of the paid door (viem, the AWS SDK, the deploy pipeline), loaded only once a request carries a
// well-formed payment or asks for a receipt: an unpaid request never pays for it.

export { runPaidDeploy } from './paidDeploy.js'
export { readPaidReceipt } from './paidReceipt.js'
