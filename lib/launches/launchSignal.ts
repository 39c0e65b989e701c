import { parseRecord } from '../store/records.js'
import { defineScript, type Store } from '../store/types.js'
import { launchMessage } from './chainEvents.js'
import { type Launch, launchSchema } from './schema.js'

// The launches lately seen confirmed, in one small store key: a receipt or the tick's follow-up adds each once, and the
// one that added it publishes it on the chain's events channel (chainEvents.ts). An instance with open streams hears
// it there (watch.ts), and reads this key only when its subscription (re)opens, to catch up on what was
// published while it was not listening. No agent detail is in it.

/** Launches the key keeps (the newest), and for how long after the last one. */
const SIGNAL_KEEP = 20
const SIGNAL_TTL_MS = 3_600_000

/**
 * KEYS[1] the signal (a sorted set of `<txHash><launch JSON>` by when it was seen confirmed); ARGV: now ms, the
 * lower-case txHash (66 characters), the member, how many to keep, the ttl. Adds the launch unless its txHash is there
 * already (a receipt and the tick may both see one deploy mined); answers 1 when it added it.
 */
const announceScript = defineScript<number>({
  name: 'launch-signal announce',
  lua: `
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if string.sub(member, 1, 66) == ARGV[2] then return 0 end
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[4]) + 1))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`,
  inProcess: (data, [key], [now, txHash, member, keep, ttl]) => {
    if (data.zrange(key!, 0, -1).some((entry) => entry.member.slice(0, 66) === txHash)) return 0
    data.zadd(key!, Number(now), member!)
    data.zremRangeByRank(key!, 0, -(Number(keep) + 1))
    data.pexpire(key!, Number(ttl))
    return 1
  },
})

/** KEYS[1] the signal; ARGV[1] a time (ms): the members seen confirmed at or after it, with their times, oldest first. */
const sinceScript = defineScript<string[]>({
  name: 'launch-signal since',
  lua: `return redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '+inf', 'WITHSCORES')`,
  inProcess: (data, [key], [since]) =>
    data.zrangeByScore(key!, Number(since), Number.POSITIVE_INFINITY).flatMap(({ member, score }) => [member, String(score)]),
})

/** Parameters of {@link announceLaunch}: the signal's key and the events channel (keys.ts). */
export type AnnounceLaunchParameters = { store: Store; key: string; channel: string; launch: Launch; now: number }

/**
 * Adds a confirmed launch to the signal, once per deploy, and when this call added it publishes it on the channel
 * (two store commands; one when another caller had added it already). Written first, published second: a listener
 * whose catch-up read runs after the message went out finds it in the signal. Answers whether this call added it.
 */
export async function announceLaunch({ store, key, channel, launch, now }: AnnounceLaunchParameters): Promise<boolean> {
  const txHash = launch.txHash.toLowerCase()
  const at = Math.round(now)
  const added =
    Number(await store.run(announceScript, [key], [at, txHash, `${txHash}${JSON.stringify(launch)}`, SIGNAL_KEEP, SIGNAL_TTL_MS])) === 1
  if (added) await store.publish(channel, launchMessage(launch, at))
  return added
}

/** A launch as the signal holds it, and when it was seen confirmed (ms, the announcer's clock). */
export type SignalledLaunch = { launch: Launch; seenAt: number }

/** The launches seen confirmed at or after `since` (ms), oldest first (one store call: a listener's catch-up read). */
export async function launchesSince(store: Store, key: string, since: number): Promise<SignalledLaunch[]> {
  const flat = (await store.run(sinceScript, [key], [Math.round(since)])).map(String)
  const signalled: SignalledLaunch[] = []
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const launch = parseRecord(launchSchema, flat[i]!.slice(66))
    if (launch) signalled.push({ launch, seenAt: Number(flat[i + 1]) })
  }
  return signalled
}
