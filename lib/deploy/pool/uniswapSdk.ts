import { createRequire } from 'node:module'

/**
 * Loads one of Uniswap's SDKs by its CommonJS build. Their ES module builds import directories and extensionless files,
 * which Node's ES module loader refuses (ERR_UNSUPPORTED_DIR_IMPORT); bundlers and tsx forgive it, Node does not.
 * Call it where the SDK is used, never at a module's load: with ethers 5 under them the SDKs take about 0.6 s of CPU to
 * load, which every cold start of the deploy half would pay, though only pools use them (Node's require cache keeps
 * them after the first call; tests/docs/docs.test.ts holds it).
 */
export function uniswapSdk<T>(name: string): T {
  return createRequire(import.meta.url)(name) as T
}

/**
 * The big-integer class Uniswap's SDKs compute with (JSBI), as the v3 SDK itself resolves it: its functions take and
 * answer JSBI values, and only the instance they were built with does their arithmetic.
 */
export function sdkJsbi(): typeof import('jsbi').default {
  const require = createRequire(import.meta.url)
  return createRequire(require.resolve('@uniswap/v3-sdk'))('jsbi') as typeof import('jsbi').default
}
