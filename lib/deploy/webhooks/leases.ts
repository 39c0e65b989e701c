import { defineScript, type Store } from '../../store/types.js'

/**
 * KEYS[1] the due index (event id -> when due, epoch ms); ARGV: now ms, the lease's end ms, most members. Takes the
 * earliest members scored at or before now and rescores them to the lease's end, in one step. Returns them.
 */
const claimDueScript = defineScript<string[]>({
  name: 'webhook-due claim',
  lua: `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], member) end
return due
`,
  inProcess: (data, [index], [now, until, limit]) => {
    const due = data.zrangeByScore(index!, Number.NEGATIVE_INFINITY, Number(now), Number(limit))
    for (const { member } of due) data.zadd(index!, Number(until), member)
    return due.map(({ member }) => member)
  },
})

/** Parameters of {@link claimDue}. */
export type ClaimDueParameters = { indexKey: string; now: number; until: number; limit: number }

/**
 * Takes up to `limit` events of the due index whose time is at or before `now`, earliest first, and moves each to
 * `until` in the same atomic step: a lease, so no other instance attempts them before then. Answers their ids.
 */
export async function claimDue(store: Store, { indexKey, now, until, limit }: ClaimDueParameters): Promise<string[]> {
  return (await store.run(claimDueScript, [indexKey], [Math.round(now), Math.round(until), limit])).map(String)
}
