import { randomUUID } from 'node:crypto'
import { Redis } from '@upstash/redis'
import { type Deadline, systemClock } from '../platform/clock.js'
import { releaseLockScript, writeManyArguments, writeManyScript } from './storeScripts.js'
import { type ChannelListener, type ChannelSubscription, type Store, StoreError } from './types.js'

/** Parameters of {@link createUpstashStore}. */
export type CreateUpstashStoreParameters = {
  url: string
  token: string
  /** Longest a single store request may take before it is aborted and counts as failed (default 2000 ms). */
  timeoutMs?: number
  /** The clock that deadline runs on (default the real one: a store built alone, by a script or a test). */
  deadline?: Deadline
}

/** The Upstash store, with its client for what takes one itself (`@upstash/ratelimit`, in `throttle.ts`). */
export type UpstashStore = Store & { readonly kind: 'upstash'; readonly redis: Redis; readonly timeoutMs: number }

/** What this store uses of `@upstash/redis`'s script: EVAL, and EVALSHA falling back to EVAL. */
type LuaScript = { eval(keys: string[], args: string[]): Promise<unknown>; exec(keys: string[], args: string[]): Promise<unknown> }

const ttl = (ms: number) => Math.max(1, Math.round(ms))

/**
 * The Upstash Redis store (REST protocol), shared by every instance of the service. Scripts are called by their
 * SHA-1 (`EVALSHA`) once this instance has sent them whole.
 */
export function createUpstashStore(parameters: CreateUpstashStoreParameters): UpstashStore {
  const { url, token, timeoutMs = 2000, deadline = systemClock.deadline } = parameters
  const redis = new Redis({
    url,
    token,
    automaticDeserialization: false,
    enableTelemetry: false,
    // The client retries network errors 5 times over ~4 s by default; a cache in front of live data must not wait that long.
    retry: { retries: 1, backoff: () => 100 },
    // A fresh deadline per request: past it the request is aborted, not left running behind a timer.
    signal: () => deadline(timeoutMs),
  })
  // Upstash errors quote the whole command; callers only ever see which operation failed.
  const call = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (error) {
      if ((error as Error | null)?.name === 'TimeoutError') throw new StoreError(`store ${operation} timed out after ${timeoutMs} ms`)
      throw new StoreError(`store ${operation} failed`)
    }
  }
  // Each script is sent whole once per instance (EVAL, which also loads it into Redis), then called by its SHA-1
  // (EVALSHA, falling back to EVAL once if Redis has forgotten it): no call ever fails for a script not loaded yet.
  const scripts = new Map<string, { script: LuaScript; sent: boolean }>()
  const runLua = <T>(operation: string, lua: string, keys: readonly string[], args: readonly (string | number)[]) =>
    call(operation, async () => {
      let entry = scripts.get(lua)
      if (!entry) {
        entry = { script: redis.createScript<unknown, false>(lua), sent: false }
        scripts.set(lua, entry)
      }
      const [keyList, argList] = [[...keys], args.map(String)]
      if (entry.sent) return (await entry.script.exec(keyList, argList)) as T
      const reply = (await entry.script.eval(keyList, argList)) as T
      entry.sent = true
      return reply
    })
  return {
    kind: 'upstash',
    redis,
    timeoutMs,
    get: (key) =>
      call('get', async () => {
        const value = await redis.get<string>(key)
        return typeof value === 'string' ? value : null
      }),
    getMany: (keys) =>
      call('get', async () => {
        if (keys.length === 0) return []
        const values = await redis.mget<(string | null)[]>(...keys)
        return values.map((v) => (typeof v === 'string' ? v : null))
      }),
    set: (key, value, ttlMs) =>
      call('set', async () => {
        await redis.set(key, value, { px: ttl(ttlMs) })
      }),
    setIfAbsent: (key, value, ttlMs) => call('set', async () => (await redis.set(key, value, { nx: true, px: ttl(ttlMs) })) === 'OK'),
    delete: (key) =>
      call('delete', async () => {
        await redis.del(key)
      }),
    writeMany: async (parameters) => {
      if (parameters.entries.length === 0 && !parameters.releaseLock) return
      const { keys, args } = writeManyArguments(parameters)
      await runLua(writeManyScript.name, writeManyScript.lua, keys, args)
    },
    acquireLock: (key, ttlMs) =>
      call('lock', async () => {
        const owner = randomUUID()
        return (await redis.set(key, owner, { nx: true, px: ttl(ttlMs) })) === 'OK' ? owner : null
      }),
    releaseLock: async (key, owner) => Number(await runLua(releaseLockScript.name, releaseLockScript.lua, [key], [owner])) === 1,
    run: (script, keys, args) => runLua(script.name, script.lua, keys, args),
    publish: (channel, message) =>
      call('publish', async () => {
        await redis.publish(channel, message)
      }),
    subscribe: (channel, listener) => subscribeOver(redis, channel, listener),
  }
}

/**
 * A subscription through `@upstash/redis` as it is: one `POST /subscribe/<channel>` answered with Server-Sent Events
 * (`data: subscribe,<channel>,<count>` once live, then `data: message,<channel>,<message>` per message), read by the
 * library with no deadline of ours (the request carries its own abort signal). The library reports a request that
 * fails (refused, unreachable after its one retry) as an `error`, which is the drop; a stream the server ends later it
 * does not report at all (lib/launches/watch.ts checks for that with a message of its own).
 */
function subscribeOver(redis: Redis, channel: string, listener: ChannelListener): ChannelSubscription {
  const subscriber = redis.subscribe<string>([channel])
  let live = true
  const close = () => {
    if (!live) return
    live = false
    void subscriber.unsubscribe()
  }
  subscriber.on('subscribe', () => {
    if (live) listener.onOpen()
  })
  // With automaticDeserialization off the library hands the message over as the text it read.
  subscriber.on('message', ({ message }) => {
    if (live) listener.onMessage(typeof message === 'string' ? message : JSON.stringify(message))
  })
  subscriber.on('error', () => {
    if (!live) return
    close()
    listener.onDrop(new StoreError('store subscribe failed'))
  })
  return { close }
}
