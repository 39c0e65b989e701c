import { type DeployTickContext, followDeploysJob, webhookRetriesJob } from '../deploy/tickJobs.js'
import { chainMarketsJob, tokenMarketsJob } from '../launches/tickJobs.js'
import { paymentsJob } from '../payments/tickJobs.js'
import type { TickJob } from '../platform/tickJob.js'
import { backfillJob, controlRoomJob, discoveryJob, type ReadTickContext, snapshotJob } from '../read/tickJobs.js'

// Every job of the tick, in one list: each room gives its own (its tickJobs.ts), the tick runs them all, each on its
// own, and its answer and OpenAPI declaration name them in this order. A new job is a module's export and a line here.

/** What the tick hands every job: every room's context, so each job takes the part it declared. */
export type TickContext = ReadTickContext & DeployTickContext

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
