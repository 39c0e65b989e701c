import type { Store } from '../../lib/store/types.js'

/** A read being held: `reached` once it was made, `release` to hand its answer to the caller. */
export type HeldRead = { reached: Promise<void>; release(): void }

/** A real store whose chosen reads are made at once but answered only when the test lets them go. */
export type HeldReads = {
  store: Store
  /** Holds the next `get` or `getMany` that touches a key `matches` picks (once). */
  hold(matches: (key: string) => boolean): HeldRead
}

/**
 * Wraps a real store so that a test can stop a read between the store's answer and the caller's `await`: the caller
 * then goes on with a copy read before whatever happened meanwhile, the interleaving a race needs. Everything else
 * passes straight through.
 */
export function holdReads(store: Store): HeldReads {
  const armed: { matches: (key: string) => boolean; reached: () => void; released: Promise<void> }[] = []
  const heldFor = (keys: readonly string[]) => {
    const index = armed.findIndex((a) => keys.some(a.matches))
    return index < 0 ? null : armed.splice(index, 1)[0]!
  }
  const held = async <T>(keys: readonly string[], read: () => Promise<T>): Promise<T> => {
    const hold = heldFor(keys)
    const value = await read()
    if (hold) {
      hold.reached()
      await hold.released
    }
    return value
  }
  return {
    store: {
      ...store,
      get: (key) => held([key], () => store.get(key)),
      getMany: (keys) => held(keys, () => store.getMany(keys)),
    },
    hold(matches) {
      let reached!: () => void
      let release!: () => void
      const reachedPromise = new Promise<void>((resolve) => {
        reached = resolve
      })
      const released = new Promise<void>((resolve) => {
        release = resolve
      })
      armed.push({ matches, reached, released })
      return { reached: reachedPromise, release }
    },
  }
}
