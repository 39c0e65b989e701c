// The heavy half of the paid door (viem, the AWS SDK, the deploy pipeline), loaded only once a request carries a
// well-formed payment or asks for a receipt: an unpaid request never pays for it.

export { readPaidReceipt } from '../door/paidReceipt.js'
export { runPaidDeploy } from './paidRequest.js'
