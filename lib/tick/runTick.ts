import { randomUUID } from 'node:crypto'
import type { DeployServices } from '../deploy/services.js'
import { BaseError } from '../platform/errors.js'
import { errorName, type Logger, publicErrorMessage, unexpectedErrorFields } from '../platform/log.js'
import { accepted, type Result, refused } from '../platform/result.js'
import type { TickJob } from '../platform/tickJob.js'
import type { ReadServices } from '../read/services.js'
import type { TickRoom } from '../read/tickJobs.js'
import { StoreError } from '../store/types.js'
import { TICK_JOBS, type TickContext } from './jobs.js'
import { tickKeys } from './keys.js'
import { type LastTick, saveLastTick } from './lastTick.js'

/**
 * One part's outcome: what it did, or why it failed (the error's name, its code, `INTERNAL` for an error not the
 * service's own, and its public message; never a secret).
 */
export type TickPartResult = Result<{ [detail: string]: unknown }, string, { error: string; message?: string }>

/** What a tick answers. */
export type TickSummary = {
  ok: boolean
  /** False when another tick already ran within this interval (across instances): nothing was done. */
  ran: boolean
  caller: string
  startedAt: string
  durationMs: number
  /** Each part's outcome (when the tick ran), by its job's name. */
  parts?: Record<string, TickPartResult>
  /** The parts that failed. */
  failed?: string[]
}

/** Parameters of {@link runTick}. */
export type RunTickParameters = {
  read: ReadServices
  /** The deploy services, loaded on demand; a failure to load fails the deploys part only. */
  deploy: () => Promise<DeployServices>
  /** Who called (for the summary and health). */
  caller: string
  /** The schedule's interval: a tick claims it, so ticks closer together than about this do the work once. */
  intervalSeconds: number
  /** The jobs to run (default: every room's, lib/tick/jobs.ts). */
  jobs?: readonly TickJob<TickContext>[]
}

/**
 * The service's scheduled work, claimed once per interval across instances: every room's jobs (lib/tick/jobs.ts: the
 * control room kept fresh, its snapshot and backfill, the deploys followed, the launches' markets, webhook retries,
 * paid deploys' payments decided from the chain, discovery when due), all at once, each on its own: one failing is
 * logged and named in the answer, and never stops the others.
 */
export async function runTick({ read, deploy, caller, intervalSeconds, jobs = TICK_JOBS }: RunTickParameters): Promise<TickSummary> {
  const { store, keyPrefix, logger } = read
  const startedAt = read.now()
  if (!(await claimInterval(read, startedAt, intervalSeconds)))
    return { ok: true, ran: false, caller, startedAt: new Date(startedAt).toISOString(), durationMs: read.now() - startedAt }

  const parts = await runJobs({ jobs, read, deploy, logger })
  const failed = jobs.map((job) => job.name).filter((name) => parts[name] && !parts[name]!.ok)
  const summary: TickSummary = {
    ok: failed.length === 0,
    ran: true,
    caller,
    startedAt: new Date(startedAt).toISOString(),
    durationMs: read.now() - startedAt,
    parts,
    failed,
  }
  const last: LastTick = { at: summary.startedAt, durationMs: summary.durationMs, caller, failed, parts }
  await saveLastTick(store, keyPrefix, last).catch((error: unknown) => logStepFailure(logger, 'tick_last', error))
  logger.info('tick', { caller, durationMs: summary.durationMs, failed: failed.join(',') })
  return summary
}

/**
 * One claim per interval of the schedule (on the service's clock): duplicates and concurrent ticks in it do nothing.
 * Without the store the parts degrade on their own; a tick that cannot claim still does its work.
 */
async function claimInterval(
  read: Pick<ReadServices, 'store' | 'keyPrefix' | 'logger'>,
  startedAt: number,
  intervalSeconds: number,
): Promise<boolean> {
  const intervalMs = Math.max(1, intervalSeconds) * 1000
  const claimKey = tickKeys(read.keyPrefix).claim(Math.floor(startedAt / intervalMs))
  return read.store.setIfAbsent(claimKey, randomUUID(), 2 * intervalMs).catch((error: unknown) => {
    logStepFailure(read.logger, 'tick_claim', error, 'tick runs unclaimed')
    return true
  })
}

/** A step of the tick's own bookkeeping failed: `store_unavailable` when the store did, else the error as it is. */
function logStepFailure(logger: Logger, operation: string, error: unknown, effect?: string): void {
  if (error instanceof StoreError) logger.warn('store_unavailable', { operation, error: errorName(error), effect })
  else logger.error('tick_step_failed', { operation, ...unexpectedErrorFields(error), effect })
}

/** A job that needs the control room, when the room's own job failed (its failure is the one logged). */
export class NoControlRoomError extends BaseError<'NO_CONTROL_ROOM'> {
  override name = 'NoControlRoom'
  constructor(message: string) {
    super(message, { code: 'NO_CONTROL_ROOM' })
  }
}

/** Parameters of {@link runJobs}. */
type RunJobsParameters = Pick<RunTickParameters, 'read' | 'deploy'> & { jobs: readonly TickJob<TickContext>[]; logger: Logger }

/**
 * Runs every job at once, each on its own: what it needs seen to first (the room waited for, the signer looked for),
 * then its run; its details or its failure go into its part of the summary. The room is what the job that offers it
 * hands over, or null once that job ended without (none offers it: null from the start).
 */
async function runJobs({ jobs, read, deploy, logger }: RunJobsParameters): Promise<Record<string, TickPartResult>> {
  let offerRoom: (room: TickRoom | null) => void = () => {}
  const roomReady = new Promise<TickRoom | null>((resolve) => {
    offerRoom = resolve
  })
  if (!jobs.some((job) => job.offers === 'room')) offerRoom(null)
  const context: TickContext = { read, deploy, room: () => roomReady, offerRoom }
  const parts: Record<string, TickPartResult> = {}
  const runJob = async (job: TickJob<TickContext>): Promise<TickPartResult> => {
    if (job.needs.includes('room') && !(await roomReady)) throw new NoControlRoomError('no control room to work from (its part failed)')
    if (job.needs.includes('signer') && !(await deploy()).getSigner) return accepted({ skipped: 'no signer configured' })
    return accepted(await job.run(context))
  }
  await Promise.all(
    jobs.map(async (job) => {
      try {
        parts[job.name] = await runJob(job)
      } catch (error) {
        const message = publicErrorMessage(error)
        const code = error instanceof BaseError ? error.code : 'INTERNAL'
        parts[job.name] = refused(code, { error: errorName(error), ...(message ? { message } : {}) })
        // A job that could not start because the room failed is named in the answer; the room's failure is the line.
        if (!(error instanceof NoControlRoomError)) logger.warn('tick_part_failed', { part: job.name, error: errorName(error), message })
      } finally {
        if (job.offers === 'room') offerRoom(null)
      }
    }),
  )
  return parts
}
