/** Deletes KEYS[1] only while it still holds the caller's token ARGV[1] (compare-and-delete). */
export const RELEASE_LOCK_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`
