// The only module-level state in lib/ goes through here: what an instance (a warm serverless function, or the process
// of `npm start`) builds once and then reuses: its configuration and its services, and what it builds once from them
// or from the code alone (the public origin, the process's logger and its environment's credentials, the OpenAPI
// document: each built from what it is given, never a collection filled later).
// What an instance keeps while it serves (caches, throttles, locks, what it remembers of tokens) lives on the services
// it built, or in the endpoints built once beside them. Anything else is built per request or handed in as a
// parameter. tests/moduleState.test.ts follows what every module of lib/ runs when it loads, through the calls it makes,
// and fails on any object built on the way that may keep state: a `let`, a `new`, a factory's product.

/**
 * Builds `build()` on the first call and answers the same value after that, for the life of the instance. A build
 * that throws (a bad configuration, say) keeps nothing, so the next call tries again.
 */
export function perInstance<T>(build: () => T): () => T {
  let built: { value: T } | undefined
  return () => {
    built ??= { value: build() }
    return built.value
  }
}

/**
 * {@link perInstance} for a build that resolves later (one that loads a module on demand): a build that rejects keeps
 * nothing, so the next call tries again.
 */
export function perInstanceAsync<T>(build: () => Promise<T>): () => Promise<T> {
  let built: Promise<T> | undefined
  return () => {
    built ??= build().catch((error: unknown) => {
      built = undefined
      throw error
    })
    return built
  }
}
