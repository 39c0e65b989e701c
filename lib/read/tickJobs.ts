import { takeSnapshot } from '../market/snapshots.js'
import { type ControlRoom, controlRoomSchema } from '../market/types.js'
import type { TickJob } from '../platform/tickJob.js'
import { parseRecord } from '../store/records.js'
import { refreshControlRoom } from './controlRoom/refresh.js'
import { UnreadableControlRoomError } from './errors.js'
import { recordSnapshot } from './history/historyStore.js'
import { backfillPriceLines } from './history/priceBackfill.js'
import { readKeys } from './keys.js'
import { READ_CACHE_TTL_MS } from './readers.js'
import type { ReadServices } from './services.js'
import { discoverIfDue } from './universe/discovery.js'

// The read side's jobs of the tick (lib/tick/jobs.ts lists them): the control room first, then from its tokens the
// snapshot, the backfill and the discovery.

/** This tick's control room: the tokens the jobs work from, and whether this tick refreshed it. */
export type TickRoom = { tokens: ControlRoom['liveActivity']; refreshed: boolean }

/** What the read side's jobs work from. */
export type ReadTickContext = {
  read: ReadServices
  /** This tick's control room once its job ran; null when that job failed. */
  room(): Promise<TickRoom | null>
  /** How the control room's job hands the room to the others. */
  offerRoom(room: TickRoom): void
}

/** The room of a job that needs it: the tick runs such a job only once there is one. */
const neededRoom = async (context: Pick<ReadTickContext, 'room'>) => (await context.room()) as TickRoom

/** Keeps the control room fresh: refreshed when its body is older than the 30 s window. */
export const controlRoomJob: TickJob<ReadTickContext> = {
  name: 'controlRoom',
  details: 'refreshed, ageSeconds, tokens, source',
  needs: [],
  offers: 'room',
  async run({ read, offerRoom }) {
    const { entry, refreshed } = await read.cache.refreshIfOlder({
      key: readKeys(read.keyPrefix).controlRoom,
      ttlMs: READ_CACHE_TTL_MS,
      olderThanMs: READ_CACHE_TTL_MS,
      refresh: () => refreshControlRoom(read),
    })
    const room = parseRecord(controlRoomSchema, entry.body)
    if (!room) throw new UnreadableControlRoomError('the cached control room is not one')
    offerRoom({ tokens: room.liveActivity, refreshed })
    return {
      refreshed,
      ageSeconds: Math.max(0, Math.floor((read.now() - entry.fetchedAt) / 1000)),
      tokens: room.liveActivity.length,
      ...(entry.source ? { source: entry.source } : {}),
    }
  },
}

/** Writes the snapshot of the current 5-minute mark (a refresh writes its own: then nothing again). */
export const snapshotJob: TickJob<ReadTickContext> = {
  name: 'snapshot',
  details: 'mark, written',
  needs: ['room'],
  async run(context) {
    const { read } = context
    const { tokens, refreshed } = await neededRoom(context)
    const snapshot = takeSnapshot(tokens, read.now())
    if (refreshed) return { mark: new Date(snapshot.t).toISOString(), written: true, by: 'refresh' }
    const written = await recordSnapshot({ store: read.store, keyPrefix: read.keyPrefix, snapshot, logger: read.logger })
    return { mark: new Date(snapshot.t).toISOString(), written }
  },
}

/** Backfills the listed tokens' price lines from candles. */
export const backfillJob: TickJob<ReadTickContext> = {
  name: 'backfill',
  details: 'fetched, failed, remaining, skipped',
  needs: ['room'],
  async run(context) {
    return { ...(await backfillPriceLines({ services: context.read, tokens: (await neededRoom(context)).tokens })) }
  },
}

/** Runs discovery when it is due (a refresh runs the discovery that is due: then not again). */
export const discoveryJob: TickJob<ReadTickContext> = {
  name: 'discovery',
  details: 'due, pages, failedPages, learned',
  needs: [],
  async run({ read, room }) {
    const refreshed = (await room())?.refreshed ?? false
    return refreshed ? { due: false, pages: 0, failedPages: 0, learned: 0, by: 'refresh' } : { ...(await discoverIfDue(read)) }
  },
}
