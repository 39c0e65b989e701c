import type { PublicClient } from 'viem'
import { currentFees } from './fees.js'

/** The next block's base fee and the priority fee the network asks, as {@link currentFees} reads them. */
export type NetworkFees = Awaited<ReturnType<typeof currentFees>>

/** Base's block time: fees change at most this often. */
export const BLOCK_MS = 2000

type Entry = { fees: Promise<NetworkFees>; readAt: number }

/** Fees read per chain client (one per instance): every deploy of a block shares one `eth_feeHistory`. */
const cache = new WeakMap<PublicClient, Entry>()

/** Parameters of {@link feesOfBlock}. */
export type FeesOfBlockParameters = {
  publicClient: PublicClient
  /** Oldest fees that may be answered without waiting (default one block). */
  maxAgeMs?: number
}

/**
 * The network's fees, read at most once a block for all the deploys of this instance: answered from the last read when
 * it is younger than `maxAgeMs`, and read again in the background once it is a block old, so that a deploy holding
 * the nonce lock seldom waits for the chain. A failed read is forgotten at once (the next caller reads again).
 */
export async function feesOfBlock({ publicClient, maxAgeMs = BLOCK_MS }: FeesOfBlockParameters): Promise<NetworkFees> {
  const now = Date.now()
  const entry = cache.get(publicClient)
  const read = () => {
    const fresh: Entry = { fees: currentFees(publicClient), readAt: now }
    cache.set(publicClient, fresh)
    fresh.fees.catch(() => {
      if (cache.get(publicClient) === fresh) cache.delete(publicClient)
    })
    return fresh
  }
  if (!entry) return read().fees
  const age = now - entry.readAt
  if (age >= BLOCK_MS) {
    const next = read()
    // Stale but allowed: answer the last fees now; the new read serves the next callers.
    if (age < maxAgeMs) return entry.fees.catch(() => next.fees)
    return next.fees
  }
  return entry.fees
}
