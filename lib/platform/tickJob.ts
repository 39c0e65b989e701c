// What one piece of the scheduled work is, as a room gives it to the tick: lib/tick/jobs.ts lists every room's jobs,
// and the tick runs the list, each job on its own. A room declares the context it works from (its services, the
// deploy side loaded on demand, the control room of this tick), the tick hands it a context that has at least that.

/** What a job did, as its part of the tick's summary shows it. */
export type TickJobDetails = { [detail: string]: unknown }

/**
 * What a job needs before it runs, which the tick sees to: `room`, this tick's control room (the job fails as
 * NO_CONTROL_ROOM when the room's own job failed); `signer`, a signer configured on the deploy side (without one the
 * job answers `skipped: 'no signer configured'`, having spent nothing).
 */
export type TickJobNeed = 'room' | 'signer'

/** One job of the tick, from its room. */
export type TickJob<Context> = {
  /** Its name in the summary (`parts`, `failed`). */
  name: string
  /** The fields its part of the summary has, for the tick's OpenAPI answer. */
  details: string
  /** What the tick sees to before it runs. */
  needs: readonly TickJobNeed[]
  /** `room`: this is the job that reads the control room the others work from. */
  offers?: 'room'
  /** The work: what it answers is its part of the summary; a throw is its failure, and never stops the others. */
  run(context: Context): Promise<TickJobDetails>
}
