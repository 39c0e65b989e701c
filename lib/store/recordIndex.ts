import { defineScript, type Store } from './types.js'

/**
 * Records filed in indexes: each record is a string at its own key, and each index a sorted set of members scored by
 * epoch ms, so a list reads newest first and an old entry leaves by itself. Used by the deploy history, the agent
 * registry, the followed markets and the webhook outbox.
 */

/**
 * Writes a record and files it in indexes atomically. KEYS[1] the record, KEYS[2..] the indexes; ARGV: value, ttl
 * ms, member, score (epoch ms), most entries per index. Each index keeps its newest entries, none older than the ttl.
 */
const putIndexedScript = defineScript<number>({
  name: 'record-index put',
  lua: `
local ttl = tonumber(ARGV[2])
local score = tonumber(ARGV[4])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
for i = 2, #KEYS do
  redis.call('ZADD', KEYS[i], score, ARGV[3])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', score - ttl)
  redis.call('ZREMRANGEBYRANK', KEYS[i], 0, -(tonumber(ARGV[5]) + 1))
  redis.call('PEXPIRE', KEYS[i], ttl)
end
return 1
`,
  inProcess: (data, [record, ...indexes], [value, ttlText, member, scoreText, maxText]) => {
    const ttl = Number(ttlText)
    const score = Number(scoreText)
    data.set(record!, value!, { px: ttl })
    for (const index of indexes) {
      data.zadd(index, score, member!)
      data.zremRangeByScore(index, Number.NEGATIVE_INFINITY, score - ttl)
      data.zremRangeByRank(index, 0, -(Number(maxText) + 1))
      data.pexpire(index, ttl)
    }
    return 1
  },
})

/** The newest ARGV[1] members of an index, newest first. KEYS[1] the index. */
const newestMembersScript = defineScript<string[]>({
  name: 'record-index newest',
  lua: `return redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'REV')`,
  inProcess: (data, [index], [limit]) => data.zrange(index!, 0, Number(limit) - 1, true).map(({ member }) => member),
})

/** The newest ARGV[1] members of each index in KEYS, newest first: one list per index. */
const newestMembersOfEachScript = defineScript<string[][]>({
  name: 'record-index newest of each',
  lua: `local lists = {} for i = 1, #KEYS do lists[i] = redis.call('ZRANGE', KEYS[i], 0, tonumber(ARGV[1]) - 1, 'REV') end return lists`,
  inProcess: (data, indexes, [limit]) => indexes.map((index) => data.zrange(index, 0, Number(limit) - 1, true).map(({ member }) => member)),
})

/** Up to ARGV[2] members of an index scored above ARGV[1], oldest first, each followed by its score. KEYS[1] the index. */
const oldestAfterScript = defineScript<string[]>({
  name: 'record-index oldest after',
  lua: `return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))`,
  inProcess: (data, [index], [after, limit]) =>
    data
      .zrangeByScore(index!, Number(after) + 1, Number.POSITIVE_INFINITY, Number(limit))
      .flatMap(({ member, score }) => [member, String(score)]),
})

/** Removes ARGV[1] from every index in KEYS. */
const removeFromIndexesScript = defineScript<number>({
  name: 'record-index remove',
  lua: `for i = 1, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end return 1`,
  inProcess: (data, indexes, [member]) => {
    for (const index of indexes) data.zrem(index, member!)
    return 1
  },
})

/** The score of an index's oldest member, or nothing when it is empty. KEYS[1] the index. */
const oldestScoreScript = defineScript<string | null>({
  name: 'record-index oldest',
  lua: `local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES') return oldest[2]`,
  inProcess: (data, [index]) => {
    const [oldest] = data.zrange(index!, 0, 0)
    return oldest ? String(oldest.score) : null
  },
})

/** Parameters of {@link putIndexed}. */
export type PutIndexedParameters = {
  recordKey: string
  value: string
  ttlMs: number
  member: string
  /** Epoch ms: the order of the indexes. */
  score: number
  indexKeys: readonly string[]
  maxEntries: number
}

/**
 * Writes a record at `recordKey` for `ttlMs` and files `member` in every index, in one atomic step. Each index keeps
 * its newest `maxEntries` members and none older than `ttlMs`.
 */
