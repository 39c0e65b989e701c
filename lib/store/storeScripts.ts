import { defineScript, type WriteManyParameters } from './types.js'

// The store port's own scripts: what `writeMany` and `releaseLock` run, on Redis and in process alike, named like every
// other script so that a failure says which operation failed.

/**
 * Writes several keys in one step, each with its TTL, some only when absent, then releases a lock the caller still
 * owns. KEYS: the n keys, then the lock key (or none); ARGV: n, then per key its value, ttl ms and "nx" or "-", then
 * the lock token. Answers n.
 */
export const writeManyScript = defineScript<number>({
  name: 'write-many',
  lua: `
local n = tonumber(ARGV[1])
for i = 1, n do
  local value, ttl, mode = ARGV[3 * i - 1], ARGV[3 * i], ARGV[3 * i + 1]
  if mode == 'nx' then redis.call('SET', KEYS[i], value, 'PX', ttl, 'NX') else redis.call('SET', KEYS[i], value, 'PX', ttl) end
end
if #KEYS > n and redis.call('GET', KEYS[n + 1]) == ARGV[3 * n + 2] then redis.call('DEL', KEYS[n + 1]) end
return n
`,
  inProcess: (data, keys, args) => {
    const n = Number(args[0])
    for (let i = 1; i <= n; i++) {
      const [value, ttl, mode] = [args[3 * i - 2]!, Number(args[3 * i - 1]), args[3 * i]]
      data.set(keys[i - 1]!, value, { px: ttl, nx: mode === 'nx' })
    }
    if (keys.length > n && data.get(keys[n]!) === args[3 * n + 1]) data.del(keys[n]!)
    return n
  },
})

/** Deletes KEYS[1] only while it still holds the caller's token ARGV[1] (compare-and-delete); answers 1 or 0. */
export const releaseLockScript = defineScript<number>({
  name: 'release-lock',
  lua: `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`,
  inProcess: (data, keys, args) => {
    if (data.get(keys[0]!) !== args[0]) return 0
    data.del(keys[0]!)
    return 1
  },
})

/** The KEYS and ARGV of {@link writeManyScript} for the entries to write and the lock to release. */
export function writeManyArguments({ entries, releaseLock }: WriteManyParameters): {
  keys: string[]
  args: string[]
} {
  const keys = [...entries.map((e) => e.key), ...(releaseLock ? [releaseLock.key] : [])]
  const args = [
    String(entries.length),
    ...entries.flatMap((e) => [e.value, String(Math.max(1, Math.round(e.ttlMs))), e.ifAbsent ? 'nx' : '-']),
  ]
  if (releaseLock) args.push(releaseLock.token)
  return { keys, args }
}
