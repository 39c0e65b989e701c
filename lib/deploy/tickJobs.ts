import type { TickJob } from '../platform/tickJob.js'
import type { FollowDeploysReturnType } from './pipeline/followDeploys.js'
import type { DeployServices } from './services.js'

// The deploy side's jobs of the tick (lib/tick/jobs.ts lists them). Each loads the deploy services, and the code it
// runs, only when it runs: a tick of a service without a signer loads no signing code.

/** What the deploy side's jobs work from: its services, loaded on demand (a failure to load fails the job only). */
export type DeployTickContext = { deploy(): Promise<DeployServices> }

/** Follows unmined deploys: outcomes recorded, stuck ones replaced. */
export const followDeploysJob: TickJob<DeployTickContext> = {
  name: 'deploys',
  details: 'unmined, confirmed, reverted, replaced, skipped, replacement',
  needs: [],
  async run({ deploy }): Promise<FollowDeploysReturnType> {
    const [{ followDeploys }, services] = await Promise.all([import('./pipeline/followDeploys.js'), deploy()])
    return followDeploys(services)
  },
}

/** Retries due webhook deliveries. */
export const webhookRetriesJob: TickJob<DeployTickContext> = {
  name: 'webhooks',
  details: 'due, delivered, retrying, failed, disabled, skipped: webhook retries',
  needs: ['signer'],
  async run({ deploy }) {
    const { webhooks } = await deploy()
    return webhooks ? { ...(await webhooks.deliverDue()) } : { skipped: 'no shared store' }
  },
}
