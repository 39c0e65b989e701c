import { type Store, StoreError } from '../../lib/store/types.js'

/**
 * A store as one instance sees it, failing on cue: each call first asks `failNow()`, and when it answers true the call
 * throws a {@link StoreError} (as the Upstash adapter does when Redis is unreachable), or what `failure` makes, instead of
 * reaching the store.
 */
export function flakyStore(
  store: Store,
  failNow: () => boolean,
  failure: (operation: string) => Error = (operation) => new StoreError(`store ${operation} failed`),
): Store {
  const guard =
    <A extends unknown[], R>(operation: string, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (failNow()) throw failure(operation)
      return call(...args)
    }
  return {
    kind: store.kind,
    get: guard('get', (key) => store.get(key)),
    getMany: guard('getMany', (keys) => store.getMany(keys)),
    set: guard('set', (key, value, ttlMs) => store.set(key, value, ttlMs)),
    setIfAbsent: guard('setIfAbsent', (key, value, ttlMs) => store.setIfAbsent(key, value, ttlMs)),
    delete: guard('delete', (key) => store.delete(key)),
    writeMany: guard('writeMany', (parameters) => store.writeMany(parameters)),
    acquireLock: guard('acquireLock', (key, ttlMs) => store.acquireLock(key, ttlMs)),
    releaseLock: guard('releaseLock', (key, token) => store.releaseLock(key, token)),
    run: guard('run', (script, keys, args) => store.run(script, keys, args)) as Store['run'],
    publish: guard('publish', (channel, message) => store.publish(channel, message)),
    // A subscription opened while the store fails is dropped, as Upstash's library reports a refused one.
    subscribe: (channel, listener) => {
      if (!failNow()) return store.subscribe(channel, listener)
      queueMicrotask(() => listener.onDrop(new StoreError('store subscribe failed')))
      return { close: () => {} }
    },
  }
}
