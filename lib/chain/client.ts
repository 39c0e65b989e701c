import { createPublicClient, http, type PublicClient } from 'viem'
import { base, baseSepolia } from 'viem/chains'
import { BaseError } from '../platform/errors.js'

/** Longest one RPC attempt may take; with the one retry, a hanging RPC is answered within about 8 s. */
export const RPC_TIMEOUT_MS = 4000

/** Parameters of {@link createChainClient}. */
export type CreateChainClientParameters = { rpcUrl: string; chainId: 8453 | 84532; timeoutMs?: number }

/** A viem public client for Base (8453) or Base Sepolia (84532) over the configured RPC. */
export function createChainClient({ rpcUrl, chainId, timeoutMs = RPC_TIMEOUT_MS }: CreateChainClientParameters): PublicClient {
  return createPublicClient({
    chain: chainId === 8453 ? base : baseSepolia,
    // viem retries failed requests; one retry is enough for a path that holds a lock while it waits.
    transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 1, retryDelay: 150 }),
  }) as PublicClient
}

/** The RPC answers for a different chain than the one configured. */
export class ChainMismatchError extends BaseError<'CHAIN_MISMATCH'> {
  override name = 'ChainMismatchError'
  constructor(message: string) {
    super(message, { code: 'CHAIN_MISMATCH' })
  }
}

/** Checks `eth_chainId` once per client (a failed check is retried on the next call, a mismatch is final). */
export function createChainIdCheck(client: PublicClient, expected: number): () => Promise<void> {
  let verified: Promise<void> | undefined
  return () => {
    verified ??= client.getChainId().then(
      (actual) => {
        if (actual !== expected) throw new ChainMismatchError(`the RPC serves chain ${actual}, not the configured ${expected}`)
      },
      (error: unknown) => {
        verified = undefined
        throw error
      },
    )
    return verified
  }
}
