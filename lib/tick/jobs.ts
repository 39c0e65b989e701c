import { type DeployTickContext, followDeploysJob, webhookRetriesJob } from '../deploy/tickJobs.js'
import { chainMarketsJob, tokenMarketsJob } from '../launches/tickJobs.js'
import type { TickJob } from '../platform/tickJob.js'
import { backfillJob, controlRoomJob, discoveryJob, type ReadTickContext, snapshotJob } from '../read/tickJobs.js'

// Every job of the tick, in one list: each room gives its own (its tickJobs.ts), the tick runs them all, each on its
// own, and its answer and OpenAPI declaration name them in this order. A new job is a module's export and a line here.

/** What the tick hands every job: every room's context, so each job takes the part it declared. */
export type TickContext = ReadTickContext & DeployTickContext

/**
 * Paid deploys whose settle nobody saw end, decided from the chain a few at a time (no signer: none were paid).
 * lib/payments' own job, written here while that room is regrouped: it moves to the room's tickJobs.ts.
 */
const paymentsJob: TickJob<DeployTickContext> = {
  name: 'payments',
  details: 'open, decided, paid, refused, unknown, busy, skipped: paid deploys’ payments left settling or unknown, decided from the chain',
  needs: ['signer'],
  async run({ deploy }) {
    const services = await deploy()
    const { store, config } = services
    if (!store) return { skipped: 'no shared store' }
    const [{ reconcilePayments }, { paymentKeys }] = await Promise.all([import('../payments/reconcile.js'), import('../payments/keys.js')])
    const keys = paymentKeys({ storePrefix: config.storePrefix, chainId: config.chainId })
    return { ...(await reconcilePayments({ services: { ...services, store }, keys })) }
  },
}

/** The tick's jobs, in the order its answer reports them. */
export const TICK_JOBS: readonly TickJob<TickContext>[] = [
  controlRoomJob,
  snapshotJob,
  backfillJob,
  followDeploysJob,
  tokenMarketsJob,
  chainMarketsJob,
  webhookRetriesJob,
  paymentsJob,
  discoveryJob,
]
