// The only module-level state in lib/ goes through here: what an instance (a warm serverless function, or the process
// of `npm start`) builds once and then reuses: its configuration and its services, and what it builds once from them
// or from the code alone (the public origin, the process's logger and its environment's credentials, the OpenAPI
// document: each built from what it is given, never a collection filled later).
// What an instance keeps while it serves (caches, throttles, locks, what it remembers of tokens) lives on the services
// it built, or in the endpoints built once beside them. Anything else is built per request or handed in as a
// parameter. tests/moduleState.test.ts follows what every module of lib/ runs when it loads, through the calls it makes,
// and fails on any object built on the way that may keep state: a `let`, a `new`, a factory's product.
//
// A process is one instance; the test suite makes each test file an instance of its own (`startNewInstance`), though
// files share a worker and its loaded modules: every memo below then builds anew on its next call.

/**
 * What the current instance has built, by memo: a new instance starts with none, and what an earlier one built is
 * then held by nothing here (a test worker's heap does not carry every earlier file's stores and services). Weakly
 * keyed, so a memo that is itself let go (an endpoint a test built and dropped) takes its value with it.
 */
let currentInstance = new WeakMap<object, { value: unknown }>()

/**
 * Begins a new instance in this process: every {@link perInstance} and {@link perInstanceAsync} memo builds anew on
 * its next call, reading `process.env` again. For the test suite (tests/support/newInstance.ts), which runs its files
 * one after the other in one process; a deployment never calls it.
 */
export function startNewInstance(): void {
  currentInstance = new WeakMap()
}

/**
 * Builds `build()` on the first call and answers the same value after that, for the life of the instance. A build
 * that throws (a bad configuration, say) keeps nothing, so the next call tries again.
 */
export function perInstance<T>(build: () => T): () => T {
  const memo = {}
  return () => {
    let built = currentInstance.get(memo)
    if (!built) {
      built = { value: build() }
      currentInstance.set(memo, built)
    }
    return built.value as T
  }
}

/**
 * {@link perInstance} for a build that resolves later (one that loads a module on demand): a build that rejects keeps
 * nothing, so the next call tries again.
 */
export function perInstanceAsync<T>(build: () => Promise<T>): () => Promise<T> {
  const memo = {}
  return () => {
    const instance = currentInstance
    let built = instance.get(memo)
    if (!built) {
      const entry: { value: Promise<T> } = {
        value: build().catch((error: unknown) => {
          if (instance.get(memo) === entry) instance.delete(memo)
          throw error
        }),
      }
      instance.set(memo, entry)
      built = entry
    }
    return built.value as Promise<T>
  }
}
