import type { PublicClient } from 'viem'
import { currentFees, type NetworkFees } from './fees.js'

export type { NetworkFees }

/** Base's block time: fees change at most this often. */
export const BLOCK_MS = 2000

type Entry = { fees: Promise<NetworkFees>; readAt: number }

/** The fees of one chain client, read at most once a block for all the deploys of an instance. */
export type FeeCache = {
  /**
   * The network's fees: answered from the last read when it is younger than `maxAgeMs` (default one block), and read
   * again in the background once it is a block old, so that a deploy holding the nonce lock seldom waits for the
   * chain. A failed read is forgotten at once (the next caller reads again).
   */
  ofBlock(maxAgeMs?: number): Promise<NetworkFees>
}

/** Parameters of {@link createFeeCache}. */
export type CreateFeeCacheParameters = {
  publicClient: PublicClient
  /** The clock a read's age is measured on. */
  now: () => number
}

/** The fee cache of a chain client (one per instance, built with its deploy services): every deploy of a block shares one `eth_feeHistory`. */
export function createFeeCache({ publicClient, now }: CreateFeeCacheParameters): FeeCache {
  let entry: Entry | undefined
  return {
    ofBlock(maxAgeMs = BLOCK_MS) {
      const at = now()
      const last = entry
      const read = () => {
        const fresh: Entry = { fees: currentFees(publicClient), readAt: at }
        entry = fresh
        fresh.fees.catch(() => {
          if (entry === fresh) entry = undefined
        })
        return fresh
      }
      if (!last) return read().fees
      const age = at - last.readAt
      if (age >= BLOCK_MS) {
        const next = read()
        // Stale but allowed: answer the last fees now; the new read serves the next callers.
        if (age < maxAgeMs) return last.fees.catch(() => next.fees)
        return next.fees
      }
      return last.fees
    },
  }
}