export async function putIndexed(store: Store, parameters: PutIndexedParameters): Promise<void> {
  const { recordKey, value, ttlMs, member, score, indexKeys, maxEntries } = parameters
  const args = [value, Math.max(1, Math.round(ttlMs)), member, Math.round(score), maxEntries]
  await store.run(putIndexedScript, [recordKey, ...indexKeys], args)
}

/** Parameters of {@link listIndexedAfter}: the records of members scored above `after` (epoch ms, whole). */
export type ListIndexedAfterParameters = ListIndexedParameters & { after: number }

/** A page of an index, oldest first: its records with their scores, the last member's score, and whether more follow. */
export type ListIndexedAfterReturnType = { entries: { record: string; score: number }[]; lastScore: number | null; more: boolean }

/** The records of up to `limit` members of an index scored above `after`, oldest first (two round trips at most). */
export async function listIndexedAfter(
  store: Store,
  { indexKey, recordPrefix, limit, after }: ListIndexedAfterParameters,
): Promise<ListIndexedAfterReturnType> {
  if (limit <= 0) return { entries: [], lastScore: null, more: false }
  const flat = (await store.run(oldestAfterScript, [indexKey], [Math.floor(after), limit])).map(String)
  const members = flat.filter((_, i) => i % 2 === 0)
  if (members.length === 0) return { entries: [], lastScore: null, more: false }
  const records = await store.getMany(members.map((member) => recordPrefix + member))
  // A record that expired or was removed since is skipped.
  const entries = records.flatMap((record, i) => (record === null ? [] : [{ record, score: Number(flat[2 * i + 1]) }]))
  return { entries, lastScore: Number(flat.at(-1)), more: members.length === limit }
}

/** Parameters of {@link listIndexed}. */
export type ListIndexedParameters = { indexKey: string; recordPrefix: string; limit: number }

/**
 * The records of the newest `limit` members of an index, newest first, each read at `recordPrefix + member`: the
 * members, then their records, two round trips (one when the index is empty). A script may only touch the keys it
 * names, and a record's key is known only once its member is read.
 */
export async function listIndexed(store: Store, { indexKey, recordPrefix, limit }: ListIndexedParameters): Promise<string[]> {
  if (limit <= 0) return []
  const members = (await store.run(newestMembersScript, [indexKey], [limit])).map(String)
  if (members.length === 0) return []
  // A record that expired or was removed since is skipped.
  const records = await store.getMany(members.map((member) => recordPrefix + member))
  return records.filter((record): record is string => record !== null)
}

/** Parameters of {@link listIndexedEach}. */
export type ListIndexedEachParameters = { indexKeys: readonly string[]; recordPrefix: string; limit: number }

/**
 * The records of the newest `limit` members of each of several indexes, as {@link listIndexed} reads one: one round
 * trip for all their members (the only one when every index is empty), one for all their records.
 */
export async function listIndexedEach(store: Store, { indexKeys, recordPrefix, limit }: ListIndexedEachParameters): Promise<string[][]> {
  if (limit <= 0 || indexKeys.length === 0) return indexKeys.map(() => [])
  const lists = (await store.run(newestMembersOfEachScript, indexKeys, [limit])).map((members) => (members ?? []).map(String))
  const all = [...new Set(lists.flat())]
  if (all.length === 0) return lists.map(() => [])
  const values = await store.getMany(all.map((member) => recordPrefix + member))
  const byMember = new Map(all.map((member, i) => [member, values[i] ?? null]))
  return lists.map((members) => members.map((member) => byMember.get(member)).filter((record): record is string => record != null))
}

/** Removes `member` from every index in `indexKeys` (the record stays), in one step. */
export async function removeFromIndexes(store: Store, indexKeys: readonly string[], member: string): Promise<void> {
  if (indexKeys.length > 0) await store.run(removeFromIndexesScript, indexKeys, [member])
}

/** Removes `member` from the index `indexKey` (the record stays). */
export function removeFromIndex(store: Store, indexKey: string, member: string): Promise<void> {
  return removeFromIndexes(store, [indexKey], member)
}

/** The score (epoch ms) of the oldest member of an index, or null when it is empty. */
export async function oldestInIndex(store: Store, indexKey: string): Promise<number | null> {
  const score = await store.run(oldestScoreScript, [indexKey], [])
  return score === null || score === undefined ? null : Number(score)
}
